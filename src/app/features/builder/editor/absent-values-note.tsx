import { formatNumber } from "../../../lib/format";
import type { AbsentValue } from "./use-values-that-exist";

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
