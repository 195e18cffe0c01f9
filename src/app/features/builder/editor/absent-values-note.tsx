import { formatNumber } from "../../../lib/format";
import type { AbsentInRule, AbsentValue } from "./use-values-that-exist";

/** Absent values beyond this many are named in one line, without nearest values. */
const EXPLAINED_SHOWN = 3;
const NAMED_MAX = 10;

/**
 * "UK: no one. United Kingdom?" under a value field: each typed value that matches nobody, with
 * the existing values it probably meant as buttons that put one in its place. A warning, not an
 * error: the audience is still counted (it simply gains no one from that value).
 */
export function AbsentValuesNote({
  id,
  absent,
  onUse,
}: {
  id: string;
  absent: readonly AbsentValue[];
  onUse: (typed: string, existing: string) => void;
}) {
  const explained = absent.slice(0, EXPLAINED_SHOWN);
  const rest = absent.slice(EXPLAINED_SHOWN);
  return (
    <ul className="fe-absent" id={id} aria-live="polite">
      {explained.map(({ value, nearest }) => (
        <li key={value}>
          <span>
            <q>{value}</q>: no one.
          </span>
          {nearest.map((candidate) => (
            <button
              type="button"
              key={candidate.value}
              className="fe-link-button"
              title={`${formatNumber(candidate.count)} people. Use it instead of “${value}”.`}
              onClick={() => onUse(value, candidate.value)}
            >
              {`${candidate.value}?`}
            </button>
          ))}
        </li>
      ))}
      {rest.length > 0 ? (
        <li>
          {`${formatNumber(rest.length)} more match no one: ${rest
            .slice(0, NAMED_MAX)
            .map((a) => a.value)
            .join(", ")}${rest.length > NAMED_MAX ? "…" : ""}`}
        </li>
      ) : null}
    </ul>
  );
}

/** Values named beside the count before "and N more". */
const BESIDE_COUNT_NAMED = 2;

/**
 * What typed values that match no one do to the count, in words beside it: "“UK” matches no one;
 * counted without it." (a list gains no one from it), "“Germny” matches no one, so its rule keeps
 * nobody." (a rule's one value). Undefined when every value matches someone.
 */
export function absentWords(absent: readonly AbsentInRule[]): string | undefined {
  const sentences: string[] = [];
  const ends = {
    list: (n: number) => `; counted without ${n === 1 ? "it" : "them"}.`,
    eq: (n: number) => `, so ${n === 1 ? "its rule keeps" : "their rules keep"} nobody.`,
    ne: (n: number) => `, so ${n === 1 ? "its rule leaves" : "their rules leave"} everyone in.`,
  };
  for (const reads of ["list", "eq", "ne"] as const) {
    const values = absent.filter((a) => a.reads === reads).flatMap((a) => a.values);
    if (values.length === 0) continue;
    const named = values.slice(0, BESIDE_COUNT_NAMED).map((v) => `“${v}”`);
    const rest = values.length - named.length;
    const list =
      rest > 0
        ? `${named.join(", ")} and ${formatNumber(rest)} more`
        : named.length === 2
          ? `${named[0]} and ${named[1]}`
          : named[0];
    sentences.push(
      `${list} ${values.length === 1 ? "matches" : "match"} no one${ends[reads](values.length)}`,
    );
  }
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}
