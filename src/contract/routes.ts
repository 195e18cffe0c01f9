import type { z } from "zod";
import type { Requests } from "./operations";

/**
 * Every operation of the service, once: the proxy's allowlist and the sandbox's router both read
 * this table, so the two cannot drift apart.
 */
export interface OperationSpec {
  id: string;
  method: "GET" | "POST";
  /** Hono-style path with `:params`. */
  path: string;
  body?: keyof Requests;
  query?: keyof Requests;
  params?: keyof Requests;
  /** Query parameters the proxy reads itself and never sends on (the service does not know them). */
  proxyQuery?: keyof Requests;
  /** Multipart uploads carry a file in `requested_file` (public docs). */
  bodyKind: "json" | "multipart" | "none";
  /** What a successful answer carries. */
  answer: "json" | "file";
  /** Spends credits (or rotates the key): the proxy requires an Idempotency-Key. */
  spends: boolean;
  /** `paid` operations answer 403 to a view-only key (inferred). */
  access: "open" | "paid";
  /** Pure reads of the dataset that the proxy may cache by canonical filter. */
  cacheable: boolean;
  /** Shaper priority: what a person waits on goes first. */
  priority: "interactive" | "background";
  generation: "v1" | "v2";
}

type OperationInput = Pick<OperationSpec, "id" | "method" | "path"> &
  Partial<Omit<OperationSpec, "id" | "method" | "path">>;

/** An operation with its defaults; `const` keeps its id and schema names as literal types. */
function op<const S extends OperationInput>(spec: S): Omit<OperationSpec, keyof S> & S {
  return {
    bodyKind: spec.method === "POST" ? "json" : "none",
    answer: "json",
    spends: false,
    access: "open",
    cacheable: false,
    priority: "interactive",
    generation: spec.path.startsWith("/v1/") ? "v1" : "v2",
    ...spec,
  };
}

