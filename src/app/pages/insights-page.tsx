import { useCallback, useMemo, useState } from "react";
import { Link, useLocation } from "wouter";
import { describe, describeNode } from "../../contract/describe";
import type { GroupNode } from "../../contract/filter";
import type { AddCondition } from "../features/insights/buckets";
import { InsightsPanel } from "../features/insights/insights-panel";
import { andAtTop, isEmptyTree, nodeAt, valueCondition } from "../lib/filter/tree";
import { firstProblem, toRequestFilter, validateTree } from "../lib/filter/validate";
import { browserStorage } from "../lib/store";
import { loadInitialTree, searchWithTreeParam, urlParamFor, writeWorkingTree } from "../lib/working-tree";
import { Page } from "../ui/page";
import "./insights-page.css";

/**
 * Insights of the working audience (the one the Builder edits, from the link or this device), full
 * width. A value picked here is ANDed to that audience, the same way the Builder's panel does it,
 * and the Builder opens with it, so the person sees the rule and the new count.
 */
export function InsightsPage() {
  const [initial] = useState(() => loadInitialTree(window.location, browserStorage()));
  const [, navigate] = useLocation();
  const tree = initial.tree;
  const filter: GroupNode = useMemo(() => toRequestFilter(tree), [tree]);
  const blocking = useMemo(() => firstProblem(tree, validateTree(tree)), [tree]);
  const blockedBy = useMemo(() => {
    if (!blocking) return undefined;
    const node = nodeAt(tree, blocking.path);
    return node ? `${describeNode(node)}: ${blocking.message}` : blocking.message;
  }, [blocking, tree]);

  const addCondition = useCallback<AddCondition>(
    (column, value) => {
      const result = andAtTop(tree, valueCondition(column, value));
      if (!result.ok) return { ok: false, error: result.error };
      const { param } = urlParamFor(result.tree);
      const storage = browserStorage();
      let stored = false;
      try {
        if (storage) {
          writeWorkingTree(storage, result.tree, param);
          stored = true;
        }
      } catch {
        stored = false;
      }
      // The link carries the tree when storage cannot; when neither can, say so and stay.
      if (!stored && param === null)
        return {
          ok: false,
          error: "this browser would not keep the audience, and it is too large for a link.",
        };
      navigate(`/${searchWithTreeParam("", param)}`);
      return { ok: true, changed: result.tree !== tree };
    },
    [tree, navigate],
  );

  return (
    <Page title="Insights" lead="See who is in your audience before you buy it.">
      {initial.warning ? (
        <p className="insights-page-notice" role="status">
          {initial.warning}
        </p>
      ) : null}
      <section className="card insights-page-audience" aria-labelledby="insights-audience-title">
        <h2 className="card-title" id="insights-audience-title">
          Your working audience
        </h2>
        <p>
          {isEmptyTree(tree)
            ? "Everyone in the data: no rules yet. Add rules in the Builder, or pick a value below to start."
            : describe(filter)}
        </p>
        <p>
          <Link href="/">Edit it in the Builder</Link>
        </p>
      </section>
      <InsightsPanel
        filter={filter}
        valid={blocking === undefined}
        blockedBy={blockedBy}
        countSettled
        onAddCondition={addCondition}
        variant="page"
        addHint="Select a value to add it as a condition: the Builder opens with the narrower audience."
      />
    </Page>
  );
}
