import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { canonicalKey } from "../../../contract/canonical";
import type { FilterNode } from "../../../contract/filter";
import { nodeAsFilter, nodeCountQueryOptions } from "../../api/count";
import { formatNumber } from "../../lib/format";
import { Spinner } from "../../ui/spinner";
import { readableError } from "../../ui/status";
import "./node-count-button.css";

export interface NodeCountButtonProps {
  /** The node to count on its own (as the root's only child). */
  node: FilterNode;
  /** False while the node is incomplete: no button, the reason instead. */
  valid?: boolean;
  /** Why the node cannot be counted yet, e.g. "Choose a value". */
  blockedBy?: string | undefined;
}

/**
 * "How many does this keep?": counts one node on its own, on demand (a click), then shows the
 * number. A count already in the cache (same node counted before, or the same tree counted live)
 * is shown without a click. After the node changes, the button comes back.
 */
export function NodeCountButton({ node, valid = true, blockedBy }: NodeCountButtonProps) {
  const key = canonicalKey(nodeAsFilter(node));
  const [requested, setRequested] = useState<string | null>(null);
  const asked = requested === key;
  const query = useQuery({ ...nodeCountQueryOptions(node), enabled: valid && asked });

  if (!valid)
    return (
      <span className="node-count node-count-blocked">{blockedBy ?? "Complete this rule to count it."}</span>
    );

  const data = query.data;
  const loading = asked && query.isFetching;
  const failed = asked && query.isError && !loading;
  let content: ReactNode;
  let state: string;
  if (data) {
    state = loading ? "stale" : "ready";
    content = (
      <>
        <span className="node-count-number">{formatNumber(data.count)}</span>
        {/* The number alone keeps the rule on one line; the words are for screen readers. */}{" "}
        <span className="visually-hidden">
          {data.count === 1 ? "person matches" : "people match"} this rule on its own
        </span>
        {loading ? <Spinner /> : null}
      </>
    );
  } else if (loading) {
    state = "loading";
    content = (
      <>
        <Spinner /> Counting…
      </>
    );
  } else if (failed) {
    state = "error";
    content = "Count failed: try again";
  } else {
    state = "idle";
    // Short, to keep the rule on one line; said in full to screen readers and on hover.
    content = (
      <>
        <span aria-hidden="true">Count</span>
        <span className="visually-hidden">How many does this keep?</span>
      </>
    );
  }
  return (
    <span className="node-count" data-state={state}>
      {/* One button throughout, so that focus stays put while the answer arrives. */}
      <button
        type="button"
        className="button button-quiet node-count-button"
        title={
          state === "idle"
            ? "How many does this keep? (counts this rule on its own, free)"
            : data
              ? `${formatNumber(data.count)} ${data.count === 1 ? "person matches" : "people match"} this rule on its own`
              : undefined
        }
        aria-busy={loading}
        onClick={() => {
          if (loading) return;
          if (failed) void query.refetch();
          else setRequested(key);
        }}
      >
        {content}
      </button>
      <span className="visually-hidden" aria-live="polite">
        {data && !loading ? `${formatNumber(data.count)} ${data.count === 1 ? "person" : "people"}` : ""}
      </span>
      {failed ? (
        <span className="node-count-error" role="alert">
          {readableError(query.error)}
        </span>
      ) : null}
    </span>
  );
}
