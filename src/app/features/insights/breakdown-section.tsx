import { lazy, type ReactNode, Suspense, useId, useMemo, useState } from "react";
import { formatNumber } from "../../lib/format";
import type { ChartRow } from "./breakdown-chart";
import {
  type BucketValue,
  columnLabel,
  conditionWords,
  formatShare,
  GROUPABLE_COLUMNS,
  orderBuckets,
  valueLabel,
} from "./buckets";
import type { InsightsBreakdown, SectionState } from "./insights";
import { SectionProblem } from "./section-problem";

// recharts is loaded with the first breakdown, not with the page: the rows read without it.
const BreakdownChart = lazy(() => import("./breakdown-chart").then((m) => ({ default: m.BreakdownChart })));

/** Rows shown before "Show all" in the Builder's panel (the page shows every row). */
const FIRST_ROWS = 10;

interface Row {
  key: string;
  value: BucketValue;
  label: string;
  count: number;
}

function rowsOf(data: InsightsBreakdown): Row[] {
  return orderBuckets(data.groupField, data.buckets).map((bucket) => ({
    key: bucket.value === null ? "null" : `${typeof bucket.value}:${bucket.value}`,
    value: bucket.value,
    label: valueLabel(bucket.value),
    count: bucket.count,
  }));
}

/**
 * The audience broken down by one column: a horizontal bar per value (top values, bands in their
 * order), each row a button that adds the value as a condition, and what the top leaves out.
 */
export function BreakdownSection({
  state,
  groupField,
  onGroupFieldChange,
  onAdd,
  hintId,
  compact,
}: {
  state: SectionState<InsightsBreakdown>;
  groupField: string;
  onGroupFieldChange: (column: string) => void;
  onAdd: (column: string, value: BucketValue) => void;
  /** The line that says what selecting a value does (each row's description). */
  hintId: string;
  /** The Builder's panel: the first rows, then "Show all". */
  compact: boolean;
}) {
  const id = useId();
  const [expanded, setExpanded] = useState(false);
  const data = state.data;
  const rows = useMemo(() => (data ? rowsOf(data) : []), [data]);
  const limit = compact && !expanded ? FIRST_ROWS : rows.length;
  const shown = useMemo(() => rows.slice(0, limit), [rows, limit]);
  const shownTotal = shown.reduce((sum, row) => sum + row.count, 0);
  const rest = data ? data.total - shownTotal : 0;
  const hiddenRows = rows.length - shown.length;
  const chartRows: ChartRow[] = useMemo(() => shown.map((r) => ({ key: r.key, count: r.count })), [shown]);
  const field = data?.groupField ?? groupField;

  let body: ReactNode;
  if (state.error) body = <SectionProblem what="the breakdown" error={state.error} onRetry={state.retry} />;
  else if (!data)
    body = state.isPending ? <p className="muted insights-wait">Breaking the audience down…</p> : null;
  else if (data.total === 0)
    body = <p className="muted">No one in this audience, so nothing to break down.</p>;
  else
    body = (
      <div className="insights-breakdown-body" data-stale={state.isStale || undefined}>
        <div className="insights-chart" aria-hidden="true">
          <Suspense fallback={null}>
            <BreakdownChart rows={chartRows} />
          </Suspense>
        </div>
        <ol className="insights-rows" aria-label={`People by ${columnLabel(field)}`}>
          {shown.map((row) => (
            <li key={row.key}>
              <button
                type="button"
                className="insights-row"
                title={`${row.label}: add “${conditionWords(field, row.value)}” to the audience`}
                aria-describedby={hintId}
                data-value={row.label}
                data-count={row.count}
                onClick={() => onAdd(field, row.value)}
              >
                <span className={row.value === null ? "insights-row-label is-null" : "insights-row-label"}>
                  {row.label}
                </span>
                {/* The name reads "Director: 4,684 people, 9%"; the eye needs no words between columns. */}
                <span className="visually-hidden">: </span>
                <span className="insights-row-count">{formatNumber(row.count)}</span>
                <span className="visually-hidden">{row.count === 1 ? " person, " : " people, "}</span>
                <span className="insights-row-share">{formatShare(row.count, data.total)}</span>
              </button>
            </li>
          ))}
        </ol>
        {rest > 0 ? (
          <p className="insights-rest">
            {hiddenRows > 0
              ? `${hiddenRows} more ${hiddenRows === 1 ? "value" : "values"} and all others`
              : "All other values"}
            : {formatNumber(rest)} ({formatShare(rest, data.total)})
          </p>
        ) : null}
        {compact && rows.length > FIRST_ROWS ? (
          <button
            type="button"
            className="button button-quiet insights-more"
            aria-expanded={expanded}
            onClick={() => setExpanded((on) => !on)}
          >
            {expanded ? `Show the first ${FIRST_ROWS}` : `Show all ${rows.length} values`}
          </button>
        ) : null}
      </div>
    );

  return (
    <section className="insights-breakdown" aria-labelledby={`${id}-title`} aria-busy={state.isFetching}>
      <div className="insights-breakdown-header">
        <h3 className="insights-subtitle" id={`${id}-title`}>
          Breakdown
        </h3>
        <label className="insights-field-picker">
          <span className="field-label">Break down by</span>
          <select
            className="input insights-select"
            value={groupField}
            onChange={(event) => onGroupFieldChange(event.target.value)}
          >
            {GROUPABLE_COLUMNS.map((column) => (
              <option key={column.name} value={column.name}>
                {column.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {body}
    </section>
  );
}
