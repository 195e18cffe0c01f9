import type { z } from "zod";
import { PRICE } from "../../../../contract/inferred";
import type { responses } from "../../../../contract/operations";
import { call } from "../../../api/operations";
import { breakdown } from "../../../api/value-counts";
import { usePurchase } from "../../../lib/spend";

/**
 * Finding a lookalike's company by its name, two ways:
 * - free: the companies of the contact data whose name it is (an insights breakdown by company ID
 *   over `COMPANY_NAME_ORG is <name>`), the largest first;
 * - the service's organization resolve (`POST /api/v2/organization/resolve`), which knows companies
 *   beyond the contact data and costs a credit: a journalled spend, sent only by an explicit click.
 */
export type ResolvedCompanies = z.infer<typeof responses.organizations>;

/** What one search by name costs (the sandbox's price; the real service's public docs say the same). */
export const RESOLVE_PRICE = PRICE.perResolve;
/** How many candidates a search asks for. */
export const RESOLVE_RESULTS = 5;

/** The ids of the companies in the contact data named `name` (any case), most people first. */
export async function companyIdsNamed(name: string, signal?: AbortSignal): Promise<string[]> {
  const companies = await breakdown(
    "RBID_ORG",
    {
      type: "group",
      op: "AND",
      children: [{ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: name }],
    },
    signal,
  );
  return companies.map((company) => company.value);
}

/** A search by name as a journalled spend (lib/spend.ts): a retry after a dropped answer is charged once. */
export function useResolveCompanySpend() {
  return usePurchase<ResolvedCompanies>({
    kind: "resolveCompany",
    send: (body, idempotencyKey) =>
      call("organizationResolve", {
        body: body as { company_name: string; result_count: number },
        idempotencyKey,
      }),
  });
}
