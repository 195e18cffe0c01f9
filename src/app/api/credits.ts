import { queryOptions, useQuery } from "@tanstack/react-query";
import type { Plan } from "../../contract/inferred";
import { ApiError } from "./api-error";
import { firstAnswering, NO_GENERATION } from "./generations";
import { callWithHeaders } from "./operations";

/**
 * The balance and plan of the proxy's key, with the rate limit its answer reported. Asked of v2
 * first and of v1 only when v2 does not have the operation (404/405); v1 answering 410 means v1 is
 * retired, so v2's answer stands. The path that answered is remembered for the next time.
 *
 * - `v2/credits`: the documented v2 operation, `{ credits, plan }`.
 * - `v2/account/balance`: the published v2 operation, `{ credits }` (the plan may be missing).
 * - `v1/credits`: the documented v1 operation.
 */
export const BALANCE_PATHS = ["v2/credits", "v2/account/balance", "v1/credits"] as const;
export type BalancePath = (typeof BALANCE_PATHS)[number];

/** `X-RateLimit-*` of one answer: the service's per-key limit over a rolling minute. */
export interface RateLimitSeen {
  limit: number;
  remaining: number;
  /** When the oldest call of the window stops counting (ms since the epoch). */
  resetAt: number;
  /** When the answer carrying these headers arrived (ms since the epoch). */
  seenAt: number;
}

export interface Credits {
  credits: number;
  /** Null when the answering operation does not say (then the session's plan is used). */
  plan: Plan | null;
  /** Null when the answer carried no (readable) `X-RateLimit-*` headers. */
  rateLimit: RateLimitSeen | null;
  /** Which operation answered. */
  source: BalancePath;
}

export const CREDITS_QUERY_KEY = ["credits"] as const;

const count = (value: string | null) =>
  value !== null && /^\s*\d{1,12}\s*$/.test(value) ? Number(value) : null;

/**
 * Reads `X-RateLimit-Limit/Remaining/Reset`. Reset is unix seconds (public docs); a small number is
 * read as seconds from now, which some services send instead.
 */
export function parseRateLimit(headers: Headers, now: number = Date.now()): RateLimitSeen | null {
  const limit = count(headers.get("x-ratelimit-limit"));
  const remaining = count(headers.get("x-ratelimit-remaining"));
  const reset = count(headers.get("x-ratelimit-reset"));
  if (limit === null || remaining === null || limit === 0) return null;
  const resetAt = reset === null ? now + 60_000 : reset < 1e9 ? now + reset * 1000 : reset * 1000;
  return { limit, remaining: Math.min(remaining, limit), resetAt, seenAt: now };
}

/** The operation behind each path. */
const BALANCE_OPERATIONS = {
  "v2/credits": "creditsV2",
  "v2/account/balance": "balanceV2",
  "v1/credits": "creditsV1",
} as const;

async function askBalance(path: BalancePath, signal?: AbortSignal): Promise<Credits> {
  const { answer: body, headers } = await callWithHeaders(BALANCE_OPERATIONS[path], signal ? { signal } : {});
  return { credits: body.credits, plan: body.plan ?? null, rateLimit: parseRateLimit(headers), source: path };
}

/** The code of the error when no balance operation answered at all. */
export const NO_BALANCE_OPERATION = "NO_BALANCE_OPERATION";

/** Each operation in turn, moving on only while it is absent; the one that answered is remembered. */
export async function getCredits({ signal }: { signal?: AbortSignal } = {}): Promise<Credits> {
  try {
    const answered = await firstAnswering(
      "balance",
      BALANCE_PATHS.map((path) => ({
        name: path,
        generation: path.startsWith("v1/") ? ("v1" as const) : ("v2" as const),
        run: () => askBalance(path, signal),
        // No resource is named: a 404 from any of them means the operation is not there.
        absentWhenMissing: true,
      })),
    );
    return answered.value;
  } catch (error) {
    if (!(error instanceof ApiError && error.code === NO_GENERATION)) throw error;
    throw new ApiError({
      kind: "not-found",
      status: error.status,
      code: NO_BALANCE_OPERATION,
      requestId: error.requestId,
      message:
        "The data service has no balance operation this app knows: v2 answered that it has none, and v1 is retired or missing. Tell whoever runs this app.",
    });
  }
}

/** How often a balance that could not be read is asked again (the header has no "Try again"). */
export const CREDITS_RETRY_MS = 10_000;

export const creditsQueryOptions = () =>
  queryOptions({
    queryKey: CREDITS_QUERY_KEY,
    queryFn: ({ signal }) => getCredits({ signal }),
    staleTime: 30_000,
    // The header would otherwise say "Credits unavailable" until the next spend. A failure for want
    // of the server is left to api/recovery.ts, which reads it again as soon as the server is back:
    // a poll of its own would keep it busy retrying then, and a second late.
    refetchInterval: (query) => {
      const { status, error } = query.state;
      return status === "error" && !(error instanceof ApiError && error.transient) ? CREDITS_RETRY_MS : false;
    },
  });

/** Spends invalidate CREDITS_QUERY_KEY so the header shows the new balance. */
export function useCredits(options: { enabled?: boolean } = {}) {
  return useQuery({ ...creditsQueryOptions(), enabled: options.enabled ?? true });
}
