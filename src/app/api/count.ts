import { queryOptions } from "@tanstack/react-query";
import { canonicalFilter, canonicalKey } from "../../contract/canonical";
import type { FilterNode, GroupNode } from "../../contract/filter";
import type { CountResponse } from "../../contract/operations";
import { call } from "./operations";

/** `POST /api/v2/contact/count`: how many people a filter keeps. Free on every plan. */
export type CountResult = CountResponse;

export const COUNT_QUERY_KEY = ["audience", "count"] as const;

/**
 * Counts the people a filter keeps. The canonical form is sent (ids dropped, defaults explicit),
 * so that two trees with one cache key are always the same request.
 */
export function fetchCount(filter: GroupNode, signal?: AbortSignal): Promise<CountResult> {
  return call("count", { body: { filter: canonicalFilter(filter) }, ...(signal ? { signal } : {}) });
}

/**
 * Keyed by the canonical form, so that going back to an earlier tree (undo, a removed rule put
 * back) shows its count at once from the cache. Counts change slowly: a minute fresh, ten kept.
 */
export function countQueryOptions(filter: GroupNode) {
  return queryOptions({
    queryKey: [...COUNT_QUERY_KEY, canonicalKey(filter)] as const,
    queryFn: ({ signal }) => fetchCount(filter, signal),
    staleTime: 60_000,
    gcTime: 10 * 60_000,
  });
}

/** A single node's own audience: the node as the root's only child (same cache as the tree's counts). */
export function nodeAsFilter(node: FilterNode): GroupNode {
  return { type: "group", op: "AND", negate: false, children: [{ ...node, joinWithPrevious: null }] };
}

export function nodeCountQueryOptions(node: FilterNode) {
  return countQueryOptions(nodeAsFilter(node));
}
