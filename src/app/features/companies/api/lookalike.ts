import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import type { responses } from "../../../../contract/operations";
import { ApiError } from "../../../api/api-error";
import { call } from "../../../api/operations";

/**
 * `POST /api/v2/contact/company/lookalike`: the companies nearest to one named by its website domain
 * or its company id (RBID_ORG), on what they do (not their names). Free on every plan.
 */
export type LookalikeAnswer = z.infer<typeof responses.lookalike>;

/** Exactly one of domain or company id, as the service requires. */
export type LookalikeRequest = ({ domain: string } | { rbidOrg: string }) & {
  limit: number;
  /** Company columns to return; `["*"]` for all of them; absent for the service's default set. */
  columns?: string[];
};

export const LOOKALIKE_QUERY_KEY = ["companies", "lookalike"] as const;

export function findLookalikes(request: LookalikeRequest, signal?: AbortSignal): Promise<LookalikeAnswer> {
  return call("lookalike", { body: request, ...(signal ? { signal } : {}) });
}

/** Results of one search stay for ten minutes: the dataset changes slowly, and going back is instant. */
export function lookalikeQueryOptions(request: LookalikeRequest) {
  return queryOptions({
    queryKey: [...LOOKALIKE_QUERY_KEY, request] as const,
    queryFn: ({ signal }) => findLookalikes(request, signal),
    staleTime: 10 * 60_000,
  });
}

/** The lookalikes of the last search submitted; nothing is asked before the first (`null`). */
export function useLookalikes(request: LookalikeRequest | null) {
  const fallback: LookalikeRequest = { domain: "", limit: 1 };
  return useQuery({
    ...lookalikeQueryOptions(request ?? fallback),
    enabled: request !== null,
    placeholderData: keepPreviousData,
  });
}

/**
 * The sentence for a failed search: a 422 naming the domain or id field means the service does not
 * know that company; anything else is the error's own message.
 */
export function lookalikeErrorText(error: unknown, request: LookalikeRequest | null): string | null {
  if (!(error instanceof ApiError) || error.status !== 422 || request === null) return null;
  const fields = error.issues.map((issue) => issue.loc[issue.loc.length - 1]);
  if ("domain" in request && fields.includes("domain"))
    return `No company with the website domain “${request.domain}” is known. Check the spelling, or search by company id.`;
  if ("rbidOrg" in request && fields.includes("rbidOrg"))
    return `No company with the id “${request.rbidOrg}” is known. Check it, or search by website domain.`;
  return null;
}
