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

/** `0.214835` -> `0.21`: two decimals are all the difference a person can use. */
export function formatDistance(distance: number): string {
  return Number.isFinite(distance) ? distance.toFixed(2) : "—";
}
