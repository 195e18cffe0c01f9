import { createHash } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import {
  invalidJsonRecord,
  toValidationRecord,
  type ValidationRecord,
  validationError,
} from "../../contract/errors";
import { MAX_FILTER_DEPTH } from "../../contract/inferred";
import { strictRequests } from "../../contract/operations";
import type { OperationSpec } from "../../contract/routes";
import type { ProxyEnv } from "../context";
import { fail, unprocessable } from "./answer";
import { jsonDepth, readLimited } from "./body";

/**
 * Reads an operation's input within limits and validates every part of it (path, query, body) with
 * the contract's strict schemas: unknown fields are a 422, and nothing is sent before this passes.
 */
export interface Input {
  params: Record<string, string>;
  /** The service's query, as sent on. */
  query: Record<string, string>;
  /** The proxy's own query parameters (the operation's `proxyQuery`), validated; never sent on. */
  proxyQuery?: Record<string, unknown>;
  /** The body as sent (validated), re-serialised for the upstream. */
  json?: unknown;
  /** The body as the contract reads it (defaults applied), for cache keys. */
  parsedBody?: Record<string, unknown>;
  file?: File;
  fileHash?: string;
}

/** Any JSON nesting beyond this is refused before anything recursive looks at it (a filter level is 2). */
export const MAX_JSON_DEPTH = 4 * MAX_FILTER_DEPTH + 16;

/**
 * A JSON body read within the limit (undefined when empty): 415 for another content type, 422 for
 * JSON that is not, or nests beyond MAX_JSON_DEPTH (nothing recursive sees a hostile depth). The
 * service's operations and the proxy's own team routes read bodies with it alike.
 */
export async function readJsonBody(c: Context<ProxyEnv>, maxBytes: number): Promise<unknown> {
  const bytes = await readLimited(c.req.raw, maxBytes, c.env?.incoming);
  return jsonOf(bytes, (c.req.header("content-type") ?? "").toLowerCase());
}

function jsonOf(bytes: Uint8Array, type: string): unknown {
  const text = jsonText(bytes, type);
  return text === undefined ? undefined : parseJson(text);
}

/** The body's text, when it is JSON by its type (undefined when empty). */
function jsonText(bytes: Uint8Array, type: string): string | undefined {
  if (bytes.byteLength === 0) return undefined;
  if (type && !/^application\/([\w.+-]+\+)?json\b/.test(type))
    throw fail(415, "Send the request body as JSON (Content-Type: application/json).");
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw unprocessable(invalidJsonRecord((error as Error).message));
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(text: string): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw unprocessable(invalidJsonRecord((error as Error).message));
  }
  if (jsonDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw unprocessable(validationError(["body"], `the body nests more than ${MAX_JSON_DEPTH} levels deep`));
  return raw;
}

function validate(name: keyof typeof strictRequests, value: unknown, where: "body" | "query" | "path") {
  const schema = strictRequests[name] as z.ZodType;
  const result = schema.safeParse(value);
  if (!result.success) throw unprocessable(toValidationRecord(result.error.issues, where, value));
  return result.data;
}

