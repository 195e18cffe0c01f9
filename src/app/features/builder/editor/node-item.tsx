import { useSortable } from "@dnd-kit/sortable";
import { memo, type ReactNode, useMemo } from "react";
import type { FilterNode } from "../../../../contract/filter";
import { ConditionRow } from "./condition-row";
import { useDropSpot } from "./editor-context";
import { GroupNodeView } from "./group-node";
import { LookalikeRow } from "./lookalike-row";
import { Connector, type HandleProps } from "./node-parts";
import { reportRender } from "./render-probe";
import { SemanticRow } from "./semantic-row";

/** How labels name a node: "condition 2.1", "group 3", "job title match 1"... */
export function nameOf(node: FilterNode, position: string): string {
  switch (node.type) {
    case "condition":
      return `condition ${position}`;
    case "group":
      return `group ${position}`;
    case "semantic":
      return `${node.on === "title" ? "job title match" : "company match"} ${position}`;
    case "lookalike":
      return `lookalike ${position}`;
  }
}

export interface NodeItemProps {
  node: FilterNode;
  index: number;
  /** "2.1": the node's place, in labels. */
  position: string;
  depth: number;
  /** The only item of a negated group (a condition's NOT shows on). */
  negated: boolean;
}

/**
 * One child of a group: a sortable list item holding the connector before it (from the second
 * child on), the drop indicator, and the node's own component. Memoized: it re-renders only when
 * its node (a new object only when something inside it changed), its place, or its drag state do
 * (the connector reads the group's AND / OR from GroupOpContext).
 */
export const NodeItem = memo(function NodeItem({ node, index, position, depth, negated }: NodeItemProps) {
  const id = node.id ?? "";
  reportRender("NodeItem", id);
  const sortable = useSortable({ id });
  const spot = useDropSpot(id);
  // The same object while dnd-kit's parts are: the item re-renders whenever its group's sortable
  // list changes (an item added, moved, removed), and its row then need not.
  const { setActivatorNodeRef, attributes, listeners } = sortable;
  const handle = useMemo<HandleProps>(
    () => ({ setRef: setActivatorNodeRef, attributes, listeners }),
    [setActivatorNodeRef, attributes, listeners],
  );
  let row: ReactNode;
  switch (node.type) {
    case "condition":
      row = <ConditionRow node={node} position={position} negated={negated} handle={handle} />;
      break;
    case "group":
      row = <GroupNodeView node={node} position={position} depth={depth} handle={handle} />;
      break;
    case "semantic":
      row = <SemanticRow node={node} position={position} handle={handle} />;
      break;
    case "lookalike":
      row = <LookalikeRow node={node} position={position} handle={handle} />;
      break;
  }
  return (
    <li
      ref={sortable.setNodeRef}
      className="fe-item"
      data-dragging={sortable.isDragging || undefined}
      data-drop={spot}
    >
      {index > 0 ? (
        <Connector nodeId={id} join={node.joinWithPrevious} name={nameOf(node, position)} />
      ) : (
        <span className="fe-connector-spacer" aria-hidden="true" />
      )}
      {row}
    </li>
  );
});
