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

/** How far the proxy's clock is ahead of this browser's, from its answers' Date header. */
let serverClockAheadMs = 0;

export const api = ky.create({
  prefixUrl: "/api",
  headers: { "x-csrf": "1" },
  timeout: REQUEST_TIMEOUT_MS,
  retry: 0,
  credentials: "same-origin",
  hooks: {
    afterResponse: [
      (_request, _options, response) => {
        const date = Date.parse(response.headers.get("date") ?? "");
        // The header counts whole seconds: a smaller difference is its rounding, not a skew.
        if (Number.isFinite(date)) {
          const ahead = date - Date.now();
          serverClockAheadMs = Math.abs(ahead) > 2000 ? ahead : 0;
        }
      },
    ],
  },
});

/**
 * A fresh Idempotency-Key: a UUIDv7, whose first 48 bits are the time it was made (by the proxy's
 * clock), so that after a restore from a backup the proxy can tell a key made before it (which may
 * have been sent and lost with the restore) from a new one. The proxy accepts 8 to 128 letters,
 * digits, - or _.
 */
export function newIdempotencyKey(now: number = Date.now() + serverClockAheadMs): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let time = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
