import type { z } from "zod";
import { type Requests, responses } from "../../../../contract/operations";
import { postPurchase } from "./post-purchase";

/**
 * `POST /api/v2/contact/enrich`: full rows of chosen people, by id (`personIds`) or email, at most
 * ENRICH_MAX_ENTRIES a call. A spend: sent only through the purchase journal, with its key.
 */
export type EnrichBody = z.input<Requests["enrich"]>;
export type EnrichResult = z.infer<typeof responses.enrich>;

export function postEnrich(
  body: EnrichBody,
  idempotencyKey: string,
  audienceLabel?: string | null,
): Promise<EnrichResult> {
  return postPurchase("enrich", responses.enrich, body, idempotencyKey, audienceLabel);
}

/** The answers of consecutive calls as one: rows and notFound in order, charges added up. */
export function mergeEnrichResults(results: readonly EnrichResult[]): EnrichResult {
  const seen = new Set<string>();
  const rows: EnrichResult["rows"] = [];
  for (const result of results)
    for (const row of result.rows) {
      // The same person asked for in two calls (by id in one, by email in the other) is listed once.
      const id = typeof row.RBID_PAO === "string" ? row.RBID_PAO : null;
      if (id !== null && seen.has(id)) continue;
      if (id !== null) seen.add(id);
      rows.push(row);
    }
  return {
    rows,
    matched: results.reduce((sum, r) => sum + r.matched, 0),
    notFound: results.flatMap((r) => r.notFound),
    creditsCharged: results.reduce((sum, r) => sum + r.creditsCharged, 0),
    creditsRemaining: results.at(-1)?.creditsRemaining ?? 0,
  };
}
