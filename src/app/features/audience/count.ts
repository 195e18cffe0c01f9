import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { canonicalKey } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";
import { type CountResult, countQueryOptions } from "../../api/count";

/** How long the tree must stay unchanged before it is counted. */
export const COUNT_DEBOUNCE_MS = 300;

interface Settled {
  key: string;
  filter: GroupNode;
  valid: boolean;
}

/**
 * The last tree (with its validity) that stayed unchanged for `delayMs`, by canonical key: a change
 * that keeps the key, such as a new id, does not restart the wait. A valid tree whose count is
 * already cached is taken at once: going back to it needs no request, so there is nothing to wait for.
 */
function useSettledFilter(
  filter: GroupNode,
  key: string,
  valid: boolean,
  delayMs: number,
  cached: boolean,
): Settled {
  const [settled, setSettled] = useState<Settled>({ key, filter, valid });
  const same = settled.key === key && settled.valid === valid;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the filter; a new object with the same key must not restart the wait.
  useEffect(() => {
    if (same) return;
    if (cached && valid) {
      setSettled({ key, filter, valid });
      return;
    }
    const timer = setTimeout(() => setSettled({ key, filter, valid }), delayMs);
    return () => clearTimeout(timer);
  }, [key, valid, same, delayMs, cached]);
  return same || !(cached && valid) ? settled : { key, filter, valid };
}

export interface LiveCount {
  /** The count to show: the current tree's, or the previous one's while the new one loads. */
  count: number | null;
  /** The shown count belongs to an earlier tree (waiting for the pause, or loading): dim it. */
  isStale: boolean;
  /** A request is under way. */
  isFetching: boolean;
  /** The current tree's request failed (no count to show). */
  error: Error | null;
  /** Nothing to show yet: the first count is loading. */
  isPending: boolean;
  /** Asks again (after an error). */
  retry: () => void;
  /** "fast" counts may be approximate. */
  mode: CountResult["mode"] | null;
}

/**
 * The live count of the audience: debounced by COUNT_DEBOUNCE_MS on the canonical key, only for
 * valid trees, the superseded request aborted (React Query aborts the signal when the query loses
 * its observer), and the previous count kept, marked stale, while the new one loads.
 */
export function useLiveCount(
  filter: GroupNode,
  valid: boolean,
  options: { debounceMs?: number } = {},
): LiveCount {
  const queryClient = useQueryClient();
  const key = canonicalKey(filter);
  const currentOptions = countQueryOptions(filter);
  const cached = queryClient.getQueryData(currentOptions.queryKey) !== undefined;
  const settled = useSettledFilter(filter, key, valid, options.debounceMs ?? COUNT_DEBOUNCE_MS, cached);
  const query = useQuery({
    ...countQueryOptions(settled.filter),
    // Both: the tree shown now, and the one the request would be for, must be complete.
    enabled: valid && settled.valid,
    placeholderData: keepPreviousData,
  });
  const waiting = settled.key !== key;
  const data = query.data;
  return {
    count: valid && data ? data.count : null,
    mode: valid && data ? data.mode : null,
    isStale: valid && data !== undefined && (waiting || query.isPlaceholderData),
    isFetching: valid && (query.isFetching || waiting),
    error: valid && query.isError ? query.error : null,
    isPending: valid && data === undefined && !query.isError,
    retry: () => void query.refetch(),
  };
}
