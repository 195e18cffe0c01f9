import { useInfiniteQuery } from "@tanstack/react-query";
import { canonicalFilter, canonicalKey } from "../../../../contract/canonical";
import type { FilterNodeInput, GroupInput, GroupNode } from "../../../../contract/filter";
import { call } from "../../../api/operations";

/**
 * `POST /api/v2/contact/insights`, `section: "breakdown"` by company name: the companies of an
 * audience with their people, most first. Free. The service answers the top 20 and how many people
 * are left (`otherCount`); the next 20 are the top of the audience without the companies listed.
 */
export const COMPANY_GROUP_FIELD = "COMPANY_NAME_ORG";

export interface AudienceCompany {
  /** null: people whose company name is not given. */
  name: string | null;
  people: number;
}

export interface AudienceCompaniesPage {
  companies: AudienceCompany[];
  /** People at companies not listed yet. */
  peopleLeft: number;
}

/** The audience without the companies already listed. */
export function withoutListed(filter: GroupNode, listed: readonly (string | null)[]): GroupInput {
  const audience = canonicalFilter(filter);
  const names = listed.filter((name): name is string => name !== null);
  const notListed: FilterNodeInput = {
    type: "condition",
    column: COMPANY_GROUP_FIELD,
    operator: "notIn",
    valueList: names,
  };
  const nameGiven: FilterNodeInput = {
    type: "condition",
    column: COMPANY_GROUP_FIELD,
    operator: "isNotNull",
  };
  const nameMissing: FilterNodeInput = { type: "condition", column: COMPANY_GROUP_FIELD, operator: "isNull" };
  let rest: FilterNodeInput | null;
  if (listed.includes(null)) rest = names.length > 0 ? notListed : nameGiven;
  // `notIn` keeps no one whose name is missing: they are still to be listed.
  else rest = names.length > 0 ? { type: "group", op: "OR", children: [notListed, nameMissing] } : null;
  return rest === null ? audience : { type: "group", op: "AND", children: [audience, rest] };
}

async function fetchPage(
  filter: GroupNode,
  listed: readonly (string | null)[],
  signal: AbortSignal,
): Promise<AudienceCompaniesPage> {
  const answer = await call("insights", {
    body: { section: "breakdown", groupField: COMPANY_GROUP_FIELD, filter: withoutListed(filter, listed) },
    signal,
  });
  if (answer.section !== "breakdown") return { companies: [], peopleLeft: 0 };
  return {
    companies: answer.buckets.map((bucket) => ({
      name: bucket.value === null ? null : String(bucket.value),
      people: bucket.count,
    })),
    peopleLeft: answer.otherCount,
  };
}

/** The companies of `filter`, 20 a page, asked only while the audience is complete (`enabled`). */
export function useAudienceCompanies(filter: GroupNode, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["companies", "of-audience", canonicalKey(filter)] as const,
    queryFn: ({ pageParam, signal }) => fetchPage(filter, pageParam, signal),
    initialPageParam: [] as (string | null)[],
    getNextPageParam: (last, _pages, listed) =>
      last.peopleLeft > 0 && last.companies.length > 0
        ? [...listed, ...last.companies.map((company) => company.name)]
        : undefined,
    enabled,
    staleTime: 60_000,
    gcTime: 10 * 60_000,
  });
}
