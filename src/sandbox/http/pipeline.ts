import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { invalidJsonRecord, toValidationRecord, type ValidationRecord } from "../../contract/errors";
import { ERROR_CODES, V1_SUNSET_DATE } from "../../contract/inferred";
import { type Requests, requests } from "../../contract/operations";
import { OPERATIONS, type OperationId, type OperationOf, type OperationSpec } from "../../contract/routes";
import { type Account, hashKey, type KeyRecord, type StateStore } from "../state/store";
import type { RateLimiter } from "./rate-limit";

export interface Caller {
  keyHash: string;
  key: KeyRecord;
  account: Account;
}

type Parsed<Name> = Name extends keyof Requests ? z.output<Requests[Name]> : Record<string, never>;
type SchemaName<Id extends OperationId, Part extends string> =
  OperationOf<Id> extends Record<Part, infer N> ? N : undefined;

/** What a handler of one operation receives: its body, query and path parameters, parsed by its schemas. */
export interface OperationInput<Id extends OperationId> {
  c: Context;
  caller: Caller;
  body: SchemaName<Id, "body"> extends undefined ? unknown : Parsed<SchemaName<Id, "body">>;
  query: Parsed<SchemaName<Id, "query">>;
  params: Parsed<SchemaName<Id, "params">>;
  /** The uploaded `requested_file` of a multipart operation. */
  file?: File;
}

export type Handler<Id extends OperationId> = (input: OperationInput<Id>) => Promise<Response>;

/** One handler for every operation of the table: a missing one does not compile. */
export type Handlers = { [Id in OperationId]: Handler<Id> };
/** The handlers of some operations (each route file serves a few). */
export type SomeHandlers<Ids extends OperationId> = Pick<Handlers, Ids>;

/**
 * An answer other than 200, thrown from anywhere below a handler; the app's one error handler
 * (app.ts) answers it with the headers the request already gathered (rate limit, View budget).
 */
export class HttpError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly body: object,
  ) {
    super(status, { message: "detail" in body ? String((body as { detail: unknown }).detail) : "" });
  }
}

export const unprocessable = (record: ValidationRecord) => new HttpError(422, record);

const DETAIL = {
  unauthenticated: "Invalid or missing API key",
  forbidden: "Access denied for this resource",
  rateLimited: "Rate limit exceeded: too many requests for this API key. Wait for X-RateLimit-Reset.",
  retired: "API v1 was retired on 2026-07-07. Use the v2 endpoints.",
};

const SUNSET_HTTP_DATE = new Date(`${V1_SUNSET_DATE}T00:00:00Z`).toUTCString();

/**
 * Registers every operation of the contract's table with the same gate, in the order the contract
 * fixes: v1 retirement (410), key (401), permission (403), rate limit (429), validation (422), then
 * the handler's own business rules.
 */
export function registerOperations(
  app: Hono,
  deps: {
    store: StateStore;
    limiter: RateLimiter;
    v1Retired: boolean;
    log: (e: unknown) => void;
    /** Headers an operation carries on every authenticated answer, errors included. */
    headersFor?: (op: OperationSpec, caller: Caller) => Record<string, string>;
  },
  handlers: Handlers,
) {
  for (const op of OPERATIONS) {
    // Each operation's input is parsed by the schemas its table entry names, which is what types it.
    const handler = handlers[op.id] as Handler<OperationId>;
    if (!handler) throw new Error(`no sandbox handler for operation ${op.id}`);
    app.on(op.method, op.path, async (c) => {
      if (op.generation === "v1") {
        if (deps.v1Retired) return c.json({ detail: DETAIL.retired }, 410);
        c.header("Deprecation", "true");
        c.header("Sunset", SUNSET_HTTP_DATE);
      }
      const caller = authenticate(c, deps.store);
      if (!caller) return c.json({ detail: DETAIL.unauthenticated }, 401);
      for (const [name, value] of Object.entries(deps.headersFor?.(op, caller) ?? {})) c.header(name, value);
      if (op.access === "paid" && caller.key.access === "viewonly")
        return c.json({ detail: DETAIL.forbidden }, 403);

      const rate = deps.limiter.take(caller.keyHash);
      c.header("X-RateLimit-Limit", String(rate.limit));
      c.header("X-RateLimit-Remaining", String(rate.remaining));
      c.header("X-RateLimit-Reset", String(rate.reset));
      if (!rate.allowed) {
        c.header("Retry-After", String(rate.retryAfterSeconds));
        return c.json({ detail: DETAIL.rateLimited, code: ERROR_CODES.rateLimited }, 429);
      }

      const input = (await parseInput(c, op)) as Omit<OperationInput<OperationId>, "c" | "caller">;
      return handler({ c, caller, ...input });
    });
  }
  // Retired means every v1 path, not only the operations (the live service answers 410 for all).
  app.all("/v1/*", (c) =>
    deps.v1Retired ? c.json({ detail: DETAIL.retired }, 410) : c.json({ detail: "Not Found" }, 404),
  );
}

function authenticate(c: Context, store: StateStore): Caller | null {
  // Only x-key counts: x-api-key, Authorization and query parameters are not looked at.
  const key = c.req.header("x-key");
  if (!key) return null;
  const keyHash = hashKey(key);
  const record = store.state.keys[keyHash];
  if (!record || record.revoked) return null;
  const account = store.state.accounts[record.accountId];
  if (!account) return null;
  return { keyHash, key: record, account };
}

async function parseInput(c: Context, op: OperationSpec) {
  const params = op.params ? validate(op.params, c.req.param(), "path") : {};
  const query = op.query ? validate(op.query, c.req.query(), "query") : {};
  let body: unknown;
  let file: File | undefined;
  if (op.bodyKind === "json") {
    const text = await c.req.text();
    let raw: unknown;
    if (text.trim() !== "") {
      try {
        raw = JSON.parse(text);
      } catch (error) {
        throw unprocessable(invalidJsonRecord((error as Error).message));
      }
    }
    body = op.body ? validate(op.body, raw, "body") : raw;
  } else if (op.bodyKind === "multipart") {
    file = await readUpload(c);
  }
  return { params, query, body, file };
}

function validate(name: keyof typeof requests, value: unknown, where: "body" | "query" | "path") {
  const schema = requests[name] as z.ZodType;
  const result = schema.safeParse(value);
  if (!result.success) throw unprocessable(toValidationRecord(result.error.issues, where, value));
  return result.data;
}

async function readUpload(c: Context): Promise<File> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data"))
    throw unprocessable({
      detail: [{ loc: ["body", "requested_file"], msg: "Field required", type: "missing" }],
    });
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch {
    throw unprocessable({
      detail: [{ loc: ["body"], msg: "There was an error parsing the body", type: "value_error" }],
    });
  }
  const file = form.requested_file;
  if (!(file instanceof File))
    throw unprocessable({
      detail: [{ loc: ["body", "requested_file"], msg: "Field required", type: "missing" }],
    });
  return file;
}
