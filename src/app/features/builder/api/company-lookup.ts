import { queryOptions, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import type { CompanyNames } from "../../../../contract/describe";
import type { FilterNode, GroupNode, LookalikeNode } from "../../../../contract/filter";
import { ApiError } from "../../../api/api-error";
import { call } from "../../../api/operations";

/**
 * Names the company a lookalike node points at, with `POST /api/v2/contact/company/lookalike`
 * (`limit: 1`): its `source` is the named company, and a 422 means the service does not know it.
 */
export type CompanyRef = { by: "domain"; domain: string } | { by: "rbidOrg"; rbidOrg: string };

export type CompanyLookup =
  | { found: true; name: string; industry: string | null }
  | { found: false; reason: string };

export const COMPANY_LOOKUP_STALE_MS = 10 * 60 * 1000;
export const LOOKUP_COLUMNS = ["COMPANY_NAME_ORG", "INDUSTRY_LINKEDIN_ORG"] as const;

export const companyLookupQueryKey = (ref: CompanyRef) =>
  ["builder", "company-lookup", ref.by, ref.by === "domain" ? ref.domain : ref.rbidOrg] as const;

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

export async function lookupCompany(
  ref: CompanyRef,
  { signal }: { signal?: AbortSignal } = {},
): Promise<CompanyLookup> {
  const body =
    ref.by === "domain"
      ? { domain: ref.domain.trim(), limit: 1, columns: [...LOOKUP_COLUMNS] }
      : { rbidOrg: ref.rbidOrg.trim(), limit: 1, columns: [...LOOKUP_COLUMNS] };
  try {
    const answer = await call("lookalike", { body, ...(signal ? { signal } : {}) });
    const name = text(answer.source.COMPANY_NAME_ORG);
    if (name === null) return { found: false, reason: "No such company" };
    return { found: true, name, industry: text(answer.source.INDUSTRY_LINKEDIN_ORG) };
  } catch (error) {
    // 422: the service does not know this company (or the value is not a domain / id at all).
    if (error instanceof ApiError && error.status === 422) return { found: false, reason: "No such company" };
    throw error;
  }
}

export const companyLookupQueryOptions = (ref: CompanyRef) =>
  queryOptions({
    queryKey: companyLookupQueryKey(ref),
    queryFn: ({ signal }) => lookupCompany(ref, { signal }),
    staleTime: COMPANY_LOOKUP_STALE_MS,
  });

/** Looks `ref` up once it is non-empty (pass an already debounced value). */
export function useCompanyLookup(ref: CompanyRef | null) {
  const fallback: CompanyRef = { by: "domain", domain: "" };
  return useQuery({ ...companyLookupQueryOptions(ref ?? fallback), enabled: ref !== null });
}

/** The company a lookalike names, as its row looks it up; null while it names none. */
function refOf(node: LookalikeNode): CompanyRef | null {
  const domain = node.domain?.trim() ?? "";
  const rbidOrg = node.rbidOrg?.trim() ?? "";
  if (domain !== "") return { by: "domain", domain };
  if (rbidOrg !== "") return { by: "rbidOrg", rbidOrg };
  return null;
}

/** The company each lookalike of the tree names. */
function lookalikeRefs(node: FilterNode, refs: CompanyRef[] = []): CompanyRef[] {
  if (node.type === "group") for (const child of node.children) lookalikeRefs(child, refs);
  else if (node.type === "lookalike") {
    const ref = refOf(node);
    if (ref) refs.push(ref);
  }
  return refs;
}

/** The names of the companies the service has named so far, for plain-English summaries. */
export function useCompanyNames(): CompanyNames {
  const client = useQueryClient();
  return (node) => {
    const ref = refOf(node);
    const lookup = ref ? client.getQueryData<CompanyLookup>(companyLookupQueryKey(ref)) : undefined;
    return lookup?.found ? lookup.name : undefined;
  };
}

/**
 * Whether some lookalike of `tree` names a company not looked up yet (its row asks, once typing
 * pauses): known at once, in the render that changed the tree, from the lookups' cache, which this
 * follows without asking anything itself.
 */
export function useCompaniesBeingLookedUp(tree: GroupNode): boolean {
  const refs = useMemo(() => lookalikeRefs(tree), [tree]);
  const lookups = useQueries({
    queries: refs.map((ref) => ({ ...companyLookupQueryOptions(ref), enabled: false })),
  });
  return lookups.some((lookup) => lookup.data === undefined && !lookup.isError);
}