export const OPERATIONS = [
  // Contacts (v2).
  op({ id: "count", method: "POST", path: "/v2/contact/count", body: "count", cacheable: true }),
  op({ id: "view", method: "POST", path: "/v2/contact/view", body: "view" }),
  op({
    id: "preview",
    method: "POST",
    path: "/v2/contact/preview",
    body: "preview",
    access: "paid",
    spends: true,
  }),
  op({
    id: "estimate",
    method: "POST",
    path: "/v2/contact/export/estimate",
    body: "estimate",
    access: "paid",
  }),
  op({
    id: "exportStart",
    method: "POST",
    path: "/v2/contact/export",
    body: "exportStart",
    access: "paid",
    spends: true,
  }),
  op({
    id: "exportStatus",
    method: "GET",
    path: "/v2/contact/export/:exportId",
    params: "exportIdParams",
    access: "paid",
  }),
  op({
    id: "exportCancel",
    method: "POST",
    path: "/v2/contact/export/:exportId/cancel",
    params: "exportIdParams",
    bodyKind: "none",
    access: "paid",
  }),
  op({
    id: "exportDownload",
    method: "GET",
    path: "/v2/contact/export/:exportId/download",
    params: "exportIdParams",
    proxyQuery: "csvHeadersQuery",
    access: "paid",
    answer: "file",
  }),
  op({ id: "exports", method: "GET", path: "/v2/contact/exports", access: "paid" }),
  op({
    id: "enrich",
    method: "POST",
    path: "/v2/contact/enrich",
    body: "enrich",
    access: "paid",
    spends: true,
  }),
  op({
    id: "insights",
    method: "POST",
    path: "/v2/contact/insights",
    body: "insights",
    cacheable: true,
    priority: "background",
  }),
  op({
    id: "companyCount",
    method: "POST",
    path: "/v2/contact/company/count",
    body: "companyCount",
    cacheable: true,
  }),
  op({ id: "lookalike", method: "POST", path: "/v2/contact/company/lookalike", body: "lookalike" }),
  op({
    id: "columnValues",
    method: "GET",
    path: "/v2/contact/company/columns/:column/values",
    params: "columnValuesParams",
    cacheable: true,
    priority: "background",
  }),

  // Account.
  op({ id: "creditsV1", method: "GET", path: "/v1/credits" }),
  op({ id: "creditsV2", method: "GET", path: "/v2/credits" }),
  op({ id: "balanceV2", method: "GET", path: "/v2/account/balance" }),
  op({ id: "rotateV1", method: "GET", path: "/v1/new-api-key", access: "paid", spends: true }),
  op({
    id: "rotateV2",
    method: "POST",
    path: "/v2/account/api-keys/rotate",
    bodyKind: "none",
    access: "paid",
    spends: true,
  }),

  // Email verification, v1 (documented).
  op({
    id: "verifyV1",
    method: "POST",
    path: "/v1/process-email",
    body: "verifyV1",
    access: "paid",
    spends: true,
  }),
  op({
    id: "batchV1",
    method: "POST",
    path: "/v1/batch-process-email",
    body: "batchV1",
    access: "paid",
    spends: true,
  }),
  op({
    id: "batchStatusV1Get",
    method: "GET",
    path: "/v1/batch-process-email-status",
    query: "processIdV1Query",
    access: "paid",
    priority: "background",
  }),
  op({
    id: "batchStatusV1Post",
    method: "POST",
    path: "/v1/batch-process-email-status",
    body: "processIdV1Body",
    access: "paid",
    priority: "background",
  }),
  op({
    id: "batchDownloadV1",
    method: "POST",
    path: "/v1/batch-download",
    body: "processIdV1Body",
    access: "paid",
  }),
  op({
    id: "batchUploadV1",
    method: "POST",
    path: "/v1/batch-upload",
    bodyKind: "multipart",
    access: "paid",
    spends: true,
  }),
  op({ id: "queuedV1", method: "GET", path: "/v1/queued-process", access: "paid", priority: "background" }),
  op({ id: "cancelV1", method: "POST", path: "/v1/cancel-process", body: "processIdV1Body", access: "paid" }),

  // Email verification, v2 (public docs).
  op({
    id: "verifyV2",
    method: "POST",
    path: "/v2/email/verify",
    body: "verifyV2",
    query: "verifyV2Query",
    access: "paid",
    spends: true,
  }),
  op({
    id: "batchV2",
    method: "POST",
    path: "/v2/email/verify/batch",
    query: "verifyV2Query",
    bodyKind: "multipart",
    access: "paid",
    spends: true,
  }),
  op({ id: "jobsV2", method: "GET", path: "/v2/jobs", access: "paid", priority: "background" }),
  op({
    id: "jobStatusV2",
    method: "GET",
    path: "/v2/jobs/:process_id",
    params: "processIdV2Params",
    access: "paid",
    priority: "background",
  }),
  op({
    id: "jobCancelV2",
    method: "POST",
    path: "/v2/jobs/:process_id/cancel",
    params: "processIdV2Params",
    bodyKind: "none",
    access: "paid",
  }),
  op({
    id: "jobDownloadV2",
    method: "GET",
    path: "/v2/jobs/:process_id/download",
    params: "processIdV2Params",
    access: "paid",
    answer: "file",
  }),

  // Organizations (v2, public docs; beyond the interface document).
  op({
    id: "organizationResolve",
    method: "POST",
    path: "/v2/organization/resolve",
    body: "organizationResolve",
    access: "paid",
    spends: true,
  }),
  op({
    id: "organizationDiscover",
    method: "POST",
    path: "/v2/organization/discover",
    body: "organizationDiscover",
    access: "paid",
    spends: true,
  }),
] as const satisfies readonly OperationSpec[];

/** Every operation's id, as a union of literals: a misspelt id does not compile. */
export type OperationId = (typeof OPERATIONS)[number]["id"];
/** The table's entry of one operation, with its own literal types. */
export type OperationOf<Id extends OperationId> = Extract<(typeof OPERATIONS)[number], { id: Id }>;

type InputOf<Name> = Name extends keyof Requests ? z.input<Requests[Name]> : undefined;
/** What an operation takes in its JSON body, its path parameters and its query (undefined: nothing). */
export type OperationBody<Id extends OperationId> = InputOf<
  OperationOf<Id> extends { body: infer B } ? B : undefined
>;
export type OperationParams<Id extends OperationId> = InputOf<
  OperationOf<Id> extends { params: infer P } ? P : undefined
>;
export type OperationQuery<Id extends OperationId> = InputOf<
  OperationOf<Id> extends { query: infer Q } ? Q : undefined
>;
export type OperationProxyQuery<Id extends OperationId> = InputOf<
  OperationOf<Id> extends { proxyQuery: infer Q } ? Q : undefined
>;

const byId = new Map<string, OperationSpec>(OPERATIONS.map((o) => [o.id, o]));

export function operationById(id: OperationId): OperationSpec {
  const found = byId.get(id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
}

/** For ids that come from outside (configuration, a table keyed by string): undefined when unknown. */
export function findOperation(id: string): OperationSpec | undefined {
  return byId.get(id);
}
