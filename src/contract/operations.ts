import { z } from "zod";
import {
  COMPANY_COLUMNS,
  CSV_HEADER_STYLES,
  ENUMERABLE_COMPANY_COLUMNS,
  getColumn,
  MASK_FLAGS,
} from "./columns";
import { detailErrorSchema, INT_MESSAGE } from "./errors";
import { makeFilterSchemas } from "./filter";
import {
  COUNT_MODES,
  DISCOVER_RESULT_COUNT_DEFAULT,
  ENRICH_MAX_ENTRIES,
  EXPORT_STATUSES,
  INSIGHT_SECTIONS,
  INSIGHTS_MAX_FIELDS,
  PLANS,
  REVEALS,
  VERIFY_BATCH_MAX,
} from "./inferred";
import type { OperationId } from "./routes";

/**
 * Request and response schemas of every operation the service documents or we infer. Shapes the documentation
 * leaves "not shown" follow src/sandbox/README.md (their constants are in ./inferred).
 */

/** A clamped integer: any integer is accepted and brought into [min, max]; null/absent is the default. */
function clampedInt(min: number, max: number, fallback: number) {
  return integer({ unbounded: true })
    .nullable()
    .optional()
    .transform((n) => (n === null || n === undefined ? fallback : Math.min(max, Math.max(min, n))));
}

/**
 * An integer field. `unbounded` accepts integers beyond 2^53 (they are clamped by the caller), so
 * that a huge limit is brought into range rather than refused.
 */
export function integer(options: { unbounded?: boolean } = {}) {
  const base = z.number({ error: INT_MESSAGE });
  return options.unbounded
    ? base.refine(Number.isInteger, { message: INT_MESSAGE, params: { type: "int_type" } })
    : base.int({ error: INT_MESSAGE });
}

/** Column lists: every entry must be a known column (or a mask flag where `flags` allows). */
function columnList(options: { flags?: boolean; companyOnly?: boolean; star?: boolean } = {}) {
  return z
    .array(z.string())
    .nullable()
    .optional()
    .superRefine((columns, ctx) => {
      columns?.forEach((name, i) => {
        if (options.star && name === "*") return;
        if (options.flags && Object.hasOwn(MASK_FLAGS, name)) return;
        const column = getColumn(name);
        if (!column || (options.companyOnly && !COMPANY_COLUMNS.includes(name)))
          ctx.addIssue({
            code: "custom",
            path: [i],
            message: `unknown ${options.companyOnly ? "company " : ""}column '${name}'`,
          });
      });
    });
}

/** A column insights may group or list by: any but a masked one. */
function unmaskedColumn(name: string): string | null {
  const column = getColumn(name);
  if (!column) return `unknown column '${name}'`;
  if (column.maskedAs) return `${name} is masked and cannot be grouped`;
  return null;
}

const reveal = z.enum(REVEALS);
const isoDate = z.string();

