import { canonicalFilter } from "../../../contract/canonical";
import type { GroupNode } from "../../../contract/filter";

/**
 * Exactly the rows picked in the sample, and only while they are still in the audience: the
 * selection becomes `RBID_PAO in [...]`, ANDed with the audience. What was picked is what is paid for.
 */
export function selectionFilter(audience: GroupNode, ids: readonly string[]): GroupNode {
  const picked = {
    type: "condition" as const,
    column: "RBID_PAO",
    operator: "in" as const,
    valueList: [...ids],
  };
  const base = canonicalFilter(audience);
  const everyone = base.children.length === 0 && !base.negate;
  return canonicalFilter({
    type: "group",
    op: "AND",
    negate: false,
    children: everyone ? [picked] : [base, picked],
  });
}
