import { infiniteQueryOptions, useInfiniteQuery } from "@tanstack/react-query";
import { auditAnswer } from "../../../../contract/team";
import { getJson } from "../../../api/client";

/**
 * The audit list (`GET /api/team/audit`, admins only), newest first, a page at a time: "Load
 * older" asks for the entries before the oldest one shown.
 */
export const AUDIT_QUERY_KEY = ["team", "audit"] as const;
export const AUDIT_PAGE_SIZE = 25;

export function getAudit(before: number | null, signal?: AbortSignal) {
  const searchParams: Record<string, string> = { limit: String(AUDIT_PAGE_SIZE) };
  if (before !== null) searchParams.before = String(before);
  return getJson("team/audit", auditAnswer, { searchParams, signal });
}

export const auditQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: AUDIT_QUERY_KEY,
    queryFn: ({ pageParam, signal }) => getAudit(pageParam, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.more ? (last.entries.at(-1)?.id ?? null) : null),
  });

export function useAudit() {
  return useInfiniteQuery(auditQueryOptions());
}