export function makeRequestSchemas(strict: boolean) {
  const obj = (strict ? z.strictObject : z.object) as typeof z.object;
  const { root: filter } = makeFilterSchemas(strict);
  const processIdV1 = z.string();

  return {
    count: obj({ filter, mode: z.enum(COUNT_MODES).optional() }),
    view: obj({
      filter,
      columns: columnList({ flags: true }),
      limit: clampedInt(1, 100, 100),
      includeScores: z.boolean().default(false),
    }),
    preview: obj({
      filter,
      columns: columnList(),
      limit: clampedInt(1, 100, 25),
      reveal,
    }),
    estimate: obj({ filter, maxRows: integer().min(1), reveal, columns: columnList() }),
    exportStart: obj({
      filter,
      maxRows: integer().min(1),
      reveal,
      columns: columnList(),
      name: z.string().max(200).nullable().optional(),
    }),
    enrich: obj({
      personIds: z.array(z.string()).nullable().optional(),
      emails: z.array(z.string()).nullable().optional(),
      reveal,
      columns: columnList(),
    }).superRefine((body, ctx) => {
      // Duplicates count once (src/sandbox/README.md); emails match case-insensitively.
      const total =
        new Set(body.personIds ?? []).size +
        new Set((body.emails ?? []).map((e) => e.trim().toLowerCase())).size;
      if (total === 0)
        ctx.addIssue({ code: "custom", path: [], message: "give at least one of personIds or emails" });
      if (total > ENRICH_MAX_ENTRIES)
        ctx.addIssue({
          code: "custom",
          path: [],
          message: `at most ${ENRICH_MAX_ENTRIES} personIds and emails in all per call (got ${total})`,
        });
    }),
    insights: obj({
      section: z.enum(INSIGHT_SECTIONS),
      filter,
      fields: z.array(z.string()).max(INSIGHTS_MAX_FIELDS).nullable().optional(),
      groupField: z.string().nullable().optional(),
    }).superRefine((body, ctx) => {
      if (body.section === "breakdown") {
        if (!body.groupField)
          ctx.addIssue({
            code: "custom",
            path: ["groupField"],
            message: "Field required",
            params: { type: "missing" },
          });
        else {
          const problem = unmaskedColumn(body.groupField);
          if (problem) ctx.addIssue({ code: "custom", path: ["groupField"], message: problem });
        }
      }
      if (body.section === "fields") {
        if (!body.fields || body.fields.length === 0)
          ctx.addIssue({
            code: "custom",
            path: ["fields"],
            message: "Field required",
            params: { type: "missing" },
          });
        body.fields?.forEach((name, i) => {
          const problem = unmaskedColumn(name);
          if (problem) ctx.addIssue({ code: "custom", path: ["fields", i], message: problem });
        });
      }
    }),
    companyCount: obj({ filter, mode: z.string().nullable().optional() }),
    lookalike: obj({
      domain: z.string().nullable().optional(),
      rbidOrg: z.string().nullable().optional(),
      limit: clampedInt(1, 100, 25),
      columns: columnList({ companyOnly: true, star: true }),
    }).superRefine((body, ctx) => {
      const given = [body.domain, body.rbidOrg].filter(
        (v) => v !== null && v !== undefined && v.trim() !== "",
      );
      if (given.length !== 1)
        ctx.addIssue({ code: "custom", path: [], message: "give exactly one of domain or rbidOrg" });
    }),
    columnValuesParams: obj({
      column: z.string().refine((c) => ENUMERABLE_COMPANY_COLUMNS.includes(c), {
        message: `not an enumerable company column; use one of ${ENUMERABLE_COMPANY_COLUMNS.join(", ")}`,
      }),
    }),
    exportIdParams: obj({ exportId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "not an export id") }),
    // The proxy's own, never sent to the service: the file's header row in labels or as it comes.
    csvHeadersQuery: obj({ headers: z.enum(CSV_HEADER_STYLES).optional() }),

    // Email verification, v1 (documented + inferred) and v2 (public OpenAPI).
    verifyV1: obj({ email: z.string().min(1).max(320) }),
    verifyV2: obj({
      email: z
        .string()
        .max(320)
        .refine((e) => /^[^@\s]+@[^@\s]+$/.test(e.trim()), { message: "value is not a valid email address" }),
    }),
    verifyV2Query: obj({ metadata: z.enum(["true", "false"]).optional() }),
    batchV1: obj({ emails: z.array(z.string()).min(1).max(VERIFY_BATCH_MAX) }),
    processIdV1Body: obj({ process_id: processIdV1 }),
    processIdV1Query: obj({ process_id: processIdV1 }),
    processIdV2Params: obj({ process_id: z.string().regex(/^\d{1,15}$/, "Input should be a valid integer") }),

    // Organizations (v2, public docs).
    organizationResolve: obj({
      company_name: z.string().min(1),
      result_count: integer().min(1).max(10).default(3),
      headquarters_state: z.string().nullable().optional(),
      headquarters_country: z.string().nullable().optional(),
      headquarters_city: z.string().nullable().optional(),
      headquarters_street: z.string().nullable().optional(),
      headquarters_zip: z.string().nullable().optional(),
    }),
    organizationDiscover: obj({
      keyword: z.string().min(1),
      result_count: integer()
        .min(1)
        .max(DISCOVER_RESULT_COUNT_DEFAULT)
        .default(DISCOVER_RESULT_COUNT_DEFAULT),
      min_similarity_score: z.number().min(0).max(0.95).default(0),
      headquarters_state: z.string().nullable().optional(),
      headquarters_country: z.string().nullable().optional(),
      headquarters_city: z.string().nullable().optional(),
      headquarters_street: z.string().nullable().optional(),
    }),
  };
}

