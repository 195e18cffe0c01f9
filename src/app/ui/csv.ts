import Papa from "papaparse";
import { type CsvHeaderStyle, csvHeaders } from "../../contract/columns";

/** A cell's text: nothing as an empty field (as the service's own CSV files do), objects as JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return JSON.stringify(value);
}

/**
 * RFC 4180 text of `rows` in the order of `columns`: one header row, then one record per row, CRLF
 * line ends, fields quoted when they need it. Missing fields are empty. The same shape as the
 * service's export files, so a file made here and one downloaded read alike. The header row holds
 * the column names, or with `headers: "labels"` their labels (contract/columns.ts, `csvHeaders`).
 */
export function toCsv(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  { headers = "names" }: { headers?: CsvHeaderStyle } = {},
): string {
  const data = rows.map((row) => columns.map((column) => cellText(row[column])));
  const fields = csvHeaders(columns, headers);
  const body = Papa.unparse({ fields, data }, { newline: "\r\n", quotes: false, header: true });
  return `${body}\r\n`;
}
