/**
 * Every choice the project makes where the service's interface document (the service's interface document, summarised in src/sandbox/README.md) says "not shown" lives here,
 * as data, and nowhere else (src/sandbox/README.md is the prose of it). Matching the live
 * service later is an edit to this file. Facts the documentation or the public docs state are elsewhere in
 * src/contract, next to the schemas that use them.
 */

/** Operators: the documented list. */
export const OPERATORS = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "contains",
  "startsWith",
  "endsWith",
  "isNull",
  "isNotNull",
  "in",
  "notIn",
  "between",
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Inferred: which of value / value2 / valueList each operator reads. */
export type OperandShape = "value" | "range" | "list" | "none";
export const OPERATOR_READS: Record<Operator, OperandShape> = {
  eq: "value",
  ne: "value",
  gt: "value",
  gte: "value",
  lt: "value",
  lte: "value",
  contains: "value",
  startsWith: "value",
  endsWith: "value",
  between: "range",
  in: "list",
  notIn: "list",
  isNull: "none",
  isNotNull: "none",
};

export type ColumnType = "text" | "integer";

/** Inferred: operators each column type allows; masked columns only allow null checks. */
export const OPERATORS_BY_TYPE: Record<ColumnType | "masked", readonly Operator[]> = {
  text: ["eq", "ne", "contains", "startsWith", "endsWith", "in", "notIn", "isNull", "isNotNull"],
  integer: ["eq", "ne", "gt", "gte", "lt", "lte", "between", "in", "notIn", "isNull", "isNotNull"],
  masked: ["isNull", "isNotNull"],
};

/** Inferred: entries an `in` / `notIn` list may carry. */
export const VALUE_LIST_MAX = 10_000;

/** Inferred: how deep a filter may nest; checked before any recursive work (proxy and sandbox). */
export const MAX_FILTER_DEPTH = 32;

/** The documented match levels. */
export const MATCH_LEVELS = ["exact", "same", "similar", "related", "broad"] as const;
export type MatchLevel = (typeof MATCH_LEVELS)[number];

/**
 * Inferred: cosine-distance ceiling of each level. `exact` is text equality (case-insensitive) with
 * the title, or with the company name, so it has no ceiling. A wider level never matches fewer rows.
 */
export const MATCH_LEVEL_MAX_DISTANCE: Record<Exclude<MatchLevel, "exact">, number> = {
  same: 0.1,
  similar: 0.25,
  related: 0.4,
  broad: 0.55,
};
export const DEFAULT_MATCH_LEVEL: MatchLevel = "similar";

/** Inferred: what each level means, in a line a marketer understands. */
export const MATCH_LEVEL_TEXT: Record<MatchLevel, string> = {
  exact: "Exactly this text (ignoring case)",
  same: "The same thing said differently (abbreviations, word order)",
  similar: "Close variants and specialisations",
  related: "Neighbouring roles or businesses",
  broad: "Anything in the same broad area",
};

/** Limits of sample-like operations: the documented for View, inferred for Preview and Lookalike. */
export const VIEW_LIMIT = { min: 1, max: 100, default: 100 } as const;
export const PREVIEW_LIMIT = { min: 1, max: 100, default: 25 } as const;
export const LOOKALIKE_LIMIT = { min: 1, max: 100, default: 25 } as const;

/** Inferred: most ids + emails one Enrich call takes. */
export const ENRICH_MAX_ENTRIES = 1000;

/** Inferred: insights sections and their sizes. */
export const INSIGHT_SECTIONS = ["summary", "breakdown", "fields"] as const;
export type InsightSection = (typeof INSIGHT_SECTIONS)[number];
export const INSIGHTS_BREAKDOWN_TOP = 20;
export const INSIGHTS_FIELDS_TOP = 10;
export const INSIGHTS_MAX_FIELDS = 10;

/** Inferred: count modes. */
export const COUNT_MODES = ["exact", "fast"] as const;

/** Inferred: what Preview, Enrich and Export may reveal. */
export const REVEALS = ["email", "mobile", "both", "none"] as const;
export type Reveal = (typeof REVEALS)[number];

/** Inferred: export job states. */
export const EXPORT_STATUSES = ["QUEUED", "PROCESSING", "COMPLETED", "ERROR", "CANCELLED"] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Inferred: most addresses in one verification batch. */
export const VERIFY_BATCH_MAX = 10_000;

/** Inferred: the sandbox's price table, in credits. */
export const PRICE = {
  /** PAYG, per delivered contact row (preview, enrich, export). */
  perRow: 1,
  /** PAYG, extra per row whose email is revealed and present. */
  perRevealedEmail: 1,
  /** PAYG, extra per row whose mobile is revealed and present. */
  perRevealedMobile: 3,
  /** Both plans, per definite verification answer (DELIVERABLE/UNDELIVERABLE, Valid/Invalid). */
  perDefiniteVerification: 1,
  /** Both plans, per organization resolve request (public docs: "1 credit per request"). */
  perResolve: 1,
  /** PAYG, per company a discover answers (at or above its similarity threshold). */
  perDiscoveredCompany: 1,
} as const;

/** Inferred: a discover's `result_count` when not given (public docs). */
export const DISCOVER_RESULT_COUNT_DEFAULT = 1000;

/** Inferred: the ordinary per-key rate limit (public docs give 60/min and 10,000/day). */
export const RATE_LIMIT_DEFAULTS = { perMinute: 60, perDay: 10_000 } as const;

/** The documented daily View budget per key. */
export const VIEW_BUDGET_DEFAULT = 100_000;

/** v1 retirement date (public docs), sent as `Sunset` on v1 answers. */
export const V1_SUNSET_DATE = "2026-07-07";

/** Inferred: the View's default column set. */
export const DEFAULT_VIEW_COLUMNS = [
  "RBID_PAO",
  "FULL_NAME_PER",
  "JOB_TITLE_PER",
  "JOB_LEVEL_PER",
  "COMPANY_NAME_ORG",
  "COUNTRY_NAME_PER",
  "EMAIL_ADDRESS_PER",
  "CELLPHONE_PER",
] as const;

/** Inferred: the default columns of full rows (preview, enrich, export) before reveal is applied. */
export const DEFAULT_FULL_ROW_COLUMNS = DEFAULT_VIEW_COLUMNS;

/** Inferred: error codes carried by 429 and 402 bodies. */
export const ERROR_CODES = {
  rateLimited: "RATE_LIMITED",
  freePreviewCap: "FREE_PREVIEW_CAP_REACHED",
  insufficientCredits: "INSUFFICIENT_CREDITS",
} as const;

/** Inferred: plans. */
export const PLANS = ["PAYG", "AYCE"] as const;
export type Plan = (typeof PLANS)[number];
