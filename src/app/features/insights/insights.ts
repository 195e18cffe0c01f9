import { keepPreviousData, queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { z } from "zod";
import { canonicalFilter, canonicalKey } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import type { responses } from "../../../contract/operations";
import { call } from "../../api/operations";

/**
 * `POST /api/v2/contact/insights`: who is in an audience. Free on every plan; the proxy caches it
 * by canonical filter and queues it behind interactive calls (routes.ts: `priority: "background"`).
 */
export type InsightsSummary = z.infer<typeof responses.insightsSummary>;
export type InsightsBreakdown = z.infer<typeof responses.insightsBreakdown>;
export type InsightsFields = z.infer<typeof responses.insightsFields>;

export type InsightsRequest =
  | { section: "summary" }
  | { section: "breakdown"; groupField: string }
  | { section: "fields"; fields: readonly string[] };

type AnswerOf<R extends InsightsRequest> = R extends { section: "summary" }
  ? InsightsSummary
  : R extends { section: "breakdown" }
    ? InsightsBreakdown
    : InsightsFields;

export const INSIGHTS_QUERY_KEY = ["insights"] as const;

/** Longer than the count's 300 ms: the count answers first, insights follow once editing pauses. */
export const INSIGHTS_DEBOUNCE_MS = 600;

/** The canonical filter is sent (ids dropped), so one cache key is always one request. */
export function fetchInsights<R extends InsightsRequest>(
  filter: GroupNode,
  request: R,
  signal?: AbortSignal,
): Promise<AnswerOf<R>> {
  return call("insights", {
    body: {
      ...request,
      fields: "fields" in request ? [...request.fields] : undefined,
      filter: canonicalFilter(filter),
    },
    ...(signal ? { signal } : {}),
  }) as Promise<AnswerOf<R>>;
}

/** What else, besides the filter, tells two requests of a section apart. */
function requestPart(request: InsightsRequest): string {
  if (request.section === "breakdown") return request.groupField;
  if (request.section === "fields") return request.fields.join(",");
  return "";
}

/** Keyed by the canonical filter: the same audience with other ids (or key order) is one entry. */
export function insightsQueryKey(filter: GroupNode, request: InsightsRequest) {
  return [...INSIGHTS_QUERY_KEY, request.section, canonicalKey(filter), requestPart(request)] as const;
}

/** Insights change as slowly as counts: a minute fresh, ten kept (going back shows them at once). */
export function insightsQueryOptions<R extends InsightsRequest>(filter: GroupNode, request: R) {
  return queryOptions({
    queryKey: insightsQueryKey(filter, request),
    queryFn: ({ signal }) => fetchInsights(filter, request, signal),
    staleTime: 60_000,
    gcTime: 10 * 60_000,
  });
}

export interface SettledAudience {
  key: string;
  filter: GroupNode;
}

/**
 * The last valid filter that stayed unchanged for `delayMs` (by canonical key, so a new id does not
 * restart the wait); null until there is one. One already answered (`cached`) is taken at once:
 * there is nothing to wait for.
 */
export function useSettledAudience(
  filter: GroupNode,
  valid: boolean,
  cached: (filter: GroupNode) => boolean,
  delayMs = INSIGHTS_DEBOUNCE_MS,
): { settled: SettledAudience | null; waiting: boolean } {
  const key = canonicalKey(filter);
  const [settled, setSettled] = useState<SettledAudience | null>(() => (valid ? { key, filter } : null));
  const behind = valid && settled?.key !== key;
  const takeNow = behind && cached(filter);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the filter; a new object with the same key must not restart the wait.
  useEffect(() => {
    if (!behind) return;
    if (takeNow) {
      setSettled({ key, filter });
      return;
    }
    const timer = setTimeout(() => setSettled({ key, filter }), delayMs);
    return () => clearTimeout(timer);
  }, [key, behind, takeNow, delayMs]);
  if (takeNow) return { settled: { key, filter }, waiting: false };
  return { settled, waiting: behind };
}

export interface InsightsGate {
  /** The tree can be sent. */
  valid: boolean;
  /**
   * The count of this same filter has its answer (or failed): insights wait behind it, so that
   * the number a person is watching comes first.
   */
  countSettled: boolean;
  /** The panel is open; closed, nothing is asked. */
  open: boolean;
}

export interface SectionState<T> {
  data: T | undefined;
  /** The shown data belongs to an earlier audience (or the next request is pending): dim it. */
  isStale: boolean;
  isFetching: boolean;
  error: Error | null;
  /** Nothing to show yet: the first answer is on its way. */
  isPending: boolean;
  retry: () => void;
}

/**
 * One section of insights for the settled audience: asked only once the tree is valid, the count is
 * settled and the panel is open; the previous answer is kept (dimmed) while the next one loads, so
 * the panel does not flash. `request` null: this section is not wanted (no fields chosen).
 */
export function useInsightsSection<R extends InsightsRequest>(
  settled: SettledAudience | null,
  waiting: boolean,
  request: R | null,
  gate: InsightsGate,
): SectionState<AnswerOf<R>> {
  const wanted = request !== null && settled !== null;
  const options = insightsQueryOptions(
    settled?.filter ?? EMPTY_FILTER,
    request ?? ({ section: "summary" } as InsightsRequest as R),
  );
  const enabled = wanted && gate.open && gate.valid && gate.countSettled;
  const query = useQuery({ ...options, enabled, placeholderData: keepPreviousData });
  const data = wanted ? (query.data as AnswerOf<R> | undefined) : undefined;
  const error = wanted && query.isError ? query.error : null;
  return {
    data,
    isStale: data !== undefined && (waiting || query.isPlaceholderData || !gate.valid || !gate.countSettled),
    isFetching: enabled && query.isFetching,
    error,
    isPending: request !== null && gate.valid && data === undefined && error === null,
    retry: () => void query.refetch(),
  };
}

const EMPTY_FILTER: GroupNode = { type: "group", op: "AND", negate: false, children: [] };

/** A hook's view of the cache: has this filter's summary been answered? */
export function useCachedCheck(): (filter: GroupNode) => boolean {
  const queryClient = useQueryClient();
  return (filter) => queryClient.getQueryData(insightsQueryKey(filter, { section: "summary" })) !== undefined;
}
