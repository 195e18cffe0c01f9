/**
 * Which existing values a typed one probably meant ("UK" -> "United Kingdom", "Germny" ->
 * "Germany"), ranked: initials first (people type country and company abbreviations), then a
 * shared start, then spelling distance. Pure, so the builder's "no one. United Kingdom?" is
 * testable without a server.
 */

function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .trim();
}

function words(text: string): string[] {
  return fold(text)
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "" && w !== "of" && w !== "the" && w !== "and");
}

/** Damerau-Levenshtein distance (adjacent swaps count once), for short texts. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/** A score in [0, 1] of how likely `candidate` is what `typed` meant; 0 when it is unlikely. */
export function closeness(typed: string, candidate: string): number {
  const t = fold(typed);
  const c = fold(candidate);
  if (t === "" || c === "" || t === c) return 0;
  const compact = t.replace(/[^a-z0-9]/g, "");
  const initials = words(candidate)
    .map((w) => w[0])
    .join("");
  if (compact.length >= 2 && initials.length >= 2 && (initials === compact || initials.startsWith(compact)))
    return initials === compact ? 1 : 0.9;
  if (compact.length >= 3 && c.startsWith(t)) return 0.85;
  if (compact.length >= 3 && c.includes(t)) return 0.75;
  const distance = editDistance(t, c);
  const allowed = Math.max(1, Math.floor(Math.max(t.length, c.length) / 4));
  if (distance > allowed) return 0;
  return 0.7 * (1 - distance / (allowed + 1));
}

/** Up to `max` candidates the typed text probably meant, best first (ties: the more common first). */
export function nearestValues(
  typed: string,
  candidates: readonly { value: string; count: number }[],
  max = 2,
): { value: string; count: number }[] {
  const seen = new Set<string>();
  return candidates
    .filter((candidate) => {
      const key = fold(candidate.value);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((candidate) => ({ candidate, score: closeness(typed, candidate.value) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || b.candidate.count - a.candidate.count)
    .slice(0, max)
    .map((entry) => entry.candidate);
}
