import { createContext, type ReactNode, useCallback, useContext, useSyncExternalStore } from "react";
import type { FilterNode, JoinOp } from "../../../../contract/filter";
import type { KeyedStore } from "./keyed-store";
import type { EditorDispatch } from "./use-filter-editor";

/**
 * What every node component reads from context. Each value is stable for the life of the editor,
 * so reading it never re-renders a node; per-node state (problems, collapsed, drop indicator) comes
 * from keyed stores, one subscription per node.
 */
export const DispatchContext = createContext<EditorDispatch | null>(null);

export function useDispatch(): EditorDispatch {
  const dispatch = useContext(DispatchContext);
  if (!dispatch) throw new Error("editor node rendered outside <FilterEditor>");
  return dispatch;
}

/** Droppable id prefix of a group's body (a drop there lands at the end of the group). */
export const BODY_PREFIX = "body:";

/** Where a dragged node would land: before / after a node, or at the end of a group. */
export type DropSpot = "before" | "after" | "inside";
export const DropContext = createContext<KeyedStore<DropSpot> | null>(null);

/** Extra content the page shows beside each node (a per-node count, ...). */
export interface NodeAsideContext {
  id: string;
  /** The node's validation reasons, or undefined when it is complete. */
  problems: readonly string[] | undefined;
}
export type RenderNodeAside = (node: FilterNode, context: NodeAsideContext) => ReactNode;
export const AsideContext = createContext<RenderNodeAside | null>(null);

/**
 * The AND / OR of the group around a node, for the connectors between its items. Read from
 * context rather than passed to every item, so that switching a group's operator re-renders its
 * connectors, not all of its items (each with its drag and drop hooks).
 */
export const GroupOpContext = createContext<JoinOp>("AND");

/** Key hints in the platform's spelling. */
export const PlatformContext = createContext<{ mac: boolean }>({ mac: false });

const NO_PROBLEMS: readonly string[] | undefined = undefined;

function useKeyed<V>(store: KeyedStore<V> | null, id: string): V | undefined {
  const subscribe = useCallback(
    (listener: () => void) => (store ? store.subscribe(id, listener) : () => {}),
    [store, id],
  );
  const get = useCallback(() => (store ? store.get(id) : undefined), [store, id]);
  return useSyncExternalStore(subscribe, get, get);
}

export function useNodeProblems(id: string): readonly string[] | undefined {
  return useKeyed(useDispatch().problems, id) ?? NO_PROBLEMS;
}

export function useCollapsed(id: string): boolean {
  return useKeyed(useDispatch().collapsed, id) === true;
}

export function useDropSpot(id: string): DropSpot | undefined {
  return useKeyed(useContext(DropContext), id);
}

/**
 * Which kind of control had focus when a command ran ("value", "menu", "handle"...), so that focus
 * lands on the same control of the node once it has moved (or on its successor once it is gone).
 */
export const FocusMemoryContext = createContext<{ current: string | null }>({ current: null });
