import { useQueries, useQuery } from "@tanstack/react-query";
import { canonicalFilter } from "../../../../contract/canonical";
import type { LookalikeNode, SemanticNode } from "../../../../contract/filter";
import { MATCH_LEVELS, type MatchLevel } from "../../../../contract/inferred";
import { countQueryOptions, nodeAsFilter } from "../../../api/count";
import { call } from "../../../api/operations";
import { useDebouncedValue } from "../../../lib/use-debounced-value";

/** A match settles this long after typing before its levels are counted. */
const MATCH_SETTLE_MS = 400;

type MatchNode = SemanticNode | LookalikeNode;

/** The match alone at `level`, as it would count: NOT and a custom distance set aside. */
function atLevel(node: MatchNode, level: MatchLevel): MatchNode {
  return { ...node, match: level, maxDistance: undefined, negate: false, joinWithPrevious: null };
}

/**
 * How many people the match would keep at each level (free counts, shared with every other count
 * of the same tree), once its text has settled. Nothing is asked while the row has a problem.
 */
export function useLevelCounts(node: MatchNode, enabled: boolean): Partial<Record<MatchLevel, number>> {
  const settled = useDebouncedValue(node, MATCH_SETTLE_MS);
  const ready = enabled && settled === node;
  const results = useQueries({
    queries: MATCH_LEVELS.map((level) => ({
      ...countQueryOptions(nodeAsFilter(atLevel(settled, level))),
      enabled: ready,
    })),
  });
  const counts: Partial<Record<MatchLevel, number>> = {};
  // An unfinished rule (or an unknown company) has no counts: not those its last text had.
  if (!enabled) return counts;
  MATCH_LEVELS.forEach((level, i) => {
    const count = results[i]?.data?.count;
    if (count !== undefined) counts[level] = count;
  });
  return counts;
}

/** The column whose values a match takes in: titles for a title match, companies for the rest. */
export function reachColumn(node: MatchNode): string {
  return node.type === "semantic" && node.on === "title" ? "JOB_TITLE_PER" : "COMPANY_NAME_ORG";
}

/**
 * The values (titles, companies) the match takes in, the most common first, with how many people
 * each: the insights breakdown of the match alone (free). Asked only when shown.
 */
export function useMatchReach(node: MatchNode, enabled: boolean) {
  const column = reachColumn(node);
  const filter = canonicalFilter(nodeAsFilter({ ...node, negate: false, joinWithPrevious: null }));
  return useQuery({
    queryKey: ["match-reach", column, JSON.stringify(filter)] as const,
    queryFn: async ({ signal }) => {
      const answer = await call("insights", {
        body: { section: "breakdown", groupField: column, filter },
        signal,
      });
      return answer.section === "breakdown" ? answer : null;
    },
    enabled,
    staleTime: 60_000,
  });
}
