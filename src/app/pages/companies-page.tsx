import { useMemo, useState } from "react";
import { describeNode } from "../../contract/describe";
import type { GroupNode } from "../../contract/filter";
import { useLiveCount } from "../features/audience/count";
import { ColumnValuesBrowser } from "../features/companies/column-values-browser";
import { CompanyCountCard } from "../features/companies/company-count-card";
import { LookalikeFinder } from "../features/companies/lookalike-finder";
import { nodeAt } from "../lib/filter/tree";
import { firstProblem, toRequestFilter, validateTree } from "../lib/filter/validate";
import { browserStorage } from "../lib/store";
import { loadInitialTree } from "../lib/working-tree";
import { Page } from "../ui/page";

/**
 * Company-level work on the audience being built: how many companies it spans, lookalikes of a
 * company (any of which can become a rule of the audience), and the values of company fields. The
 * working tree is read once, as the Builder would open it (URL, else this device's storage).
 */
export function CompaniesPage() {
  const [initial] = useState(() => loadInitialTree(window.location, browserStorage()));
  const tree = initial.tree;
  const filter: GroupNode = useMemo(() => toRequestFilter(tree), [tree]);
  const blockedBy = useMemo(() => {
    const problem = firstProblem(tree, validateTree(tree));
    if (!problem) return undefined;
    const node = nodeAt(tree, problem.path);
    return node ? `${describeNode(node)}: ${problem.message}` : problem.message;
  }, [tree]);
  const valid = blockedBy === undefined;
  const people = useLiveCount(filter, valid);

  return (
    <Page
      title="Companies"
      lead="How many companies your audience spans, and which companies resemble one you know."
    >
      {initial.warning ? (
        <p className="notice-warning companies-notice" role="status">
          {initial.warning}
        </p>
      ) : null}
      <CompanyCountCard filter={filter} valid={valid} blockedBy={blockedBy} people={people.count} />
      <LookalikeFinder />
      <ColumnValuesBrowser />
    </Page>
  );
}
