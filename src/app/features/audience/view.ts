import {
  keepPreviousData,
  type QueryClient,
  queryOptions,
  skipToken,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { canonicalFilter, canonicalKey } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { VIEW_BUDGET_DEFAULT } from "../../../contract/inferred";
import type { ViewResponse } from "../../../contract/operations";
import { nextUtcMidnight } from "../../../contract/time";
import { ApiError } from "../../api/api-error";
import { callWithHeaders } from "../../api/operations";
import { normaliseColumns, type SampleSettings } from "./sample-settings";
import { resetTime } from "./time";

/**
 * `POST /api/v2/contact/view`: a free masked sample of the audience. Free of credits, but every row
 * returned spends one row of the key's DAILY budget (`X-FreePreview-Remaining`; at 0 a 429
 * `FREE_PREVIEW_CAP_REACHED` until midnight UTC). So the sample is taken only when the audience
 * settles, or when the person asks; React Query never refetches it by itself.
 */
export type { ViewResponse };

export const SAMPLE_QUERY_KEY = ["audience", "sample"] as const;
export const SAMPLE_BUDGET_QUERY_KEY = ["audience", "sample-budget"] as const;
export const REMAINING_HEADER = "X-FreePreview-Remaining";

/** How long the audience must stay unchanged before a new sample is taken. */
export const SAMPLE_SETTLE_MS = 1500;

export interface SampleRequest {
  filter: GroupNode;
  limit: number;
  /** Null asks for the service's default columns. */
  columns: readonly string[] | null;
  includeScores: boolean;
}

export interface SampleAnswer {
  body: ViewResponse;
  /** Rows left in today's sample budget, from `X-FreePreview-Remaining` (null when absent). */
  remaining: number | null;
}

export function parseRemaining(value: string | null | undefined): number | null {
  if (value === null || value === undefined || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

/** Takes one sample. Every call spends budget: there is no next page, each answer is a new draw. */
export async function fetchSample(request: SampleRequest, signal?: AbortSignal): Promise<SampleAnswer> {
  const { answer, headers } = await callWithHeaders("view", {
    body: {
      filter: canonicalFilter(request.filter),
      limit: request.limit,
      ...(request.columns ? { columns: [...request.columns] } : {}),
      includeScores: request.includeScores,
    },
    ...(signal ? { signal } : {}),
  });
  return { body: answer, remaining: parseRemaining(headers.get(REMAINING_HEADER)) };
}

/** What one sample was taken for. */
export interface SampleArgs extends SampleSettings {
  filter: GroupNode;
  key: string;
}

/** A sample as the screens use it: the answer, what it was taken for, and when. */
export interface SampleData extends SampleAnswer {
  args: SampleArgs;
  sampledAt: number;
}

/** The day's sample budget as last seen (any View answer, a cap error included). */
export interface SampleBudget {
  remaining: number;
  /** The budget's size: the sandbox's default, or more if a larger remainder was seen. */
  total: number;
  /** When it resets (ISO), if the service said; otherwise the next midnight UTC. */
  resetAt: string | null;
  observedAt: number;
}

export function makeSampleArgs(filter: GroupNode, settings: SampleSettings): SampleArgs {
  return {
    filter,
    key: canonicalKey(filter),
    limit: settings.limit,
    columns: normaliseColumns(settings.columns),
    includeScores: settings.includeScores,
  };
}

function recordBudget(client: QueryClient, remaining: number, resetAt: string | null): void {
  const previous = client.getQueryData<SampleBudget>(SAMPLE_BUDGET_QUERY_KEY);
  client.setQueryData<SampleBudget>(SAMPLE_BUDGET_QUERY_KEY, {
    remaining,
    total: Math.max(VIEW_BUDGET_DEFAULT, remaining, previous?.total ?? 0),
    resetAt,
    observedAt: Date.now(),
  });
}

/**
 * One sample, cached by tree and settings so that going back to a tree already sampled shows that
 * sample again for free. Never refetched automatically (no focus, mount, reconnect or retry): a new
 * sample is a spend, taken only by `useSettledSample`. Except a sample that failed for want of the
 * server (no answer, a 5xx): it is asked again once the server is back (api/recovery.ts), as "Try
 * again" would, since this audience has none to show. The signal is deliberately not passed: a
 * superseded sample was already paid for by the time it is abandoned, so it is kept in the cache.
 */
export function sampleQueryOptions(args: SampleArgs | null) {
  return queryOptions({
    queryKey: args
      ? ([...SAMPLE_QUERY_KEY, args.key, args.limit, args.columns.join(","), args.includeScores] as const)
      : ([...SAMPLE_QUERY_KEY, "none", 0, "", false] as const),
    queryFn: args
      ? async ({ client }): Promise<SampleData> => {
          try {
            const answer = await fetchSample(args);
            if (answer.remaining !== null) recordBudget(client, answer.remaining, null);
            return { ...answer, args, sampledAt: Date.now() };
          } catch (error) {
            if (error instanceof ApiError && error.kind === "budget-exhausted")
              recordBudget(client, 0, error.resetAt);
            throw error;
          }
        }
      : skipToken,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 10 * 60_000,
    retry: false,
    retryOnMount: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/** The day's budget as last seen; null before any sample, or when it was seen before the last reset. */
export function useSampleBudget(): SampleBudget | null {
  const query = useQuery<SampleBudget>({
    queryKey: SAMPLE_BUDGET_QUERY_KEY,
    queryFn: skipToken,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
  });
  const budget = query.data ?? null;
  if (budget && Date.now() >= resetTime(budget.resetAt, budget.observedAt).getTime()) return null;
  return budget;
}

/** The budget is used up and has not reset yet. */
export function isCapped(budget: SampleBudget | null, now: number = Date.now()): boolean {
  return (
    budget !== null && budget.remaining === 0 && now < resetTime(budget.resetAt, budget.observedAt).getTime()
  );
}

export interface SettledSampleOptions {
  /** Size, columns and scores for the next sample (read when it is taken, never a trigger). */
  settings: SampleSettings;
  settleMs?: number;
}

export interface SettledSample {
  /** The sample shown: the current one, or the previous one while a new one loads. */
  data: SampleData | undefined;
  /** Taking a sample now. */
  isFetching: boolean;
  /** The audience changed; a new sample is taken once it stays unchanged for `settleMs`. */
  isSettling: boolean;
  /** The shown sample was taken for an earlier audience. */
  isOutdated: boolean;
  /** The last sample failed (a budget-exhausted ApiError when the cap is reached). */
  error: Error | null;
  budget: SampleBudget | null;
  /** The daily budget is used up; `resetAt` says until when. */
  capped: boolean;
  resetAt: Date;
  /** Takes a NEW random sample now (spends budget; not a next page), with `settings` if given. */
  sampleAgain: (settings?: SampleSettings) => void;
}

/**
 * The sample of the audience, spending the daily budget with care: a sample is taken when the
 * audience SETTLES (its canonical key unchanged for `settleMs`, the tree valid, and different from
 * the last sampled key), never per keystroke; the first one as soon as the hook mounts with a
 * valid tree (a tree that was never typed); and again only through `sampleAgain()`. Settings changes never trigger a sample by
 * themselves: they are used by the next one.
 */
export function useSettledSample(
  filter: GroupNode,
  valid: boolean,
  options: SettledSampleOptions,
): SettledSample {
  const queryClient = useQueryClient();
  const settleMs = options.settleMs ?? SAMPLE_SETTLE_MS;
  const key = canonicalKey(filter);
  const [args, setArgs] = useState<SampleArgs | null>(null);
  const latest = useRef({ filter, valid, settings: options.settings });
  useEffect(() => {
    latest.current = { filter, valid, settings: options.settings };
  });
  // The tree the hook mounted with was not typed: it is sampled at once (if valid). Any other tree,
  // including the first valid one after an incomplete start, waits to settle.
  const mountedKey = useRef(key);
  const first = useRef(true);
  const budget = useSampleBudget();
  const capped = isCapped(budget);

  useEffect(() => {
    if (!valid || capped || args?.key === key) return;
    const timer = setTimeout(
      () => {
        first.current = false;
        setArgs(makeSampleArgs(latest.current.filter, latest.current.settings));
      },
      first.current && key === mountedKey.current ? 0 : settleMs,
    );
    return () => clearTimeout(timer);
  }, [key, valid, capped, args?.key, settleMs]);

  const query = useQuery({
    ...sampleQueryOptions(args),
    placeholderData: keepPreviousData,
  });

  const sampleAgain = useCallback(
    (settings?: SampleSettings) => {
      const now = latest.current;
      if (!now.valid) return;
      const next = makeSampleArgs(now.filter, settings ?? now.settings);
      first.current = false;
      // staleTime 0 forces a new draw even when this tree and these settings are in the cache; a
      // sample already on its way is shared rather than sent twice.
      queryClient.fetchQuery({ ...sampleQueryOptions(next), staleTime: 0 }).catch(() => {
        // The error is in the query's state, where the panel shows it.
      });
      setArgs(next);
    },
    [queryClient],
  );

  const error = query.isError ? query.error : null;
  const exhausted = error instanceof ApiError && error.kind === "budget-exhausted";
  const data = query.data;
  return {
    data,
    isFetching: query.isFetching,
    isSettling: valid && !capped && args?.key !== key,
    isOutdated: data !== undefined && data.args.key !== key,
    error,
    budget,
    capped,
    resetAt: exhausted
      ? resetTime((error as ApiError).resetAt)
      : budget
        ? resetTime(budget.resetAt, budget.observedAt)
        : nextUtcMidnight(),
    sampleAgain,
  };
}
