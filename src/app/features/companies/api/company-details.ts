import { queryOptions } from "@tanstack/react-query";
import pLimit from "p-limit";
import { call } from "../../../api/operations";
import { peopleOfCompanyNamed, valueKey } from "../../../api/value-counts";

/**
 * What the audience's company list shows of each company beside its name: its website domain,
 * industry and size, read from one free insights `fields` answer over the people of that company
 * name. Asked only for the companies on screen, two at a time (background priority: a count or a
 * sample goes first), and kept an hour: a company's facts change slowly, and the same company in
 * another audience costs nothing more.
 */
export const DETAIL_FIELDS = ["DOMAIN_ORG", "INDUSTRY_LINKEDIN_ORG", "EMPLOYEE_COUNT_RANGE_ORG"] as const;

/** One fact: the value, null when the data does not give it, or how many when the name is shared. */
export type CompanyFact = { value: string } | { several: number } | null;

export interface CompanyDetails {
  domain: CompanyFact;
  industry: CompanyFact;
  size: CompanyFact;
}

/** Several companies may share a name: a fact with more than one value says how many. */
function factOf(values: readonly { value: unknown }[] | undefined): CompanyFact {
  const given = (values ?? []).flatMap((v) =>
    typeof v.value === "string" && v.value !== "" ? [v.value] : [],
  );
  if (given.length === 0) return null;
  return given.length === 1 ? { value: given[0]! } : { several: given.length };
}

/** Shared by every row of every list: at most two of these questions are out at once. */
const twoAtATime = pLimit(2);

export async function fetchCompanyDetails(name: string, signal?: AbortSignal): Promise<CompanyDetails> {
  const answer = await twoAtATime(() => {
    signal?.throwIfAborted();
    return call("insights", {
      body: {
        section: "fields",
        fields: [...DETAIL_FIELDS],
        filter: peopleOfCompanyNamed(name),
      },
      ...(signal ? { signal } : {}),
    });
  });
  const fields = answer.section === "fields" ? answer.fields : {};
  return {
    domain: factOf(fields.DOMAIN_ORG),
    industry: factOf(fields.INDUSTRY_LINKEDIN_ORG),
    size: factOf(fields.EMPLOYEE_COUNT_RANGE_ORG),
  };
}

const HOUR = 60 * 60 * 1000;

export const companyDetailsQueryOptions = (name: string) =>
  queryOptions({
    queryKey: ["companies", "details", valueKey(name)] as const,
    queryFn: ({ signal }) => fetchCompanyDetails(name, signal),
    staleTime: HOUR,
    gcTime: HOUR,
  });
