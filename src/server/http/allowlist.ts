import type { Handler, Hono } from "hono";
import { OPERATIONS, type OperationSpec } from "../../contract/routes";
import type { ProxyEnv } from "../context";

/**
 * What may pass the proxy, in each direction. Requests: exactly the operations of the contract's
 * table (method + path), under `/api`. Answers: a short list of upstream headers; everything else
 * the upstream says in headers stays behind.
 */
export const API_PREFIX = "/api";

export function registerOperations(
  app: Hono<ProxyEnv>,
  handlerFor: (op: OperationSpec) => Handler<ProxyEnv>,
) {
  for (const op of OPERATIONS) app.on(op.method, `${API_PREFIX}${op.path}`, handlerFor(op));
}

/** Headers passed back to the browser; files also keep what a download needs. */
const PASSED = [
  "x-freepreview-remaining",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
];
const PASSED_FOR_FILES = ["content-type", "content-disposition", "content-length"];
/** Types a download may claim; anything else (HTML above all) is served as opaque bytes. */
const FILE_TYPES = ["text/csv", "application/json", "text/plain", "application/octet-stream"];

export function passedHeaders(headers: Headers, kind: "json" | "file"): [string, string][] {
  const names = kind === "file" ? [...PASSED, ...PASSED_FOR_FILES] : PASSED;
  const out: [string, string][] = [];
  for (const name of names) {
    const value = headers.get(name);
    if (value === null || /[\r\n]/.test(value)) continue;
    if (name === "content-type" && !FILE_TYPES.includes(value.split(";")[0]!.trim().toLowerCase())) {
      out.push([name, "application/octet-stream"]);
      continue;
    }
    // A compressed answer is decoded on the way in: its length no longer describes the bytes we send.
    const encoded = (headers.get("content-encoding") ?? "identity").toLowerCase() !== "identity";
    if (name === "content-length" && (encoded || !/^\d+$/.test(value))) continue;
    out.push([name, value]);
  }
  if (kind === "file") {
    // A download is always a download, never a page rendered on our origin.
    const disposition = out.find(([n]) => n === "content-disposition");
    if (!disposition) out.push(["content-disposition", "attachment"]);
    else if (!/^attachment\b/i.test(disposition[1])) disposition[1] = "attachment";
    if (!out.some(([n]) => n === "content-type")) out.push(["content-type", "application/octet-stream"]);
  }
  return out;
}

/**
 * POSTs that only read (safe to send twice), besides GETs. View is not one: it spends the daily
 * View budget. Spending GETs (v1 key rotation) are excluded by `spends`.
 */
const READ_POSTS = new Set([
  "count",
  "insights",
  "companyCount",
  "lookalike",
  "estimate",
  "batchStatusV1Post",
  "batchDownloadV1",
]);

export function isRetryableRead(op: OperationSpec): boolean {
  return !op.spends && (op.method === "GET" || READ_POSTS.has(op.id));
}

/**
 * Refuses request targets that could mean one thing here and another upstream or on disk: encoded
 * slashes, backslashes and dots, dot segments, empty segments, NUL. Checked on the raw target, before
 * the URL parser normalises any of it away. Returns a reason, or null when the target is plain.
 */
export function unsafeTarget(rawTarget: string): string | null {
  if (!rawTarget.startsWith("/")) return "absolute-form or malformed request target";
  const q = rawTarget.indexOf("?");
  const pathPart = q === -1 ? rawTarget : rawTarget.slice(0, q);
  if (/%(2f|5c|2e|00)/i.test(pathPart)) return "encoded slash, backslash, dot or NUL in the path";
  if (pathPart.includes("\\")) return "backslash in the path";
  if (pathPart.includes("//")) return "empty path segment";
  if (/(^|\/)\.\.?(\/|$)/.test(pathPart)) return "dot segment in the path";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\x00-\x20\x7f]/.test(rawTarget)) return "control character in the target";
  return null;
}
