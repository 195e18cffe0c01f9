import type { DraggableAttributes, DraggableSyntheticListeners } from "@dnd-kit/core";
import { memo, type ReactNode, useContext } from "react";
import type { FilterNode, JoinOp } from "../../../../contract/filter";
import { commandById, formatKey } from "../../../lib/filter/commands";
import {
  AsideContext,
  GroupOpContext,
  PlatformContext,
  useDispatch,
  useNodeProblems,
} from "./editor-context";
import { NodeActionsMenu } from "./node-actions-menu";
import { problemId, problemsByField } from "./problem-fields";

/** A command's first key, as this platform spells it ("Ctrl+I", "⌘I"), or "". */
export function useKeyHint(keys: readonly string[]): string {
  const { mac } = useContext(PlatformContext);
  const first = keys[0];
  return first ? formatKey(first, mac) : "";
}

/** What a row needs to render its drag handle (from `useSortable` in NodeItem). */
export interface HandleProps {
  setRef(element: HTMLElement | null): void;
  attributes: DraggableAttributes;
  listeners: DraggableSyntheticListeners;
}

/** The drag handle: a button, also the keyboard way to drag (Space, arrows, Space), see the instructions. */
export function DragHandle({ handle, name }: { handle: HandleProps; name: string }) {
  return (
    <button
      type="button"
      ref={handle.setRef}
      {...handle.attributes}
      {...handle.listeners}
      className="fe-handle"
      aria-label={`Move ${name}`}
      data-field="handle"
    >
      <svg viewBox="0 0 10 16" width="10" height="16" aria-hidden="true" focusable="false">
        {/* Six dots as one path: one element per row rather than six. */}
        <path d="M1.1 3a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0M6.1 3a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0M1.1 8a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0M6.1 8a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0M1.1 13a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0M6.1 13a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0" />
      </svg>
    </button>
  );
}

/** NOT on and off (the model wraps a condition in a negated group, and unwraps it again). */
export function NotToggle({ on, name, onToggle }: { on: boolean; name: string; onToggle(): void }) {
  const hint = useKeyHint(commandById("negate").keys);
  return (
    <button
      type="button"
      className="fe-not"
      aria-pressed={on}
      aria-label={`NOT: exclude what ${name} matches`}
      title={`NOT: match everyone this does not match${hint ? ` (${hint})` : ""}`}
      data-field="not"
      onClick={onToggle}
    >
      NOT
    </button>
  );
}

/**
 * The connector between a node and the sibling before it: "and" / "or", a button that switches it.
 * Marked when it overrides the group's operator (`joinWithPrevious`); switching it back to the
 * group's operator removes the override.
 */
export const Connector = memo(function Connector({
  nodeId,
  join,
  name,
}: {
  nodeId: string;
  join: JoinOp | null | undefined;
  name: string;
}) {
  const dispatch = useDispatch();
  const parentOp = useContext(GroupOpContext);
  const effective = join ?? parentOp;
  const override = effective !== parentOp;
  const next: JoinOp = effective === "AND" ? "OR" : "AND";
  return (
    <div className="fe-connector-row">
      <button
        type="button"
        className="fe-connector"
        data-op={effective}
        data-override={override || undefined}
        data-field="connector"
        data-connector-of={nodeId}
        aria-label={`${effective === "AND" ? "And" : "Or"} before ${name}${
          override ? ` (overrides the group's ${parentOp})` : ""
        }: press to use ${next}`}
        title={override ? `Overrides the group's ${parentOp}` : `Press to join with ${next}`}
        onClick={() => dispatch.setJoin(nodeId, next === parentOp ? null : next)}
      >
        {effective.toLowerCase()}
      </button>
    </div>
  );
});

/** The page's per-node extra (a count button, ...), if it gave one. */
export function NodeAside({ node, nodeId }: { node: FilterNode; nodeId: string }) {
  const render = useContext(AsideContext);
  const problems = useNodeProblems(nodeId);
  if (!render) return null;
  return <div className="fe-aside">{render(node, { id: nodeId, problems })}</div>;
}

/** The tools that end every rule row: NOT, the page's aside (e.g. a per-node count), the actions menu. */
export function RowTools(props: {
  node: FilterNode;
  nodeId: string;
  name: string;
  negated: boolean;
  onToggleNot: () => void;
}) {
  return (
    <div className="fe-row-tools">
      <NotToggle on={props.negated} name={props.name} onToggle={props.onToggleNot} />
      <NodeAside node={props.node} nodeId={props.nodeId} />
      <NodeActionsMenu nodeId={props.nodeId} name={props.name} />
    </div>
  );
}

/** A rule's problems: all of them, and by the field each one is about. */
export function useRowProblems(node: FilterNode, nodeId: string) {
  const reasons = useNodeProblems(nodeId);
  return { reasons, problems: problemsByField(node, reasons) };
}

/**
 * The frame of every rule row: a group named for screen readers, pointing at its own problem when
 * it has one, marked while any field of it has one.
 */
export function RuleRow({
  kind,
  label,
  nodeId,
  nodeProblem,
  invalid,
  children,
}: {
  kind: "condition" | "semantic" | "lookalike";
  label: string;
  nodeId: string;
  /** The row as a whole has a problem (not only one of its fields). */
  nodeProblem: boolean;
  invalid: boolean;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of controls named for screen readers; a fieldset would need a legend and breaks the flex row
    <div
      className={`fe-row fe-${kind}`}
      role="group"
      aria-label={label}
      data-node-id={nodeId}
      aria-describedby={nodeProblem ? problemId(nodeId, "node") : undefined}
      data-invalid={invalid || undefined}
    >
      {children}
    </div>
  );
}