/** The field names of an object schema (a `proxyQuery`'s parameters). */
function fieldsOf(name: keyof typeof strictRequests): string[] {
  const schema = strictRequests[name] as z.ZodType;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

export async function readInput(c: Context<ProxyEnv>, op: OperationSpec, maxBytes: number): Promise<Input> {
  const params = c.req.param() as Record<string, string>;
  if (op.params) validate(op.params, params, "path");

  // No prototype: `__proto__` or `constructor` in a query are plain (unknown) names, not "given twice".
  const query: Record<string, string> = Object.create(null);
  const extra: ValidationRecord["detail"] = [];
  for (const [name, value] of new URL(c.req.url).searchParams) {
    if (Object.hasOwn(query, name))
      throw unprocessable(validationError(["query", name], "give this parameter once", value));
    query[name] = value;
  }
  // The proxy's own parameters are taken out first: what is left is the service's, or refused.
  const own: Record<string, string> = Object.create(null);
  for (const name of op.proxyQuery ? fieldsOf(op.proxyQuery) : [])
    if (Object.hasOwn(query, name)) {
      own[name] = query[name]!;
      delete query[name];
    }
  if (op.query) validate(op.query, query, "query");
  else
    for (const [name, value] of Object.entries(query))
      extra.push({
        loc: ["query", name],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden",
        input: value,
      });
  let proxyQuery: Record<string, unknown> | undefined;
  if (op.proxyQuery) {
    const result = (strictRequests[op.proxyQuery] as z.ZodType).safeParse({ ...own });
    if (result.success) proxyQuery = result.data as Record<string, unknown>;
    else extra.push(...toValidationRecord(result.error.issues, "query", own).detail);
  }
  if (extra.length > 0) throw unprocessable({ detail: extra });

  const input: Input = { params, query, ...(proxyQuery ? { proxyQuery } : {}) };
  if (op.method === "GET") return input;
  const bytes = await readLimited(c.req.raw, maxBytes, c.env?.incoming);
  const rawType = c.req.header("content-type") ?? "";
  const type = rawType.toLowerCase(); // for comparisons only: a multipart boundary is case-sensitive

  if (op.bodyKind === "json") {
    const text = jsonText(bytes, type);
    if (!op.body) {
      if (text !== undefined) {
        parseJson(text); // JSON that is not is said as such first
        throw unprocessable(validationError(["body"], "this operation takes no body"));
      }
      return input;
    }
    const known = op.cacheable && text !== undefined ? validated.get(op.body, text) : undefined;
    if (known) return { ...input, json: known.raw, parsedBody: known.parsed };
    const raw = text === undefined ? undefined : parseJson(text);
    const parsed = validate(op.body, raw, "body") as Record<string, unknown>;
    if (op.cacheable && text !== undefined) validated.set(op.body, text, raw, parsed);
    return { ...input, json: raw, parsedBody: parsed };
  }

  if (op.bodyKind === "multipart") {
    const missing = () =>
      unprocessable({
        detail: [{ loc: ["body", "requested_file"], msg: "Field required", type: "missing" }],
      });
    if (!type.startsWith("multipart/form-data")) throw missing();
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { "content-type": rawType } }).formData();
    } catch {
      throw unprocessable({
        detail: [{ loc: ["body"], msg: "There was an error parsing the body", type: "value_error" }],
      });
    }
    const record: ValidationRecord["detail"] = [];
    for (const name of new Set(form.keys()))
      if (name !== "requested_file")
        record.push({ loc: ["body", name], msg: "Extra inputs are not permitted", type: "extra_forbidden" });
    const files = form.getAll("requested_file");
    if (files.length > 1)
      record.push({ loc: ["body", "requested_file"], msg: "give one file", type: "value_error" });
    if (record.length > 0) throw unprocessable({ detail: record });
    const file = files[0];
    if (!(file instanceof File)) throw missing();
    const content = new Uint8Array(await file.arrayBuffer());
    const fileHash = createHash("sha256").update(file.name).update("\n").update(content).digest("hex");
    return { ...input, file, fileHash };
  }
  return input; // a body on a body-less operation is read (within the limit) and dropped
}

/**
 * The free reads' bodies already validated, by their exact text: the same count asked again (the
 * Builder asks it on every edit, and again when an edit is undone) skips JSON.parse and the strict
 * schema. Validation is a pure function of the text, so the answer is the same; the objects are
 * frozen, since every request with that text shares them. Small bodies only, at most MAX entries.
 */
const VALIDATED_MAX = 500;
const VALIDATED_MAX_TEXT = 16_384;
const validatedBodies = new Map<string, { raw: unknown; parsed: Record<string, unknown> }>();
const validated = {
  get(schema: string, text: string) {
    return text.length > VALIDATED_MAX_TEXT ? undefined : validatedBodies.get(`${schema}\n${text}`);
  },
  set(schema: string, text: string, raw: unknown, parsed: Record<string, unknown>) {
    if (text.length > VALIDATED_MAX_TEXT) return;
    const oldest = validatedBodies.keys().next();
    if (validatedBodies.size >= VALIDATED_MAX && !oldest.done) validatedBodies.delete(oldest.value);
    validatedBodies.set(`${schema}\n${text}`, { raw: deepFreeze(raw), parsed: deepFreeze(parsed) });
  },
};

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
