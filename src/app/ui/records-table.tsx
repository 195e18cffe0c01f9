import { type ReactNode, useId } from "react";
import { labelOf } from "../../contract/columns";
import { formatNumber } from "../lib/format";
import "./records-table.css";

/** Numbers that are names rather than quantities: shown without thousands separators. */
const PLAIN_NUMBER_COLUMNS: ReadonlySet<string> = new Set(["FOUNDED_ORG"]);

/** A cell's text, or null for "nothing" (null, undefined, empty string). */
export function cellText(column: string, value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number")
    return PLAIN_NUMBER_COLUMNS.has(column) || !Number.isFinite(value) ? String(value) : formatNumber(value);
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function Empty() {
  return (
    <span className="records-table-none">
      <span aria-hidden="true">—</span>
      <span className="visually-hidden">none</span>
    </span>
  );
}

export interface RecordsTableProps {
  rows: readonly Record<string, unknown>[];
  columns: readonly string[];
  /** Header text per column; a column without one uses the catalogue's label (or its name). */
  labels?: Record<string, string>;
  /** What the table shows, for everyone (it is the table's caption). */
  caption: string;
  /** Shown instead of an empty table. */
  emptyText?: string;
  /** A stable key per row (default: RBID_PAO when present, else the index). */
  rowKey?: (row: Record<string, unknown>, index: number) => string;
  /** Custom rendering of one cell; return undefined to use the default. */
  renderCell?: (column: string, value: unknown, row: Record<string, unknown>) => ReactNode | undefined;
  /** Hide the caption visually (it stays for screen readers), when a heading already says it. */
  captionHidden?: boolean;
  className?: string;
}

function defaultKey(row: Record<string, unknown>, index: number): string {
  const id = row.RBID_PAO;
  return typeof id === "string" || typeof id === "number" ? `${id}` : `row-${index}`;
}

/**
 * Rows of records as an accessible table: a caption, one column header per column, null shown as
 * an em dash (read as "none"). It scrolls sideways (and down, with the header kept in view) inside
 * a focusable region, so a wide table never widens the page and the keyboard can scroll it.
 */
export function RecordsTable({
  rows,
  columns,
  labels,
  caption,
  emptyText = "No rows.",
  rowKey = defaultKey,
  renderCell,
  captionHidden = false,
  className,
}: RecordsTableProps) {
  const captionId = useId();
  const frame = className ? `records-table-scroll ${className}` : "records-table-scroll";
  if (rows.length === 0)
    return (
      <p className="records-table-empty" role="status">
        {emptyText}
      </p>
    );
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it.
    <section className={frame} aria-labelledby={captionId} tabIndex={0}>
      <table className="records-table">
        <caption id={captionId} className={captionHidden ? "visually-hidden" : "records-table-caption"}>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {labels?.[column] ?? labelOf(column)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={rowKey(row, index)}>
              {columns.map((column) => {
                const custom = renderCell?.(column, row[column], row);
                const text = custom === undefined ? cellText(column, row[column]) : null;
                return (
                  <td key={column} data-column={column}>
                    {custom !== undefined ? (
                      custom
                    ) : text === null ? (
                      <Empty />
                    ) : column === "RBID_PAO" ? (
                      <span className="mono">{text}</span>
                    ) : (
                      text
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
