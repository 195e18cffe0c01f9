import {
  type ReactNode,
  useCallback,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
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
 * The value just left out or put back, by node id: its button gives way to another (and the match
 * may mount again in a new group), so focus goes on to the next value still to be left out, or,
 * for a value put back, to its own "Leave out".
 */
const focusAfterLeavingOut = new Map<string, { value: string; here: boolean }>();

/** The button of the item of `value` (`here`) or the next one after it (round the list), else null. */
function nextButton(list: HTMLElement, value: string, here: boolean): HTMLButtonElement | null {
  const items = [...list.querySelectorAll<HTMLLIElement>("li")];
  const at = items.findIndex((item) => item.dataset.value === value);
  const order = [...items.slice(here ? at : at + 1), ...items.slice(0, Math.max(at, 0))];
  for (const item of order) {
    const button = item.querySelector<HTMLButtonElement>("button:not(:disabled)");
    if (button) return button;
  }
  return null;
}

/**
 * "See the titles it takes in": a small list button in a title or company match's line, and under the
 * rule, once opened, the values it captures with how many people each, most common first; "Leave
 * out" puts one in a NOT condition beside the match (one undoable step), and the list says which
 * are left out. The button waits, disabled, while the rule is unfinished or negated.
 */
export function useMatchReachPanel({
  node,
  nodeId,
  name,
  enabled,
}: {
  node: SemanticNode | LookalikeNode;
  nodeId: string;
  name: string;
  enabled: boolean;
}): { toggle: ReactNode; panel: ReactNode } {
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
  const shown = open && enabled;
  const reach = useMatchReach(node, shown);
  const listId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    const wanted = focusAfterLeavingOut.get(nodeId);
    if (wanted === undefined || !listRef.current) return;
    focusAfterLeavingOut.delete(nodeId);
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    (nextButton(listRef.current, wanted.value, wanted.here) ?? toggleRef.current)?.focus();
  });
  const what = column === "JOB_TITLE_PER" ? "titles" : "companies";
  const toggle = (
    <button
      ref={toggleRef}
      type="button"
      className="fe-reach-toggle"
      aria-label={`See the ${what} it takes in`}
      aria-expanded={shown}
      aria-controls={shown ? listId : undefined}
      disabled={!enabled}
      title={
        enabled
          ? `See the ${what} it takes in, with their people`
          : node.negate
            ? `A NOT rule takes in no ${what}`
            : `Finish the rule to see the ${what} it takes in`
      }
      data-field="reach"
      onClick={() => setOpen(!open)}
    >
      {/* A list, opening under the rule: the line has no room for words beside a lookalike's. */}
      <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
        <path
          d="M2 4h1.5M6 4h8M2 8h1.5M6 8h8M2 12h1.5M6 12h8"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinecap="round"
        />
      </svg>
    </button>
  );
  const panel = shown ? (
    <div id={listId} className="fe-reach-body">
      {reach.isPending ? (
        <p className="fe-note">Looking…</p>
      ) : reach.isError ? (
        <p className="fe-note">{`Could not list them: ${readableError(reach.error)}`}</p>
      ) : !reach.data || reach.data.buckets.length === 0 ? (
        <p className="fe-note">It takes in no one.</p>
      ) : (
        <ul ref={listRef} className="fe-reach-list" aria-label={`The ${what} ${name} takes in`}>
          {reach.data.buckets.map((bucket) => {
            const value = String(bucket.value ?? "");
            const out = left.has(value.toLowerCase());
            return (
              <li key={value} data-value={value} data-left-out={out || undefined}>
                <span className="fe-reach-value">{value || "(not given)"}</span>
                <span className="fe-reach-count">{formatNumber(bucket.count)}</span>
                {out ? (
                  <span className="fe-reach-out">
                    Left out{" "}
                    <button
                      type="button"
                      className="fe-link-button"
                      aria-label={`Put back ${value}`}
                      onClick={() => {
                        focusAfterLeavingOut.set(nodeId, { value, here: true });
                        dispatch.include(nodeId, column, value);
                      }}
                    >
                      Put back
                    </button>
                  </span>
                ) : (
                  <button
                    type="button"
                    className="fe-link-button"
                    aria-label={`Leave out ${value}`}
                    disabled={value === ""}
                    onClick={() => {
                      focusAfterLeavingOut.set(nodeId, { value, here: false });
                      dispatch.exclude(nodeId, column, value);
                    }}
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
  ) : null;
  return { toggle, panel };
}
