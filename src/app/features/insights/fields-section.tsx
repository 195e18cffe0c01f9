import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { type ReactNode, useId } from "react";
import { INSIGHTS_MAX_FIELDS } from "../../../contract/inferred";
import { formatNumber } from "../../lib/format";
import { MenuContent } from "../../ui/menu-content";
import {
  type BucketValue,
  columnLabel,
  conditionWords,
  DEFAULT_FIELDS,
  formatShare,
  GROUPABLE_COLUMNS,
  normaliseFields,
  orderBuckets,
  valueLabel,
} from "./buckets";
import type { InsightsFields, SectionState } from "./insights";
import { SectionProblem } from "./section-problem";

/**
 * Which columns are listed. Non-modal, so that nothing injects styles (the CSP allows none) or
 * locks the page's scroll; it stays open while several are ticked.
 */
function FieldsChooser({
  fields,
  onChange,
}: {
  fields: readonly string[];
  onChange: (fields: string[]) => void;
}) {
  const chosen = new Set(fields);
  const full = chosen.size >= INSIGHTS_MAX_FIELDS;
  const toggle = (name: string, on: boolean) =>
    onChange(normaliseFields(on ? [...fields, name] : fields.filter((f) => f !== name)));
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="button button-secondary insights-chooser-trigger">
          Fields ({chosen.size})<span aria-hidden="true">▾</span>
        </button>
      </DropdownMenu.Trigger>
      <MenuContent className="insights-chooser" align="end">
        <DropdownMenu.Label className="menu-label insights-chooser-label">
          Fields to list (up to {INSIGHTS_MAX_FIELDS})
        </DropdownMenu.Label>
        {GROUPABLE_COLUMNS.map((column) => {
          const on = chosen.has(column.name);
          return (
            <DropdownMenu.CheckboxItem
              key={column.name}
              className="menu-item insights-chooser-item"
              checked={on}
              disabled={!on && full}
              onCheckedChange={(checked) => toggle(column.name, checked === true)}
              onSelect={(event) => event.preventDefault()}
            >
              <span className="insights-chooser-check" aria-hidden="true">
                <DropdownMenu.ItemIndicator>✓</DropdownMenu.ItemIndicator>
              </span>
              {column.label}
            </DropdownMenu.CheckboxItem>
          );
        })}
        <DropdownMenu.Separator className="insights-chooser-separator" />
        <DropdownMenu.Item
          className="menu-item insights-chooser-item"
          onSelect={() => onChange([...DEFAULT_FIELDS])}
        >
          <span className="insights-chooser-check" aria-hidden="true" />
          Back to the default fields
        </DropdownMenu.Item>
      </MenuContent>
    </DropdownMenu.Root>
  );
}

/** One column's top values: a short list, each value a button that adds it as a condition. */
function TopValues({
  column,
  values,
  total,
  onAdd,
  hintId,
}: {
  column: string;
  values: readonly { value: BucketValue; count: number }[];
  total: number | null;
  onAdd: (column: string, value: BucketValue) => void;
  hintId: string;
}) {
  const id = useId();
  const ordered = orderBuckets(column, values);
  const largest = Math.max(1, ...ordered.map((v) => v.count));
  return (
    <section className="insights-top" aria-labelledby={id}>
      <h4 className="insights-top-title" id={id}>
        {columnLabel(column)}
      </h4>
      {ordered.length === 0 ? (
        <p className="muted">No values.</p>
      ) : (
        <ol className="insights-top-list" aria-labelledby={id}>
          {ordered.map((entry) => {
            const label = valueLabel(entry.value);
            const share = total ? `, ${formatShare(entry.count, total)}` : "";
            return (
              <li key={entry.value === null ? "null" : `${typeof entry.value}:${entry.value}`}>
                <button
                  type="button"
                  className="insights-top-item"
                  title={`${label}: add “${conditionWords(column, entry.value)}” to the audience`}
                  aria-describedby={hintId}
                  onClick={() => onAdd(column, entry.value)}
                >
                  <span
                    className={entry.value === null ? "insights-top-label is-null" : "insights-top-label"}
                  >
                    {label}
                  </span>
                  <span className="visually-hidden">: </span>
                  <span className="insights-top-count">{formatNumber(entry.count)}</span>
                  {share ? <span className="visually-hidden">{share}</span> : null}
                  <span className="insights-top-bar" aria-hidden="true">
                    <span style={{ width: `${(entry.count / largest) * 100}%` }} />
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** The top values of a few columns side by side, to spot a filter that is too wide or too narrow. */
export function FieldsSection({
  state,
  fields,
  onFieldsChange,
  total,
  onAdd,
  hintId,
}: {
  state: SectionState<InsightsFields>;
  fields: readonly string[];
  onFieldsChange: (fields: string[]) => void;
  /** The audience's size (from the summary), for shares; null while unknown. */
  total: number | null;
  onAdd: (column: string, value: BucketValue) => void;
  /** The line that says what selecting a value does (each value's description). */
  hintId: string;
}) {
  const id = useId();
  const data = state.data;
  let body: ReactNode;
  if (fields.length === 0) body = <p className="muted">Choose fields to list their most common values.</p>;
  else if (state.error)
    body = <SectionProblem what="The top values" error={state.error} onRetry={state.retry} />;
  else if (!data)
    body = state.isPending ? <p className="muted insights-wait">Listing the top values…</p> : null;
  else
    body = (
      <div className="insights-top-grid" data-stale={state.isStale || undefined}>
        {Object.keys(data.fields).map((column) => (
          <TopValues
            key={column}
            column={column}
            values={data.fields[column] ?? []}
            total={total}
            onAdd={onAdd}
            hintId={hintId}
          />
        ))}
      </div>
    );
  return (
    <section className="insights-fields" aria-labelledby={id} aria-busy={state.isFetching}>
      <div className="insights-breakdown-header">
        <h3 className="insights-subtitle" id={id}>
          Top values
        </h3>
        <FieldsChooser fields={fields} onChange={onFieldsChange} />
      </div>
      {body}
    </section>
  );
}
