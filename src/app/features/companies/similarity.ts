import { MATCH_LEVEL_MAX_DISTANCE } from "../../../contract/inferred";

/**
 * A lookalike's cosine distance (0 = the same description, 2 = opposite) in words a marketer reads,
 * on the same steps as the match levels of a lookalike rule, so that "very similar" here is what a
 * rule at "similar" keeps.
 */
const STEPS: readonly { max: number; words: string }[] = [
  { max: MATCH_LEVEL_MAX_DISTANCE.same, words: "Nearly the same" },
  { max: MATCH_LEVEL_MAX_DISTANCE.similar, words: "Very similar" },
  { max: MATCH_LEVEL_MAX_DISTANCE.related, words: "Related" },
  { max: MATCH_LEVEL_MAX_DISTANCE.broad, words: "Broadly related" },
];

export function similarityWords(distance: number): string {
  if (!Number.isFinite(distance)) return "Unknown";
  return STEPS.find((step) => distance <= step.max)?.words ?? "Not much alike";
}

/**
 * A cosine distance as the similarity people read: `0.214835` -> "79% similar" (1 - distance, the
 * cosine, as a whole percentage; 0 for anything opposite). "—" when it is not a number.
 */
export function formatSimilarity(distance: number): string {
  if (!Number.isFinite(distance)) return "—";
  return `${Math.round(Math.max(0, Math.min(1, 1 - distance)) * 100)}% similar`;
}
