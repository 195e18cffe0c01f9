import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { LEDGER_MONTH } from "../../contract/ledger";
import { approvalSchema, approvalsAnswer, type denyBody, spendingSummary } from "../../contract/spending";
import { api, getJson, requestJson } from "./client";
import { CREDITS_QUERY_KEY } from "./credits";

/**
 * The team's spending that more than one screen reads: the month's spend per person against the
 * caps (`GET /api/spending/summary`, the Account page and the Spending page) and approval requests
 * (`/api/approvals`, the Spending page and the navigation's badge for admins). Every answer is read
 * with the contract's schemas (contract/spending.ts).
 */

/** This month, UTC (the ledger's months are UTC): `2026-11`. */
export function thisMonth(now: Date = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/** `2026-11` -> `November 2026` (in the browser's language); the text itself when not a month. */
export function monthWords(month: string): string {
  if (!LEDGER_MONTH.test(month)) return month;
  const [year, mm] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, mm - 1, 1)).toLocaleDateString(undefined, {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

export const SPENDING_QUERY_KEY = ["spending"] as const;
export const SUMMARY_QUERY_KEY = [...SPENDING_QUERY_KEY, "summary"] as const;
export const APPROVALS_QUERY_KEY = [...SPENDING_QUERY_KEY, "approvals"] as const;

export const summaryQueryOptions = (month: string) =>
  queryOptions({
    queryKey: [...SUMMARY_QUERY_KEY, month],
    queryFn: ({ signal }) =>
      getJson("spending/summary", spendingSummary, { searchParams: { month }, signal }),
  });

export function useSpendingSummary(month: string = thisMonth()) {
  return useQuery(summaryQueryOptions(month));
}

export const approvalsQueryOptions = () =>
  queryOptions({
    queryKey: APPROVALS_QUERY_KEY,
    queryFn: ({ signal }) => getJson("approvals", approvalsAnswer, { signal }),
  });

/**
 * Approval requests: an admin reads the team's, anyone else their own (the proxy decides).
 * `pollMs`: asked again that often while the page is open (a request may arrive or be decided
 * elsewhere); `enabled` false asks nothing (the badge, for someone who is not an admin).
 */
export function useApprovals({ pollMs, enabled = true }: { pollMs?: number; enabled?: boolean } = {}) {
  return useQuery({
    ...approvalsQueryOptions(),
    enabled,
    ...(pollMs ? { refetchInterval: pollMs } : {}),
  });
}

/** Approving and denying answer the request as it now stands (what running it came to). */
export type DenyBody = z.input<typeof denyBody>;

const approvalPath = (id: string, what: "approve" | "deny") => `approvals/${encodeURIComponent(id)}/${what}`;

export const approve = (id: string) =>
  requestJson(approvalSchema, () => api.post(approvalPath(id, "approve")));
export const deny = (id: string, body: DenyBody) =>
  requestJson(approvalSchema, () => api.post(approvalPath(id, "deny"), { json: body }));

/** After a decision: the requests, the ledger, the month's spend and the balance are stale. */
function useAfterDecision() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: SPENDING_QUERY_KEY });
    void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
  };
}

export function useApprove() {
  const settled = useAfterDecision();
  // Refused (a cap reached meanwhile) or not, the request may have changed: read the list again.
  return useMutation({ mutationFn: approve, onSettled: settled });
}

export function useDeny() {
  const settled = useAfterDecision();
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) =>
      deny(id, reason.trim() === "" ? {} : { reason: reason.trim() }),
    onSettled: settled,
  });
}
