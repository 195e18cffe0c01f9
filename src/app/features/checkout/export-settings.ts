import { COLUMNS, MASK_FLAGS } from "../../../contract/columns";
import { DEFAULT_FULL_ROW_COLUMNS, type Reveal } from "../../../contract/inferred";
import { revealsEmail, revealsMobile } from "../../../contract/pricing";

/**
 * The most rows an export offers by default: a whole audience up to this size, else its first
 * 100,000 people by id. A file that size is about 30 MB, downloads in seconds, opens in any
 * spreadsheet (Excel stops at 1,048,576 rows) and on PAYG already costs up to 500,000 credits; a
 * larger pull is rarely meant by default. Anyone may type a larger number.
 */
export const MAX_ROWS_DEFAULT_CAP = 100_000;

/** The default `maxRows` for an audience of `count` people (null while the count is unknown). */
export function defaultMaxRows(count: number | null | undefined): number | null {
  if (count === null || count === undefined || !Number.isFinite(count)) return null;
  return Math.max(1, Math.min(Math.floor(count), MAX_ROWS_DEFAULT_CAP));
}

const MASKED: ReadonlySet<string> = new Set(Object.values(MASK_FLAGS));

/** Columns a person may pick for full rows: every contact column but email and mobile (the reveal adds those). */
export const PICKABLE_COLUMNS: readonly { name: string; label: string }[] = COLUMNS.filter(
  (column) => !MASKED.has(column.name),
).map(({ name, label }) => ({ name, label }));

/** The default pick: the service's default full-row columns, without email and mobile. */
export const DEFAULT_PICKED_COLUMNS: readonly string[] = DEFAULT_FULL_ROW_COLUMNS.filter(
  (c) => !MASKED.has(c),
);

/**
 * The pick a salesperson imports into a CRM: who (first and last name, title), where (company, its
 * domain, country) and their LinkedIn profile; the email comes with the reveal choice.
 */
export const CRM_PICKED_COLUMNS: readonly string[] = [
  "FIRST_NAME_PER",
  "LAST_NAME_PER",
  "JOB_TITLE_PER",
  "COMPANY_NAME_ORG",
  "DOMAIN_ORG",
  "LINKEDIN_URL_PER",
  "COUNTRY_NAME_PER",
];

/** Always delivered, whatever is picked. */
export const ALWAYS_COLUMN = "RBID_PAO";

/**
 * The columns the rows will have, in order, for what is asked (src/sandbox/README.md, Export): the
 * picked columns (or the default set) without email and mobile, `RBID_PAO` first and each once,
 * then Email if revealed, then Mobile if revealed. The estimate promises these columns.
 */
export function deliveredColumns(picked: readonly string[] | null | undefined, reveal: Reveal): string[] {
  const base = (picked && picked.length > 0 ? picked : DEFAULT_FULL_ROW_COLUMNS).filter(
    (c) => !MASKED.has(c),
  );
  const columns = [...new Set([ALWAYS_COLUMN, ...base])];
  if (revealsEmail(reveal)) columns.push(MASK_FLAGS.hasEmail);
  if (revealsMobile(reveal)) columns.push(MASK_FLAGS.hasMobile);
  return columns;
}

/** The order columns are listed and sent in: the default set as the service orders it, then the catalogue's. */
const COLUMN_ORDER: readonly string[] = [
  ...new Set([ALWAYS_COLUMN, ...DEFAULT_PICKED_COLUMNS, ...PICKABLE_COLUMNS.map((c) => c.name)]),
];

/** Pickable columns in the order they are listed. */
export const COLUMN_CHOICES: readonly { name: string; label: string }[] = COLUMN_ORDER.map(
  (name) => PICKABLE_COLUMNS.find((c) => c.name === name)!,
);

/** The columns to send: the pick in listing order, without email and mobile, RBID_PAO included. */
export function requestColumns(picked: readonly string[]): string[] {
  const chosen = new Set(picked);
  chosen.add(ALWAYS_COLUMN);
  return COLUMN_ORDER.filter((name) => chosen.has(name));
}
