import { queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { stableStringify } from "../../../../contract/canonical";
import type { Requests, responses } from "../../../../contract/operations";
import { call } from "../../../api/operations";

/**
 * `POST /api/v2/contact/export/estimate`: what an export would deliver and cost, and whether the
 * balance covers it. Free; asked for when the person presses Estimate (not on every keystroke).
 */
export type EstimateBody = z.input<Requests["estimate"]>;
export type Estimate = z.infer<typeof responses.estimate>;

export const ESTIMATE_QUERY_KEY = ["checkout", "estimate"] as const;

export function postEstimate(body: EstimateBody, signal?: AbortSignal): Promise<Estimate> {
  return call("estimate", { body, ...(signal ? { signal } : {}) });
}

export function estimateQueryOptions(body: EstimateBody) {
  return queryOptions({
    queryKey: [...ESTIMATE_QUERY_KEY, stableStringify(body)] as const,
    queryFn: ({ signal }) => postEstimate(body, signal),
    // The balance in it changes with every spend: never reuse an old one for a new question.
    staleTime: 0,
    gcTime: 60_000,
    refetchOnWindowFocus: false,
  });
}

/** The estimate of `body`, or nothing while `body` is null (not asked yet). */
export function useEstimate(body: EstimateBody | null) {
  return useQuery({
    ...estimateQueryOptions(body ?? ({} as EstimateBody)),
    enabled: body !== null,
  });
}
