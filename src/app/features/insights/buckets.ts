import { getColumn } from "../../../contract/columns";
import { INSIGHTS_MAX_FIELDS } from "../../../contract/inferred";

/** A grouped value as the service sends it; null is a value like any other ("not given"). */
export type BucketValue = string | number | null;

export interface Bucket {
  value: BucketValue;
  count: number;
}

/**
 * Columns worth a breakdown, in the order the chooser offers them: the catalogue's unmasked columns
 * with a handful of values per audience. Ids, names, links and free text (one value per person) and
 * the raw min/max numbers behind the bands are left out. Masked columns cannot be grouped at all.
 */
const GROUPABLE_ORDER = [
  "JOB_LEVEL_PER",
  "JOB_FUNCTION_PER",
  "COUNTRY_NAME_PER",
  "CONTINENT_PER",
  "STATE_NAME_PER",
  "CITY_PER",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
  "HEADQUARTERS_CITY_ORG",
  "FOUNDED_ORG",
  "JOB_TITLE_PER",
  "COMPANY_NAME_ORG",
] as const;

export interface GroupableColumn {
  name: string;
  label: string;
}

export const GROUPABLE_COLUMNS: readonly GroupableColumn[] = GROUPABLE_ORDER.flatMap((name) => {
  const column = getColumn(name);
  return column && !column.maskedAs ? [{ name, label: column.label }] : [];
});

const GROUPABLE = new Set(GROUPABLE_COLUMNS.map((c) => c.name));

export function isGroupable(name: string): boolean {
  return GROUPABLE.has(name);
}

export const DEFAULT_GROUP_FIELD = "JOB_LEVEL_PER";
export const DEFAULT_FIELDS: readonly string[] = [
  "JOB_FUNCTION_PER",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "COUNTRY_NAME_PER",
];

/** Fields as a request takes them: groupable, once each, at most INSIGHTS_MAX_FIELDS, in chooser order. */
export function normaliseFields(fields: readonly string[]): string[] {
  const chosen = new Set(fields);
  return GROUPABLE_COLUMNS.filter((c) => chosen.has(c.name))
    .map((c) => c.name)
    .slice(0, INSIGHTS_MAX_FIELDS);
}

export function columnLabel(name: string): string {
  return getColumn(name)?.label ?? name;
}

/** What a person reads for a value: "Not given" for null, the value as is otherwise (years unformatted). */
export function valueLabel(value: BucketValue): string {
  if (value === null) return "Not given";
  if (value === "") return "(empty)";
  return String(value);
}

const UNITS: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, t: 1e12 };

/**
 * Where a band label sits on its scale: its first number with its unit ("$10M-$50M" -> 10,000,000,
 * "10001+" -> 10,001), a little below it when the label starts with "<" ("<$1M"). NaN when the label
 * holds no number. Works on the labels data vendors use, whatever the currency sign.
 */
export function bandStart(label: string): number {
  const match = /(\d[\d,]*(?:\.\d+)?)\s*([kmbt])?/i.exec(label);
  if (!match) return Number.NaN;
  const number = Number(match[1]!.replace(/,/g, "")) * (UNITS[match[2]?.toLowerCase() ?? ""] ?? 1);
  return label.trimStart().startsWith("<") ? number - 0.5 : number;
}

/**
 * The buckets in the order to show them: by count (the service's order) for most columns; for a
 * band column (`ordinal`: employee or revenue ranges) in band order, smallest first, so the chart
 * reads as a distribution. Values without a number go after the bands, and "Not given" last.
 */
export function orderBuckets<T extends Bucket>(column: string, buckets: readonly T[]): T[] {
  if (!getColumn(column)?.ordinal) return [...buckets];
  const rank = (bucket: T): [number, number, string] => {
    if (bucket.value === null) return [2, 0, ""];
    const label = String(bucket.value);
    const start = typeof bucket.value === "number" ? bucket.value : bandStart(label);
    return Number.isNaN(start) ? [1, 0, label] : [0, start, label];
  };
  return [...buckets].sort((a, b) => {
    const [ga, sa, la] = rank(a);
    const [gb, sb, lb] = rank(b);
    return ga - gb || sa - sb || la.localeCompare(lb);
  });
}

/** `0.1234` of a total -> "12%"; below 1% one decimal ("0.4%"), "<0.1%" for a sliver, ">99%" for all but a few. */
export function formatShare(part: number, total: number): string {
  if (total <= 0) return "0%";
  const share = (part / total) * 100;
  if (share === 0) return "0%";
  if (share < 0.1) return "<0.1%";
  if (share < 1) return `${share.toFixed(1)}%`;
  // "100%" only when it is everyone.
  if (part < total && share >= 99.5) return ">99%";
  return `${Math.round(share)}%`;
}

/** What adding a value as a condition did, for the panel to say. */
export type AddConditionResult = { ok: true; changed: boolean } | { ok: false; error: string };

/**
 * Adds `column = value` (or "is not given" for null) to the audience. The page that holds the
 * audience decides how (the Builder ANDs it to its tree); insights only offer the values.
 */
export type AddCondition = (column: string, value: BucketValue) => AddConditionResult | undefined;

/** "Job level is Director", "Country is not given": the condition in words. */
export function conditionWords(column: string, value: BucketValue): string {
  return value === null
    ? `${columnLabel(column)} is not given`
    : `${columnLabel(column)} is ${valueLabel(value)}`;
}