export const requests = makeRequestSchemas(false);
export const strictRequests = makeRequestSchemas(true);
export type Requests = typeof requests;

// ---- Responses (lenient: they describe what comes back, for tests and the app) ----

const row = z.record(z.string(), z.unknown());
const sampleShape = {
  rows: z.array(row),
  columns: z.array(z.string()),
  columnLabels: z.record(z.string(), z.string()),
  rowCount: z.number().int(),
  limit: z.number().int(),
};
const exportStatus = z.object({
  exportId: z.string(),
  name: z.string().nullable(),
  status: z.enum(EXPORT_STATUSES),
  rows: z.number().int(),
  rowsWritten: z.number().int(),
  credits: z.number(),
  createdAt: isoDate,
  completedAt: isoDate.nullable().optional(),
  error: z.string().nullable().optional(),
  reveal: z.enum(REVEALS).optional(),
  columns: z.array(z.string()).optional(),
});
const valueCount = z.object({ value: z.union([z.string(), z.number(), z.null()]), count: z.number().int() });
const v1Result = z.object({
  email: z.string(),
  deliverability: z.enum(["DELIVERABLE", "UNDELIVERABLE", "UNKNOWN"]),
  role: z.boolean(),
  risk: z.enum(["LOW", "MEDIUM", "HIGH"]),
});
const jobStatus = z.enum(["QUEUED", "PROCESSING", "COMPLETED", "ERROR", "CANCELLING", "CANCELLED"]);
const processV2 = z.object({
  process_id: z.number().int(),
  filename: z.string(),
  status: jobStatus,
  message: z.string(),
  last_updated: isoDate,
});
const company = z.record(z.string(), z.unknown());

