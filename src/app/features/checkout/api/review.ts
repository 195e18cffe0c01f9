import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { stableStringify } from "../../../../contract/canonical";
import {
  type EnrichReview,
  type ExportReview,
  enrichReview,
  exportReview,
  type ReviewRequest,
} from "../../../../contract/spending";
import { api, requestJson } from "../../../api/client";

/**
 * `POST /api/purchases/review`: what a purchase would do before it is confirmed (which people are
 * already the team's, which are suppressed, which are new, what they cost, and what the team's
 * spending rules say). Free: nothing is bought.
 */
export type EnrichReviewRequest = Extract<ReviewRequest, { kind: "enrich" }>;
export type ExportReviewRequest = Extract<ReviewRequest, { kind: "export" }>;

export const REVIEW_QUERY_KEY = ["checkout", "review"] as const;

export function postEnrichReview(body: EnrichReviewRequest, signal?: AbortSignal): Promise<EnrichReview> {
  return requestJson(enrichReview, () =>
    api.post("purchases/review", { json: body, ...(signal ? { signal } : {}) }),
  );
}

export function postExportReview(body: ExportReviewRequest, signal?: AbortSignal): Promise<ExportReview> {
  return requestJson(exportReview, () =>
    api.post("purchases/review", { json: body, ...(signal ? { signal } : {}) }),
  );
}

const reviewQuery = {
  // Balances, caps and what the team owns change with every purchase: never an old answer.
  staleTime: 0,
  gcTime: 60_000,
  refetchOnWindowFocus: false,
  // While a changed choice is asked again, the last answer stays on screen (marked as updating).
  placeholderData: keepPreviousData,
} as const;

/** The review of an enrichment of `body`, asked again whenever the people, reveal or columns change. */
export function useEnrichReview(body: EnrichReviewRequest | null) {
  return useQuery({
    ...reviewQuery,
    queryKey: [...REVIEW_QUERY_KEY, "enrich", stableStringify(body)] as const,
    queryFn: ({ signal }) => postEnrichReview(body as EnrichReviewRequest, signal),
    enabled: body !== null,
  });
}

/** The review (estimate) of an export of `body`, or nothing while `body` is null (not asked yet). */
export function useExportReview(body: ExportReviewRequest | null) {
  return useQuery({
    ...reviewQuery,
    queryKey: [...REVIEW_QUERY_KEY, "export", stableStringify(body)] as const,
    queryFn: ({ signal }) => postExportReview(body as ExportReviewRequest, signal),
    enabled: body !== null,
  });
}
