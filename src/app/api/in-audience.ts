import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { canonicalKey } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import { idsInAudience, withinIds } from "../../contract/in-audience";
import { VIEW_LIMIT } from "../../contract/inferred";
import { countQueryOptions } from "./count";
import { call } from "./operations";

/**
 * Which of some people are in an audience, with free calls only (never a credit): first a Count of
 * `audience AND RBID_PAO in [ids]` (the same request, and cache, as the Builder's count of its
 * selection), which settles the usual cases (all still in, none); otherwise the contract's search
 * (`idsInAudience`: counts, halves, a View of `[RBID_PAO]` under 100 ids). A View spends one row of
 * the day's free sample budget per person it lists, not credits.
 */
export async function findInAudience(
  client: QueryClient,
  audience: GroupNode,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const count = async (filter: GroupNode) => {
    const answer = await client.fetchQuery(countQueryOptions(filter));
    // An approximate count cannot tell who is in: only an exact one settles a chunk.
    if (answer.mode !== "exact") throw new Error("The service answered an approximate count.");
    return answer.count;
  };
  const all = await count(withinIds(audience, ids));
  if (all === 0) return [];
  if (all >= ids.length) return [...ids];
  const { found, complete } = await idsInAudience(audience, ids, {
    count,
    list: async (filter) => {
      const answer = await call("view", { body: { filter, columns: ["RBID_PAO"], limit: VIEW_LIMIT.max } });
      return answer.rows.map((row) => row.RBID_PAO);
    },
  });
  if (!complete) throw new Error("Not everyone selected could be checked with the free calls allowed.");
  return found;
}

export const IN_AUDIENCE_QUERY_KEY = ["audience", "in-audience"] as const;

/**
 * Keyed by the audience's canonical form and the ids. Never refetched by itself (a View spends
 * the sample budget); a minute fresh, like the counts it is made of.
 */
export function inAudienceQueryOptions(audience: GroupNode, ids: readonly string[]) {
  return queryOptions({
    queryKey: [...IN_AUDIENCE_QUERY_KEY, canonicalKey(audience), [...ids].sort().join(",")] as const,
    queryFn: ({ client }) => findInAudience(client, audience, ids),
    staleTime: 60_000,
    gcTime: 10 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}
