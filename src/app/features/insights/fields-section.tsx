import { type ReactNode, useId } from "react";
import { INSIGHTS_MAX_FIELDS } from "../../../contract/inferred";
import { formatNumber } from "../../lib/format";
import { ChecklistMenu } from "../../ui/checklist-menu";
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

/** Which columns are listed (up to INSIGHTS_MAX_FIELDS). */
function FieldsChooser({
  fields,
  onChange,
}: {
  fields: readonly string[];
  onChange: (fields: string[]) => void;
}) {
  const chosen = new Set(fields);
  return (
    <ChecklistMenu
      name="Fields"
      title={`Fields to list (up to ${INSIGHTS_MAX_FIELDS})`}
      options={GROUPABLE_COLUMNS}
      chosen={chosen}
      full={chosen.size >= INSIGHTS_MAX_FIELDS}
      onToggle={(name, on) =>
        onChange(normaliseFields(on ? [...fields, name] : fields.filter((f) => f !== name)))
      }
      resetLabel="Back to the default fields"
      onReset={() => onChange([...DEFAULT_FIELDS])}
      classPrefix="insights-chooser"
      align="end"
    />
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
    body = <SectionProblem what="the top values" error={state.error} onRetry={state.retry} />;
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
