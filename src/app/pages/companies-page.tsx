import { useMemo, useState } from "react";
import { describeNode } from "../../contract/describe";
import type { GroupNode } from "../../contract/filter";
import { useLiveCount } from "../features/audience/count";
import { ColumnValuesBrowser } from "../features/companies/column-values-browser";
import { CompanyCountCard } from "../features/companies/company-count-card";
import { LookalikeFinder } from "../features/companies/lookalike-finder";
import { TargetAccounts } from "../features/companies/target-accounts";
import { useAddToAudience } from "../features/companies/use-add-to-audience";
import { nodeAt } from "../lib/filter/tree";
import { firstProblem, toRequestFilter, validateTree } from "../lib/filter/validate";
import { browserStorage } from "../lib/store";
import { loadInitialTree } from "../lib/working-tree";
import { Page } from "../ui/page";

/**
 * Company-level work on the audience being built: its companies with their people, a target-account
 * list checked against the data, lookalikes of a company, and the values of company fields; any of
 * them becomes a rule of the audience in one click, and the Builder opens with it. The working
 * tree is read once, as the Builder would open it (URL, else this device's storage).
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
  const { add, error } = useAddToAudience();

  return (
    <Page
      title="Companies"
      lead="The companies your audience spans, your target accounts, and companies like one you know: add any of them to the audience in one click."
    >
      {initial.warning ? (
        <p className="notice-warning companies-notice" role="status">
          {initial.warning}
        </p>
      ) : null}
      {error ? (
        <div className="alert" role="alert">
          <p>{error}</p>
        </div>
      ) : null}
      <CompanyCountCard
        filter={filter}
        valid={valid}
        blockedBy={blockedBy}
        people={people.count}
        onAdd={add}
      />
      <TargetAccounts onAdd={add} />
      <LookalikeFinder onAdd={add} />
      <ColumnValuesBrowser filter={filter} valid={valid} onAdd={add} />
    </Page>
  );
}
