import { useQueries } from "@tanstack/react-query";
import { useDeferredValue, useId, useMemo, useState } from "react";
import { ENUMERABLE_COMPANY_COLUMNS, labelOf } from "../../../contract/columns";
import type { FilterNode, GroupNode } from "../../../contract/filter";
import { useColumnValues } from "../../api/column-values";
import { presenceChunks, valueKey, valuePresenceQueryOptions } from "../../api/value-counts";
import { valueCondition } from "../../lib/filter/tree";
import { formatNumber } from "../../lib/format";
import { Field } from "../../ui/field";
import { ErrorPanel } from "../../ui/status";
import { AddableValues } from "./addable-values";
import "./companies.css";

/** Values containing `search` (ignoring case and surrounding spaces), in the service's order. */
export function filterValues(values: readonly string[], search: string): string[] {
  const needle = search.trim().toLowerCase();
  if (needle === "") return [...values];
  return values.filter((value) => value.toLowerCase().includes(needle));
}

/**
 * Values with people in the audience first (most first; ties and the service's order kept), then
 * those with no one. `counts` by valueKey.
 */
export function orderByPeople(values: readonly string[], counts: ReadonlyMap<string, number>): string[] {
  const people = (value: string) => counts.get(valueKey(value)) ?? 0;
  return values
    .map((value, index) => ({ value, index, n: people(value) }))
    .sort((a, b) => b.n - a.n || a.index - b.index)
    .map((entry) => entry.value);
}

/** The working audience, whose people each value is counted in. */
interface Audience {
  filter: GroupNode;
  /** False while a rule is unfinished: values are not counted then. */
  valid: boolean;
}

/**
 * How many people of the audience have each of `values`: every value asked (20 a breakdown, free,
 * cached), so one the top 20 would leave out still has its count. null until all have answered.
 */
function useCountsInAudience(column: string, values: readonly string[], { filter, valid }: Audience) {
  const chunks = useMemo(() => presenceChunks(values, values.length), [values]);
  return useQueries({
    queries: chunks.map((chunk) => ({ ...valuePresenceQueryOptions(column, chunk, filter), enabled: valid })),
    combine: (results) =>
      results.length > 0 && results.every((r) => r.isSuccess)
        ? new Map(results.flatMap((r) => r.data ?? []).map((e) => [valueKey(e.value), e.count]))
        : null,
  });
}

const NO_VALUES: readonly string[] = [];

function ValuesList({
  column,
  audience,
  onAdd,
}: {
  column: string;
  audience: Audience;
  onAdd(node: FilterNode): void;
}) {
  const id = useId();
  const [search, setSearch] = useState("");
  const [showAll, setShowAll] = useState(false);
  const deferred = useDeferredValue(search);
  const query = useColumnValues(column);
  const label = labelOf(column);
  const counts = useCountsInAudience(column, query.data?.values ?? NO_VALUES, audience);

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
  const searching = deferred.trim() !== "";
  const matching = filterValues(values, deferred);
  // Counted: the values with people in the audience lead, and those with no one wait behind a
  // button (a search shows every match).
  const counted = audience.valid && counts !== null;
  const ordered = counted ? orderByPeople(matching, counts) : matching;
  const empty = counted ? ordered.filter((value) => (counts.get(valueKey(value)) ?? 0) === 0).length : 0;
  const shown = searching || showAll || empty === 0 ? ordered : ordered.slice(0, ordered.length - empty);
  const summary = searching
    ? `${formatNumber(matching.length)} of ${formatNumber(count)} values contain “${deferred.trim()}”`
    : `${formatNumber(count)} ${count === 1 ? "value" : "values"}${counted ? `, ${formatNumber(count - empty)} with people in your audience` : ""}`;
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
      <Field label={`Search within ${label}`}>
        {(control) => (
          <input
            {...control}
            className="input"
            type="search"
            autoComplete="off"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        )}
      </Field>
      {shown.length === 0 ? (
        <p className="values-empty">
          {searching ? `No value contains “${deferred.trim()}”.` : "No one in your audience has any of them."}
        </p>
      ) : (
        <AddableValues
          className="values-list"
          label={label}
          onAdd={onAdd}
          items={shown.map((value) => ({
            key: value,
            label: value,
            people: audience.valid ? (counts?.get(valueKey(value)) ?? (counts ? 0 : null)) : undefined,
            node: valueCondition(column, value),
          }))}
        />
      )}
      {!searching && empty > 0 ? (
        <button
          type="button"
          className="button button-quiet values-show-all"
          onClick={() => setShowAll(!showAll)}
        >
          {showAll
            ? `Hide the ${formatNumber(empty)} with no one in your audience`
            : `Show all ${formatNumber(count)} (${formatNumber(empty)} with no one in your audience)`}
        </button>
      ) : null}
    </div>
  );
}

/**
 * The values each enumerable company column takes (industry, size, revenue, HQ country): pick a
 * column, read or search its values, each with its people in the audience, and add one to the
 * audience in a click. Only these columns can be listed (the service says so).
 */
export function ColumnValuesBrowser({ filter, valid, onAdd }: Audience & { onAdd(node: FilterNode): void }) {
  const audience = useMemo(() => ({ filter, valid }), [filter, valid]);
  const [column, setColumn] = useState(ENUMERABLE_COMPANY_COLUMNS[0] ?? "");
  return (
    <section className="card values-browser" aria-labelledby="values-browser-title">
      <h2 className="card-title" id="values-browser-title">
        Company field values
      </h2>
      <p className="companies-lead">
        {valid
          ? "Each value with how many people of your audience have it; Add puts it in your audience as a condition."
          : "The values you can pick from when a rule compares one of these fields; Add puts one in your audience as a condition. Finish the audience to see how many people have each."}
      </p>
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
        {column === "" ? null : <ValuesList key={column} column={column} audience={audience} onAdd={onAdd} />}
      </div>
    </section>
  );
}
