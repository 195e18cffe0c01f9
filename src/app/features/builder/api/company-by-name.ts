import type { z } from "zod";
import { PRICE } from "../../../../contract/inferred";
import type { responses } from "../../../../contract/operations";
import { call } from "../../../api/operations";
import { usePurchase } from "../../../lib/spend";

/**
 * Finding a lookalike's company by its name, two ways:
 * - free: the companies of the contact data whose name it is (`companiesNamed`, api/value-counts.ts),
 *   the largest first;
 * - the service's organization resolve (`POST /api/v2/organization/resolve`), which knows companies
 *   beyond the contact data and costs a credit: a journalled spend, sent only by an explicit click.
 */
export type ResolvedCompanies = z.infer<typeof responses.organizations>;

/** What one search by name costs (the sandbox's price; the real service's public docs say the same). */
export const RESOLVE_PRICE = PRICE.perResolve;
/** How many candidates a search asks for. */
export const RESOLVE_RESULTS = 5;

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
