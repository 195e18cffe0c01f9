/**
 * PostgreSQL refuses U+0000 in `text` and in `jsonb` (even escaped), and text that is not valid
 * UTF-8, which a lone UTF-16 surrogate ("\udfff") becomes; the contract lets both through in names
 * and filter values. A write that holds one would fail the journal's final commit after the
 * purchase was made (no ledger row, no owned rows), so what is stored as a record of a purchase
 * drops a NUL from text, writes it as U+FFFD in JSON, and writes a lone surrogate as U+FFFD.
 */
export function pgText(value: string): string;
export function pgText(value: string | null): string | null;
export function pgText(value: string | null): string | null {
  return value === null ? null : wellFormed(value).replaceAll("\u0000", "");
}

/** JSON for a `jsonb` column: `\u0000` escapes (not escaped backslashes before them) become U+FFFD. */
export function pgJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? wellFormed(v) : v)).replace(
    /(?<!\\)((?:\\\\)*)\\u0000/g,
    "$1\\ufffd",
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed). */
function wellFormed(value: string): string {
  return value.replace(LONE_SURROGATE, "\uFFFD");
}
