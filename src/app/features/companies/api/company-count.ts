import { queryOptions, useQuery } from "@tanstack/react-query";
import { canonicalFilter, canonicalKey } from "../../../../contract/canonical";
import type { GroupNode } from "../../../../contract/filter";
import { call } from "../../../api/operations";

/** `POST /api/v2/contact/company/count`: how many distinct companies employ the people a filter keeps. Free. */
export interface CompanyCount {
  count: number;
}

export const COMPANY_COUNT_QUERY_KEY = ["companies", "count"] as const;

/** The canonical form is sent (ids dropped), so that one cache key is always one request. */
export function fetchCompanyCount(filter: GroupNode, signal?: AbortSignal): Promise<CompanyCount> {
  return call("companyCount", { body: { filter: canonicalFilter(filter) }, ...(signal ? { signal } : {}) });
}

/** Keyed by the canonical form, like the people count: a minute fresh, ten kept. */
export function companyCountQueryOptions(filter: GroupNode) {
  return queryOptions({
    queryKey: [...COMPANY_COUNT_QUERY_KEY, canonicalKey(filter)] as const,
    queryFn: ({ signal }) => fetchCompanyCount(filter, signal),
    staleTime: 60_000,
    gcTime: 10 * 60_000,
  });
}

/** The company count of `filter`, asked only while the tree is complete (`enabled`). */
export function useCompanyCount(filter: GroupNode, enabled: boolean) {
  return useQuery({ ...companyCountQueryOptions(filter), enabled });
}
