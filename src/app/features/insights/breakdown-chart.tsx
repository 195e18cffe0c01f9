import { Bar, BarChart, XAxis, YAxis } from "recharts";

/** One bar: `key` is unique per row (values may repeat their label, e.g. 1990 and "1990"). */
export interface ChartRow {
  key: string;
  count: number;
}

/** Pixels per row: the bars line up with the row buttons drawn over them (breakdown-section.tsx). */
export const CHART_ROW_PX = 32;

/**
 * The breakdown's bars, one per row, horizontal (labels can be long). Drawing only: the labels,
 * numbers and the "add as a condition" buttons are HTML rows laid over it, which are also its text
 * alternative, so the chart itself is hidden from assistive technology and takes no focus. Loaded
 * on demand (recharts stays out of the first chunks).
 */
export function BreakdownChart({ rows }: { rows: readonly ChartRow[] }) {
  return (
    <BarChart
      className="insights-chart-svg"
      responsive
      width="100%"
      height={rows.length * CHART_ROW_PX}
      layout="vertical"
      data={rows as ChartRow[]}
      margin={{ top: 0, right: 0, bottom: 0, left: 0 }}
      accessibilityLayer={false}
    >
      <XAxis type="number" hide domain={[0, "dataMax"]} />
      <YAxis type="category" dataKey="key" hide />
      <Bar dataKey="count" barSize={18} radius={[0, 4, 4, 0]} className="insights-bar" />
    </BarChart>
  );
}
