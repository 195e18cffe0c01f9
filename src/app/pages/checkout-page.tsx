import { useMemo, useState } from "react";
import { describe, describeNode } from "../../contract/describe";
import type { GroupNode } from "../../contract/filter";
import { useLiveCount } from "../features/audience/count";
import { AudienceSummary } from "../features/checkout/audience-summary";
import { CheckoutRoleNotice, CheckoutWorkspace } from "../features/checkout/checkout-workspace";
import { nodeAt } from "../lib/filter/tree";
import { firstProblem, toRequestFilter, validateTree } from "../lib/filter/validate";
import { openAudienceFor, useOpenAudience } from "../lib/open-audience";
import { useReopenRemembered } from "../lib/remembered-audience";
import { useSelection, useSelectionAudience } from "../lib/selection";
import { useCheckedSelection } from "../lib/selection-check";
import { browserStorage } from "../lib/store";
import { loadInitialTree } from "../lib/working-tree";
import { Page } from "../ui/page";
import { readableError } from "../ui/status";

/**
 * Checkout: buy from the audience being built (the Builder's working tree, read from the URL or
 * this device) or from the people selected in its sample who are still in it. The page reads the
 * audience, its count and its checked selection; the checkout feature does the buying.
 */
export function CheckoutPage() {
  const [initial] = useState(() => loadInitialTree(window.location, browserStorage()));
  const tree = initial.tree;
  const filter: GroupNode = useMemo(() => toRequestFilter(tree), [tree]);
  const problems = useMemo(() => validateTree(tree), [tree]);
  const valid = problems.size === 0;
  const blockedBy = useMemo(() => {
    if (valid) return undefined;
    const problem = firstProblem(tree, problems);
    if (!problem) return undefined;
    const node = nodeAt(tree, problem.path);
    return node ? `${describeNode(node)}: ${problem.message}` : problem.message;
  }, [tree, problems, valid]);
  const description = useMemo(() => describe(filter), [filter]);
  const live = useLiveCount(filter, valid, { debounceMs: 0 });
  // A new window, or a new sign-in: the audience this person had open, if this tree is its own.
  useReopenRemembered(() => tree);
  const openAudience = useOpenAudience();
  const openState = openAudienceFor(openAudience, tree);
  // The ticks of this audience only, and of them only the people still in it are bought.
  const selection = useCheckedSelection(
    filter,
    valid,
    useSelection(useSelectionAudience(openAudience, tree)),
  );

  return (
    <Page
      title="Checkout"
      lead="Turn your audience into contact data you can use. Every price is shown before you confirm, and nothing is ever charged twice."
    >
      <CheckoutRoleNotice />
      {initial.warning ? (
        <p className="notice-warning checkout-warning" role="status">
          {initial.warning}
        </p>
      ) : null}
      {openState ? (
        <p className="notice-info checkout-open-audience">
          Buying from the saved audience <strong>{openState.open.name}</strong> (version{" "}
          {openState.open.version}
          {openState.unsaved ? ", with unsaved changes: what is shown below is what you will buy" : ""}).
        </p>
      ) : null}
      <AudienceSummary
        description={description}
        count={live.count}
        counting={live.isPending || live.isFetching}
        countError={live.error ? readableError(live.error) : null}
        selection={selection}
        valid={valid}
        blockedBy={blockedBy}
      />
      <CheckoutWorkspace
        filter={filter}
        valid={valid}
        description={description}
        count={live.count}
        selection={selection}
        audienceLabel={
          openState
            ? `${openState.open.name}, version ${openState.open.version}${openState.unsaved ? " with unsaved changes" : ""}`
            : null
        }
        audienceName={openState?.open.name ?? null}
      />
    </Page>
  );
}
