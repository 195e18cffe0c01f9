import { ERROR_CODES } from "../contract/inferred";
import { passedHeaders } from "./allowlist";
import { type BufferedAnswer, problem } from "./answer";

/**
 * What can come back from one upstream exchange, and how each becomes an answer a person can
 * read. Nothing of the upstream's internals (bodies of 5xx, stack traces, its address, the key)
 * ever reaches the browser.
 */
export type Outcome =
  | { kind: "answer"; status: number; headers: Headers; text: string }
  | { kind: "stream"; status: number; headers: Headers; body: ReadableStream<Uint8Array> | null }
  | { kind: "timeout" }
  | { kind: "network" }
  | { kind: "queue-timeout"; retryAfterSeconds: number };

export const MESSAGES = {
  timeout: "The data service did not answer in time. Your filter is safe; try again.",
  network: "The data service could not be reached. Your filter is safe; try again in a moment.",
  serverError: "The data service had a problem answering. Your filter is safe; try again in a moment.",
  unreadable: "The data service sent an answer we could not read. Try again in a moment.",
  absent: "The data service does not offer this operation at this address.",
  retired: "The data service has retired this version of the operation.",
  keyRefused: "The data service refused this proxy's API key. Ask whoever runs the proxy to check the key.",
  queueTimeout: "Too many requests are waiting for the data service right now. Try again in a few seconds.",
} as const;

/** Upstream statuses that mean the call was refused before it did anything (the contract's order). */
function refusedBeforeWork(status: number, text: string): boolean {
  if (status === 401 || status === 403 || status === 422) return true;
  return status === 429 && isRateLimited(text);
}

export function isRateLimited(text: string): boolean {
  try {
    return (JSON.parse(text) as { code?: unknown }).code === ERROR_CODES.rateLimited;
  } catch {
    return false;
  }
}

function isJson(headers: Headers): boolean {
  const type = (headers.get("content-type") ?? "").toLowerCase();
  return /^application\/([\w.+-]+\+)?json\b/.test(type);
}

/**
 * Turns an outcome into the browser's answer. `final` says whether the upstream certainly acted on
 * it (any answer it gave, except refusals the contract makes before any work): final answers are
 * what an Idempotency-Key replays; the rest may be retried with the same key.
 */
export function answerOf(
  outcome: Exclude<Outcome, { kind: "stream" }>,
  scrub: (text: string) => string,
): { answer: BufferedAnswer; final: boolean } {
  switch (outcome.kind) {
    case "timeout":
      return { answer: problem(504, MESSAGES.timeout), final: false };
    case "network":
      return { answer: problem(502, MESSAGES.network), final: false };
    case "queue-timeout":
      return {
        answer: problem(429, MESSAGES.queueTimeout, {
          code: ERROR_CODES.rateLimited,
          headers: [["retry-after", String(outcome.retryAfterSeconds)]],
        }),
        final: false,
      };
    case "answer":
      break;
  }
  const { status, headers, text } = outcome;
  const kept = passedHeaders(headers, "json");
  if (status === 401) return { answer: problem(502, MESSAGES.keyRefused), final: false };
  if (status >= 500) return { answer: problem(502, MESSAGES.serverError, { headers: kept }), final: true };
  if (status < 200 || (status >= 300 && status < 400))
    return { answer: problem(502, MESSAGES.unreadable), final: false };
  let parsed = false;
  if (isJson(headers)) {
    try {
      JSON.parse(text);
      parsed = true;
    } catch {}
  }
  if (!parsed) {
    // A plain-text or HTML 404/405/410 (a gateway's page) still means "not here": the status is kept,
    // so the app can fall back between API versions; its body stays behind.
    if (status === 404 || status === 405) return { answer: problem(status, MESSAGES.absent), final: false };
    if (status === 410) return { answer: problem(410, MESSAGES.retired), final: false };
    return { answer: problem(502, MESSAGES.unreadable), final: true };
  }
  return {
    answer: { status, headers: kept, body: scrub(text) },
    final: !refusedBeforeWork(status, text),
  };
}
