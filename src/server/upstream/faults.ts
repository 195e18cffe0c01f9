import { OUTCOME_CODES } from "../../contract/errors";
import { ERROR_CODES } from "../../contract/inferred";
import { passedHeaders } from "../http/allowlist";
import { type BufferedAnswer, problem } from "../http/answer";

/**
 * What can come back from one upstream exchange, and how each becomes an answer a person can
 * read. Nothing of the upstream's internals (bodies of 5xx, stack traces, its address, the key)
 * ever reaches the browser.
 */
export type Outcome =
  | { kind: "answer"; status: number; headers: Headers; text: string }
  | { kind: "stream"; status: number; headers: Headers; body: ReadableStream<Uint8Array> | null }
  /** The status and headers arrived, the body did not (the connection broke or stalled mid-body). */
  | { kind: "cut"; status: number; headers: Headers }
  | { kind: "timeout" }
  /** No answer. `reached`: the request may have got there (false only when the connection was never made). */
  | { kind: "network"; reached: boolean }
  | { kind: "queue-timeout"; retryAfterSeconds: number };

export const MESSAGES = {
  timeout: "The data service did not answer in time. Your filter is safe; try again.",
  network: "The data service could not be reached. Your filter is safe; try again in a moment.",
  serverError: "The data service had a problem answering. Your filter is safe; try again in a moment.",
  unreadable: "The data service sent an answer we could not read. Try again in a moment.",
  cutOff: "The data service's answer was cut off on the way. Your filter is safe; try again in a moment.",
  spendCutOff:
    "The data service carried this out, but its answer was cut off on the way, so its result is lost. It will not be sent or charged again; check your balance before you buy it again.",
  absent: "The data service does not offer this operation at this address.",
  retired: "The data service has retired this version of the operation.",
  keyRefused: "The data service refused this proxy's API key. Ask whoever runs the proxy to check the key.",
  queueTimeout: "Too many requests are waiting for the data service right now. Try again in a few seconds.",
  rateLimited:
    "The data service is refusing requests for a moment (its rate limit). Try again in a few seconds.",
} as const;

/**
 * Upstream statuses that mean the call was refused before it did anything (the contract's order):
 * 401, 403, 422, any 429 (the rate limit, whatever its body says, and the View cap both refuse
 * before any work), 503 (unavailable: not handled at all), and 404/405/410 (no such operation or
 * object here: the app then tries the other API version under the same key).
 */
function refusedBeforeWork(status: number): boolean {
  return [401, 403, 404, 405, 410, 422, 429, 503].includes(status);
}

/**
 * A 429 of the ordinary rate limit, which will pass once the window moves on: `RATE_LIMITED`, or a
 * body without a code (the live service's published 429 is `{ detail }` only). Not the daily View
 * cap (`FREE_PREVIEW_CAP_REACHED`), which lasts until midnight.
 */
export function isRateLimited(text: string): boolean {
  try {
    const code = (JSON.parse(text) as { code?: unknown } | null)?.code;
    return code === ERROR_CODES.rateLimited || code === undefined;
  } catch {
    return true;
  }
}

/** The live service sends no Retry-After: the wait is worked out from X-RateLimit-Reset (unix s). */
function withRetryAfter(headers: [string, string][], now = Date.now()): [string, string][] {
  if (headers.some(([name]) => name === "retry-after")) return headers;
  const reset = Number(headers.find(([name]) => name === "x-ratelimit-reset")?.[1]);
  if (!Number.isFinite(reset) || reset <= 0) return headers;
  // A small number is seconds from now (some services send that instead of a time).
  const seconds = reset < 1e9 ? reset : Math.ceil(reset - now / 1000);
  return [...headers, ["retry-after", String(Math.max(1, Math.min(seconds, 3600)))]];
}

function isJson(headers: Headers): boolean {
  const type = (headers.get("content-type") ?? "").toLowerCase();
  return /^application\/([\w.+-]+\+)?json\b/.test(type);
}

/**
 * Turns an outcome into the browser's answer. `final` says whether the upstream may have acted on
 * it (any answer it gave, except refusals before any work, 503 included; a 2xx whose body was cut
 * off counts as an answer): final answers are what an Idempotency-Key replays; the rest may be
 * retried with the same key. A final 502 to a spend carries an OUTCOME_CODES code, so the app does
 * not offer a "Try again" that could only replay it.
 */
export function answerOf(
  outcome: Exclude<Outcome, { kind: "stream" }>,
  scrub: (text: string) => string,
  options: { spends?: boolean } = {},
): { answer: BufferedAnswer; final: boolean } {
  switch (outcome.kind) {
    case "cut": {
      if (outcome.status >= 200 && outcome.status < 300)
        return {
          answer: options.spends
            ? problem(502, MESSAGES.spendCutOff, { code: OUTCOME_CODES.answerCutOff })
            : problem(502, MESSAGES.cutOff),
          final: true,
        };
      // An error answer whose body broke: judged by its status alone.
      return answerOf(
        { kind: "answer", status: outcome.status, headers: outcome.headers, text: "" },
        scrub,
        options,
      );
    }
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
  if (status === 503) return { answer: problem(502, MESSAGES.serverError, { headers: kept }), final: false };
  if (status >= 500)
    return {
      answer: problem(502, MESSAGES.serverError, {
        headers: kept,
        ...(options.spends ? { code: OUTCOME_CODES.upstreamFailed } : {}),
      }),
      final: true,
    };
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
    if (status === 429)
      return {
        answer: problem(429, MESSAGES.rateLimited, {
          code: ERROR_CODES.rateLimited,
          headers: withRetryAfter(kept),
        }),
        final: false,
      };
    // A spend answered 2xx has been carried out, even if what it sent cannot be read.
    if (options.spends && status >= 200 && status < 300)
      return {
        answer: problem(502, MESSAGES.spendCutOff, { code: OUTCOME_CODES.answerCutOff }),
        final: true,
      };
    const final = !refusedBeforeWork(status);
    return {
      answer: problem(
        502,
        MESSAGES.unreadable,
        final && options.spends ? { code: OUTCOME_CODES.upstreamFailed } : {},
      ),
      final,
    };
  }
  return {
    answer: {
      status,
      headers: status === 429 && isRateLimited(text) ? withRetryAfter(kept) : kept,
      body: scrub(text),
    },
    final: !refusedBeforeWork(status),
  };
}
