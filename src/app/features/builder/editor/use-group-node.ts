import { useCallback, useMemo } from "react";
import type { FilterNode, GroupNode, JoinOp } from "../../../../contract/filter";
import { useCollapsed, useDispatch } from "./editor-context";

/**
 * The ids of a group's children as one array that keeps its identity while they are the same ids
 * in the same order: dnd-kit's SortableContext re-renders every item when `items` changes, so a
 * keystroke in one child (which copies the children array) must not hand it a new one.
 */
export function useStableIds(children: readonly FilterNode[]): string[] {
  const key = children.map((child) => child.id ?? "").join("\u0000");
  return useMemo(() => (key === "" ? [] : key.split("\u0000")), [key]);
}

/** Everything a group does, apart from how it looks. */
export function useGroupNode(node: GroupNode) {
  const dispatch = useDispatch();
  const id = node.id ?? "";
  const collapsed = useCollapsed(id);
  const childIds = useStableIds(node.children);
  const setOp = useCallback((op: JoinOp) => dispatch.setGroupOp(id, op), [dispatch, id]);
  const toggleNot = useCallback(() => dispatch.run("negate", id), [dispatch, id]);
  const toggleCollapse = useCallback(() => dispatch.toggleCollapse(id), [dispatch, id]);
  return { id, collapsed, childIds, setOp, toggleNot, toggleCollapse };
}
