import { csvField } from "../csv";
/**
 * The v2 batch download: RFC 4180 CSV, one header row then one record per verified address.
 */
import { toV2Status, type V1Result } from "./verify-email";

export const resultsCsvHeader = "email,status,deliverability,role,risk";
/** RFC 4180 ends every record, the last included, with CRLF. */
export const CSV_EOL = "\r\n";

/**
 * Formula-injection guard (OWASP "CSV Injection"). Spreadsheets run a cell that starts with one of
 * these as a formula (`=HYPERLINK(…)`, `@SUM(…)`, `+cmd|…`), and the email column is text the
 * uploader chose: `=cmd@evil.com` is even a syntactically valid address. Prefixing `'` makes the
 * spreadsheet show the cell as text. The cost is that such a cell no longer equals the address byte
 * for byte; a program reading the file must strip one leading `'` before these characters.
 */
const FORMULA_TRIGGERS = new Set(["=", "+", "-", "@", "\t", "\r"]);

export function neutraliseFormula(cell: string): string {
  return FORMULA_TRIGGERS.has(cell.charAt(0)) ? `'${cell}` : cell;
}

/** Quotes a field when it holds a comma, a quote or a line break; inner quotes are doubled. */
export { csvField };

/** One record, without its line ending (join with `CSV_EOL`). */
export function toCsvLine(result: V1Result): string {
  return [
    result.email,
    toV2Status(result.deliverability),
    result.deliverability,
    String(result.role),
    result.risk,
  ]
    .map((cell) => csvField(neutraliseFormula(cell)))
    .join(",");
}

/** The whole file: header, records, each ended by CRLF. */
export function toResultsCsv(results: readonly V1Result[]): string {
  return [resultsCsvHeader, ...results.map(toCsvLine)].map((line) => line + CSV_EOL).join("");
}
