import { useCallback, useId, useState, useSyncExternalStore } from "react";
import type { LookalikeNode, SemanticNode } from "../../../../contract/filter";
import { excludedBeside } from "../../../lib/filter/tree";
import { formatNumber } from "../../../lib/format";
import { readableError } from "../../../ui/status";
import { useDispatch } from "./editor-context";
import { reachColumn, useMatchReach } from "./use-match-reach";

/**
 * Panels left open, by node id: leaving a value out may wrap the match in a group (it then mounts
 * again), and the list must stay where the person was looking.
 */
const openPanels = new Set<string>();

/**
 * "See the titles it takes in": under a title or company match, the values it captures with how
 * many people each, most common first; "Leave out" puts one in a NOT condition beside the match
 * (one undoable step), and the list says which are left out.
 */
export function MatchReach({
  node,
  nodeId,
  name,
  enabled,
}: {
  node: SemanticNode | LookalikeNode;
  nodeId: string;
  name: string;
  enabled: boolean;
}) {
  const dispatch = useDispatch();
  const [open, setOpenState] = useState(() => openPanels.has(nodeId));
  const setOpen = (next: boolean) => {
    if (next) openPanels.add(nodeId);
    else openPanels.delete(nodeId);
    setOpenState(next);
  };
  const column = reachColumn(node);
  const leftKey = useSyncExternalStore(
    dispatch.subscribeTree,
    useCallback(
      () => excludedBeside(dispatch.getTree(), nodeId, column).join("\u0000"),
      [dispatch, nodeId, column],
    ),
  );
  const left = new Set(leftKey === "" ? [] : leftKey.split("\u0000").map((v) => v.toLowerCase()));
  const reach = useMatchReach(node, open && enabled);
  const listId = useId();
  const what = column === "JOB_TITLE_PER" ? "titles" : "companies";
  if (!enabled) return null;
  return (
    <div className="fe-reach">
      <button
        type="button"
        className="fe-link-button fe-reach-toggle"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen(!open)}
      >
        {open ? `Hide the ${what}` : `See the ${what} it takes in`}
      </button>
      {open ? (
        <div id={listId} className="fe-reach-body">
          {reach.isPending ? (
            <p className="fe-note">Looking…</p>
          ) : reach.isError ? (
            <p className="fe-note">{`Could not list them: ${readableError(reach.error)}`}</p>
          ) : !reach.data || reach.data.buckets.length === 0 ? (
            <p className="fe-note">It takes in no one.</p>
          ) : (
            <ul className="fe-reach-list" aria-label={`The ${what} ${name} takes in`}>
              {reach.data.buckets.map((bucket) => {
                const value = String(bucket.value ?? "");
                const out = left.has(value.toLowerCase());
                return (
                  <li key={value} data-left-out={out || undefined}>
                    <span className="fe-reach-value">{value || "(not given)"}</span>
                    <span className="fe-reach-count">{formatNumber(bucket.count)}</span>
                    {out ? (
                      <span className="fe-reach-out">Left out</span>
                    ) : (
                      <button
                        type="button"
                        className="fe-link-button"
                        aria-label={`Leave out ${value}`}
                        disabled={value === ""}
                        onClick={() => dispatch.exclude(nodeId, column, value)}
                      >
                        Leave out
                      </button>
                    )}
                  </li>
                );
              })}
              {reach.data.otherCount > 0 ? (
                <li className="fe-note">{`and ${formatNumber(reach.data.otherCount)} more people in other ${what}`}</li>
              ) : null}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}
