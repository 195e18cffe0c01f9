import { queryOptions, useQuery } from "@tanstack/react-query";
import { type Approval, approvalsAnswer } from "../../contract/spending";
import { getJson } from "./client";

/**
 * `GET /api/approvals`: the team's approval requests (an admin sees everyone's, others their own).
 * Read again every few seconds while a purchase of this page waits for an admin's decision.
 */
export const APPROVALS_QUERY_KEY = ["approvals"] as const;

/** How often a waiting request is read again. */
export const APPROVAL_POLL_MS = 3000;

export function getApprovals(signal?: AbortSignal) {
  return getJson("approvals", approvalsAnswer, signal ? { signal } : {});
}

export function approvalsQueryOptions() {
  return queryOptions({ queryKey: APPROVALS_QUERY_KEY, queryFn: ({ signal }) => getApprovals(signal) });
}

/**
 * The request `id` as the proxy now has it, read every APPROVAL_POLL_MS while `follow` (waiting or
 * approved, not yet run), also in a background tab: the purchase's answer is fetched when it ran.
 */
export function useApproval(id: string | null, follow: boolean) {
  return useQuery({
    ...approvalsQueryOptions(),
    enabled: id !== null,
    staleTime: 0,
    refetchInterval: follow ? APPROVAL_POLL_MS : false,
    refetchIntervalInBackground: true,
    select: (answer): Approval | null => answer.approvals.find((a) => a.id === id) ?? null,
  });
}
