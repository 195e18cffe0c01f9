import type { ReactNode } from "react";
import type { GroupNode } from "../../../contract/filter";
import { formatNumber } from "../../lib/format";
import { Spinner } from "../../ui/spinner";
import { readableError } from "../../ui/status";
import { useLiveCount } from "./count";
import "./count-badge.css";

/** The audience every component of this feature takes (the builder owns the tree). */
export interface AudienceProps {
  /** The filter tree, as the builder holds it. */
  filter: GroupNode;
  /** False while any node is incomplete: nothing is sent for an invalid tree. */
  valid: boolean;
  /** A readable reason naming the node that blocks sending, e.g. "Fix 'Job level': choose a value". */
  blockedBy?: string | undefined;
}

export const DEFAULT_BLOCKED_REASON = "Finish the filter to see how many people it keeps.";

/** `12345` -> `12,345 people`; `1` -> `1 person`. */
export function formatPeople(count: number): string {
  return `${formatNumber(count)} ${count === 1 ? "person" : "people"}`;
}

/**
 * The live count of the audience: the exact number, dimmed with a spinner while a newer count
 * loads, "—" with the reason while the tree is incomplete, a readable error with a retry.
 */
export function CountBadge({
  filter,
  valid,
  blockedBy,
  debounceMs,
  leftOut,
}: AudienceProps & {
  debounceMs?: number;
  /** What of the audience the count leaves out while it is being edited, in words. */
  leftOut?: string | undefined;
}) {
  const live = useLiveCount(filter, valid, debounceMs === undefined ? {} : { debounceMs });
  let body: ReactNode;
  let state: string;
  if (!valid) {
    state = "blocked";
    body = (
      <>
        <span className="count-badge-number" aria-hidden="true">
          —
        </span>
        <span className="visually-hidden">No count yet. </span>
        <span className="count-badge-reason">{blockedBy ?? DEFAULT_BLOCKED_REASON}</span>
      </>
    );
  } else if (live.error) {
    state = "error";
    body = (
      <>
        <span className="count-badge-error">The count could not be loaded. {readableError(live.error)}</span>
        <button type="button" className="button button-secondary count-badge-retry" onClick={live.retry}>
          Try again
        </button>
      </>
    );
  } else if (live.count === null) {
    state = "loading";
    body = (
      <>
        <Spinner />
        <span className="count-badge-reason">Counting…</span>
      </>
    );
  } else {
    state = live.isStale ? "stale" : "ready";
    body = (
      <>
        <span className="count-badge-value">
          {live.mode === "fast" ? <span title="Approximate">≈ </span> : null}
          <span className="count-badge-number">{formatNumber(live.count)}</span>{" "}
          {live.count === 1 ? "person" : "people"}
        </span>
        {live.isStale ? (
          <span className="count-badge-updating">
            <Spinner />
            <span className="visually-hidden">Updating the count…</span>
          </span>
        ) : null}
      </>
    );
  }
  return (
    <div
      className="count-badge"
      data-state={state}
      role="status"
      aria-live="polite"
      aria-atomic="true"
      aria-busy={state === "stale" || state === "loading"}
    >
      <span className="count-badge-label">Audience</span>
      {body}
      {valid && leftOut ? (
        <span className="count-badge-left-out" data-testid="count-left-out">
          {leftOut}
        </span>
      ) : null}
    </div>
  );
}
