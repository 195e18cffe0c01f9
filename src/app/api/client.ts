import ky, { type Options } from "ky";
import type { z } from "zod";
import { ApiError, isAbortError, toApiError } from "./api-error";

/**
 * The app's one HTTP client: same origin, under `/api`, with the `x-csrf: 1` header the proxy
 * requires of every browser call. ky never retries: React Query is the single retry layer, and it
 * retries only reads (queries), never a mutation (see query-client.ts). Two retry layers would
 * multiply each other, and a POST that spends must never be sent twice without its key.
 */
export const REQUEST_TIMEOUT_MS = 15_000;

export const api = ky.create({
  prefixUrl: "/api",
  headers: { "x-csrf": "1" },
  timeout: REQUEST_TIMEOUT_MS,
  retry: 0,
  credentials: "same-origin",
});

/** A fresh Idempotency-Key (the proxy accepts 8 to 128 letters, digits, - or _; a UUID fits). */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/**
 * Options for a call that spends credits: it carries an Idempotency-Key, so that sending it again
 * (a retry after a timeout, a double click) is answered once. Checkout passes a key it persisted;
 * otherwise a fresh one is made.
 */
export function spendOptions(idempotencyKey: string = newIdempotencyKey(), options: Options = {}): Options {
  const headers = new Headers(options.headers as HeadersInit | undefined);
  headers.set("Idempotency-Key", idempotencyKey);
  return { ...options, headers };
}

/**
 * Sends one request and reads its JSON answer with a contract schema. Every failure comes out as
 * an ApiError, except a cancellation, which stays the AbortError React Query expects.
 */
export async function requestJson<S extends z.ZodType>(
  schema: S,
  send: () => Promise<Response>,
): Promise<z.output<S>> {
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw await toApiError(error);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw new ApiError({
      kind: "other",
      status: response.status,
      message: "The server sent an answer the app could not read. Try again in a moment.",
      requestId: response.headers.get("x-request-id"),
    });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new ApiError({
      kind: "other",
      status: response.status,
      body,
      message: "The server's answer did not have the expected shape. Try again; if it persists, report it.",
      requestId: response.headers.get("x-request-id"),
    });
  return parsed.data;
}

/** GET `/api/<path>` read with `schema`. */
export function getJson<S extends z.ZodType>(path: string, schema: S, options: Options = {}) {
  return requestJson(schema, () => api.get(path, options));
}

/** POST to the proxy's own `/auth/<path>` (sign-in, sign-out): same client, outside `/api`. */
export function postAuth<S extends z.ZodType>(path: string, body: unknown, schema: S) {
  return requestJson(schema, () =>
    api.post(`auth/${path}`, { prefixUrl: "/", ...(body === undefined ? {} : { json: body }) }),
  );
}
