import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ValidationRecord } from "../../contract/errors";
/**
 * What the proxy sends back for a JSON operation, fully read: it can be cached, journaled for
 * idempotent replays and shared by single-flight waiters, then turned into a fresh Response each time.
 */
export interface BufferedAnswer {
  status: number;
  /** Only headers the proxy chose to pass on (see `allowlist.ts`), lower-case names. */
  headers: [string, string][];
  body: string;
}

const JSON_TYPE = "application/json; charset=utf-8";

export function toResponse(answer: BufferedAnswer, extra: Record<string, string> = {}): Response {
  const headers = new Headers(answer.headers);
  headers.set("content-type", JSON_TYPE);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(answer.status === 204 ? null : answer.body, { status: answer.status, headers });
}

/** The proxy's own error body: `{ detail }` in words a person understands, plus an optional code. */
export function problem(
  status: number,
  detail: string,
  options: { code?: string; headers?: [string, string][] } = {},
): BufferedAnswer {
  const body = options.code ? { detail, code: options.code } : { detail };
  return { status, headers: options.headers ?? [], body: JSON.stringify(body) };
}

/** Thrown anywhere in request handling; the app's one error handler answers it (getResponse). */
export class ProxyProblem extends HTTPException {
  constructor(readonly answer: BufferedAnswer) {
    super(answer.status as ContentfulStatusCode, { message: answer.body });
  }

  override getResponse(): Response {
    return toResponse(this.answer);
  }
}

export const fail = (status: number, detail: string, options?: Parameters<typeof problem>[2]) =>
  new ProxyProblem(problem(status, detail, options));

/** A 422 with the service's validation record (contract/errors.ts): the one way the proxy builds it. */
export const unprocessable = (record: ValidationRecord) =>
  new ProxyProblem({ status: 422, headers: [], body: JSON.stringify(record) });
