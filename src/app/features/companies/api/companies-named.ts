import { useQuery } from "@tanstack/react-query";
import { companiesNamed, valueKey } from "../../../api/value-counts";

/**
 * The companies a lookalike search by name may mean: those of the contact data with that name (any
 * case), most people first, each by its website domain, or by its id when none has a domain (a
 * lookalike is asked for by one or the other). Free (insights breakdowns).
 */
export interface NamedCompany {
  by: "domain" | "rbidOrg";
  value: string;
  people: number;
}

export async function findCompaniesNamed(name: string, signal?: AbortSignal): Promise<NamedCompany[]> {
  const domains = await companiesNamed(name, "DOMAIN_ORG", signal);
  if (domains.length > 0)
    return domains.map((company) => ({ by: "domain", value: company.value, people: company.count }));
  const ids = await companiesNamed(name, "RBID_ORG", signal);
  return ids.map((company) => ({ by: "rbidOrg", value: company.value, people: company.count }));
}

/** The companies named `name` (nothing is asked while it is null); ten minutes fresh, as lookalikes. */
export function useCompaniesNamed(name: string | null) {
  return useQuery({
    queryKey: ["companies", "named", valueKey(name ?? "")] as const,
    queryFn: ({ signal }) => findCompaniesNamed(name ?? "", signal),
    enabled: name !== null,
    staleTime: 10 * 60_000,
  });
}
