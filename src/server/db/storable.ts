/**
 * PostgreSQL refuses U+0000 in `text` and in `jsonb` (even escaped), and the contract lets a NUL
 * through in names and filter values. A write that holds one would fail the journal's final commit
 * after the purchase was made (no ledger row, no owned rows), so what is stored as a record of a
 * purchase drops it from text and writes it as U+FFFD in JSON.
 */
export function pgText(value: string): string;
export function pgText(value: string | null): string | null;
export function pgText(value: string | null): string | null {
  return value === null ? null : value.replaceAll("\u0000", "");
}

/** JSON for a `jsonb` column: `\u0000` escapes (not escaped backslashes before them) become U+FFFD. */
export function pgJson(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}
