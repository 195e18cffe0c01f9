import { useDeferredValue, useId, useState } from "react";
import { ENUMERABLE_COMPANY_COLUMNS, labelOf } from "../../../contract/columns";
import { useColumnValues } from "../../api/column-values";
import { formatNumber } from "../../lib/format";
import { ErrorPanel } from "../../ui/status";
import "./companies.css";

/** Values containing `search` (ignoring case and surrounding spaces), in the service's order. */
export function filterValues(values: readonly string[], search: string): string[] {
  const needle = search.trim().toLowerCase();
  if (needle === "") return [...values];
  return values.filter((value) => value.toLowerCase().includes(needle));
}

function ValuesList({ column }: { column: string }) {
  const id = useId();
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search);
  const query = useColumnValues(column);
  const label = labelOf(column);

  if (query.isError)
    return (
      <ErrorPanel
        title={`The values of ${label} could not be loaded`}
        error={query.error}
        onRetry={() => void query.refetch()}
      />
    );
  if (query.data === undefined)
    return (
      <p className="muted" role="status">
        Loading the values of {label}…
      </p>
    );

  const { values, count } = query.data;
  const shown = filterValues(values, deferred);
  const summary =
    deferred.trim() === ""
      ? `${formatNumber(count)} ${count === 1 ? "value" : "values"}`
      : `${formatNumber(shown.length)} of ${formatNumber(count)} values contain “${deferred.trim()}”`;
  return (
    <div className="values-panel">
      <div className="values-head">
        <h3 className="values-title" id={`${id}-title`}>
          {label}
        </h3>
        <p className="muted" role="status" aria-live="polite">
          {summary}
        </p>
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-search`}>
          Search within {label}
        </label>
        <input
          id={`${id}-search`}
          className="input"
          type="search"
          autoComplete="off"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      {shown.length === 0 ? (
        <p className="values-empty">No value contains “{deferred.trim()}”.</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling list must be reachable by keyboard to scroll it.
        <ul className="values-list" aria-labelledby={`${id}-title`} tabIndex={0}>
          {shown.map((value) => (
            <li key={value}>{value}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The values each enumerable company column takes (industry, size, revenue, HQ country): pick a
 * column, read or search its values. Only these columns can be listed (the service says so).
 */
export function ColumnValuesBrowser() {
  const [column, setColumn] = useState(ENUMERABLE_COMPANY_COLUMNS[0] ?? "");
  return (
    <section className="card values-browser" aria-labelledby="values-browser-title">
      <h2 className="card-title" id="values-browser-title">
        Company field values
      </h2>
      <p className="companies-lead">The values you can pick from when a rule compares one of these fields.</p>
      <div className="values-layout">
        <fieldset className="values-columns">
          <legend className="field-label">Field</legend>
          {ENUMERABLE_COMPANY_COLUMNS.map((name) => (
            <label key={name} className="values-column">
              <input
                type="radio"
                name="values-column"
                value={name}
                checked={column === name}
                onChange={() => setColumn(name)}
              />
              <span>{labelOf(name)}</span>
            </label>
          ))}
        </fieldset>
        {column === "" ? null : <ValuesList key={column} column={column} />}
      </div>
    </section>
  );
}