export const responses = {
  count: z.object({ count: z.number().int(), mode: z.enum(COUNT_MODES) }),
  view: z.object(sampleShape),
  preview: z.object({ ...sampleShape, creditsCharged: z.number(), creditsRemaining: z.number() }),
  estimate: z.object({
    audienceCount: z.number().int(),
    rows: z.number().int(),
    withEmail: z.number().int(),
    withMobile: z.number().int(),
    credits: z.number(),
    plan: z.enum(PLANS),
    balance: z.number(),
    sufficient: z.boolean(),
  }),
  exportStarted: z.object({
    exportId: z.string(),
    status: z.literal("QUEUED"),
    rows: z.number().int(),
    credits: z.number(),
  }),
  exportStatus,
  exports: z.object({ exports: z.array(exportStatus) }),
  enrich: z.object({
    rows: z.array(row),
    matched: z.number().int(),
    notFound: z.array(z.string()),
    creditsCharged: z.number(),
    creditsRemaining: z.number(),
  }),
  insightsSummary: z.object({
    section: z.literal("summary"),
    total: z.number().int(),
    withEmail: z.number().int(),
    withMobile: z.number().int(),
    companies: z.number().int(),
  }),
  insightsBreakdown: z.object({
    section: z.literal("breakdown"),
    groupField: z.string(),
    total: z.number().int(),
    buckets: z.array(valueCount),
    otherCount: z.number().int(),
  }),
  insightsFields: z.object({
    section: z.literal("fields"),
    fields: z.record(z.string(), z.array(valueCount)),
  }),
  companyCount: z.object({ count: z.number().int() }),
  lookalike: z.object({ source: company, companies: z.array(company), limit: z.number().int() }),
  columnValues: z.object({ column: z.string(), values: z.array(z.string()), count: z.number().int() }),
  credits: z.object({ credits: z.number(), plan: z.enum(PLANS) }),
  newKey: z.object({ api_key: z.string() }),
  verifyV1: v1Result,
  verifyV1Batch: z.array(v1Result),
  verifyV2: z.object({ email: z.string(), status: z.enum(["Valid", "Invalid", "Unknown"]) }).passthrough(),
  batchStartedV1: z.object({ process_id: z.string(), status: jobStatus }).passthrough(),
  batchUploadedV1: z.object({ process_id: z.string(), filename: z.string(), status: jobStatus }),
  batchUploadedV2: z.object({ process_id: z.number().int(), filename: z.string(), status: jobStatus }),
  jobStatusV1: z.object({
    process_id: z.string(),
    filename: z.string(),
    status: jobStatus,
    current_status: jobStatus,
    message: z.string(),
  }),
  jobStatusV2: z.object({
    process_id: z.number().int(),
    filename: z.string(),
    current_status: jobStatus,
    message: z.string(),
  }),
  processesV2: z.object({ processes: z.array(processV2) }),
  processesV1: z.object({ processes: z.array(processV2.extend({ process_id: z.string() })) }),
  organizations: z.object({
    companies: z.array(
      z.object({
        rbid: z.string(),
        company_name: z.string(),
        similar_score: z.number(),
        about_us: z.string().nullable().optional(),
        headquarters_city: z.string().nullable().optional(),
        headquarters_country: z.string().nullable().optional(),
      }),
    ),
  }),
  detail: detailErrorSchema,
  /** A balance, lenient on `plan`: the published v2 balance answers `{ credits }` only. */
  balance: z.object({ credits: z.number(), plan: z.enum(PLANS).nullish() }),
  /** The proxy's answer to a rotation: the new key itself never leaves the server. */
  rotated: z.object({ rotated: z.literal(true), last4: z.string().max(4) }),
};

/**
 * What each operation answers through the proxy, by operation id: the schema the app's client reads
 * the answer with. Operations that answer a file (downloads) have none.
 */
export const ANSWERS = {
  count: responses.count,
  view: responses.view,
  preview: responses.preview,
  estimate: responses.estimate,
  exportStart: responses.exportStarted,
  exportStatus: responses.exportStatus,
  exportCancel: responses.exportStatus,
  exports: responses.exports,
  enrich: responses.enrich,
  insights: z.discriminatedUnion("section", [
    responses.insightsSummary,
    responses.insightsBreakdown,
    responses.insightsFields,
  ]),
  companyCount: responses.companyCount,
  lookalike: responses.lookalike,
  columnValues: responses.columnValues,
  creditsV1: responses.balance,
  creditsV2: responses.balance,
  balanceV2: responses.balance,
  rotateV1: responses.rotated,
  rotateV2: responses.rotated,
  verifyV1: responses.verifyV1,
  batchV1: responses.batchStartedV1,
  batchStatusV1Get: responses.jobStatusV1,
  batchStatusV1Post: responses.jobStatusV1,
  batchDownloadV1: responses.verifyV1Batch,
  batchUploadV1: responses.batchUploadedV1,
  queuedV1: responses.processesV1,
  cancelV1: responses.jobStatusV1,
  verifyV2: responses.verifyV2,
  batchV2: responses.batchUploadedV2,
  jobsV2: responses.processesV2,
  jobStatusV2: responses.jobStatusV2,
  jobCancelV2: responses.jobStatusV2,
  organizationResolve: responses.organizations,
  organizationDiscover: responses.organizations,
} as const satisfies Partial<Record<OperationId, z.ZodType>>;

/** What an operation answers (unknown for one that answers a file). */
export type OperationAnswer<Id extends OperationId> = Id extends keyof typeof ANSWERS
  ? z.output<(typeof ANSWERS)[Id]>
  : unknown;

export type CountResponse = z.infer<typeof responses.count>;
export type ViewResponse = z.infer<typeof responses.view>;
export type ExportStatusRecord = z.infer<typeof responses.exportStatus>;
