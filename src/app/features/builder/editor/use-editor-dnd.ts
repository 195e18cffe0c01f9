import {
  type Announcements,
  type CollisionDetection,
  closestCenter,
  type DragEndEvent,
  type DragMoveEvent,
  type DragOverEvent,
  type DragStartEvent,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  type ScreenReaderInstructions,
  useSensor,
  useSensors,
} from "@dnd-kit/core";
import { sortableKeyboardCoordinates } from "@dnd-kit/sortable";
import { useCallback, useMemo, useRef, useState } from "react";
import { describeNode } from "../../../../contract/describe";
import type { GroupNode } from "../../../../contract/filter";
import { nodeAt, type Path, pathOfId, walk } from "../../../lib/filter/tree";
import { BODY_PREFIX, type DropSpot } from "./editor-context";
import { KeyedStore } from "./keyed-store";
import type { EditorDispatch } from "./use-filter-editor";

/** Where a drop would put the dragged node, and which indicator shows it. */
export interface DropTarget {
  /** Drop-store key of the indicator: a node id (before / after it) or a group body id (inside). */
  spotKey: string;
  spot: DropSpot;
  parentId: string;
  /** As `moveNode` counts it: among the group's children once the node has left its place. */
  index: number;
}

function isPrefix(prefix: Path, path: Path): boolean {
  return prefix.length <= path.length && prefix.every((index, i) => path[i] === index);
}

/**
 * The move a drop means: over a node, before or after it in its group; over a group's body (its
 * empty space or an empty group), at the end of that group. Null when the drop would change
 * nothing or would put a group inside itself.
 */
export function dropTarget(
  tree: GroupNode,
  activeId: string,
  overId: string,
  before: boolean,
): DropTarget | null {
  const activePath = pathOfId(tree, activeId);
  if (!activePath || activePath.length === 0) return null;
  const activeParent = activePath.slice(0, -1);
  const activeIndex = activePath[activePath.length - 1]!;
  if (overId.startsWith(BODY_PREFIX)) {
    const groupId = overId.slice(BODY_PREFIX.length);
    const path = pathOfId(tree, groupId);
    const group = path ? nodeAt(tree, path) : undefined;
    if (!path || group?.type !== "group" || isPrefix(activePath, path)) return null;
    const same = path.length === activeParent.length && isPrefix(activeParent, path);
    const index = group.children.length - (same ? 1 : 0);
    if (same && index === activeIndex) return null;
    return { spotKey: overId, spot: "inside", parentId: groupId, index };
  }
  if (overId === activeId) return null;
  const overPath = pathOfId(tree, overId);
  if (!overPath || overPath.length === 0 || isPrefix(activePath, overPath)) return null;
  const parentPath = overPath.slice(0, -1);
  const parent = nodeAt(tree, parentPath);
  if (parent?.type !== "group" || typeof parent.id !== "string") return null;
  let index = overPath[overPath.length - 1]! + (before ? 0 : 1);
  const same = parentPath.length === activeParent.length && isPrefix(activeParent, parentPath);
  if (same && activeIndex < index) index -= 1;
  if (same && index === activeIndex) return null;
  return { spotKey: overId, spot: before ? "before" : "after", parentId: parent.id, index };
}

/** Ids a node may not be dropped on: itself, its descendants, and their bodies. */
function blockedIds(tree: GroupNode, activeId: string): Set<string> {
  const blocked = new Set<string>();
  const path = pathOfId(tree, activeId);
  const node = path ? nodeAt(tree, path) : undefined;
  if (!node) return blocked;
  if (node.type === "group")
    walk(node, (inner) => {
      if (typeof inner.id === "string") {
        blocked.add(inner.id);
        blocked.add(`${BODY_PREFIX}${inner.id}`);
      }
    });
  blocked.add(activeId);
  return blocked;
}

const POINTER_OPTIONS = { activationConstraint: { distance: 4 } };
const KEYBOARD_OPTIONS = { coordinateGetter: sortableKeyboardCoordinates };

export const SCREEN_READER_INSTRUCTIONS: ScreenReaderInstructions = {
  draggable:
    "To move this item, press Space or Enter, use the arrow keys to choose where it goes, then press Space or Enter to drop it, or Escape to cancel. Without dragging: Alt+Up and Alt+Down move it within its group, Alt+Right puts it into the group above, Alt+Left takes it out of its group.",
};

type PositionedEvent = DragMoveEvent | DragOverEvent | DragEndEvent;

/** Whether the drop lands before the node it is over: by the pointer, or (keyboard) the dragged top. */
function landsBefore(event: PositionedEvent): boolean {
  const over = event.over?.rect;
  if (!over) return true;
  const middle = over.top + over.height / 2;
  const activator = event.activatorEvent as { clientY?: unknown } | null;
  if (activator && typeof activator.clientY === "number") return activator.clientY + event.delta.y < middle;
  const dragged = event.active.rect.current.translated;
  return dragged ? dragged.top < middle : true;
}

/**
 * Drag and drop for the editor (dnd-kit): pointer and keyboard sensors, a collision rule that
 * prefers the innermost droppable under the pointer, and a drop indicator kept in a keyed store so
 * that only the rows it enters and leaves re-render. A drop is one `move` on the model.
 */
export function useEditorDnd(dispatch: EditorDispatch, memory: { current: string | null }) {
  const [dropStore] = useState(() => new KeyedStore<DropSpot>());
  const [activeId, setActiveId] = useState<string | null>(null);
  const blocked = useRef<Set<string>>(new Set());
  const target = useRef<DropTarget | null>(null);

  const sensors = useSensors(
    useSensor(PointerSensor, POINTER_OPTIONS),
    useSensor(KeyboardSensor, KEYBOARD_OPTIONS),
  );

  const collisionDetection = useCallback<CollisionDetection>((args) => {
    const containers = args.droppableContainers.filter((c) => !blocked.current.has(String(c.id)));
    const scoped = { ...args, droppableContainers: containers };
    if (args.pointerCoordinates) {
      const within = pointerWithin(scoped);
      if (within.length > 0) {
        let best = within[0]!;
        let bestArea = Number.POSITIVE_INFINITY;
        for (const collision of within) {
          const rect = args.droppableRects.get(collision.id);
          const area = rect ? rect.width * rect.height : Number.POSITIVE_INFINITY;
          if (area < bestArea) {
            best = collision;
            bestArea = area;
          }
        }
        return [best];
      }
    }
    return closestCenter(scoped);
  }, []);

  const show = useCallback(
    (next: DropTarget | null) => {
      const previous = target.current;
      if (previous?.spotKey === next?.spotKey && previous?.spot === next?.spot) {
        target.current = next;
        return;
      }
      if (previous) dropStore.set(previous.spotKey, undefined);
      if (next) dropStore.set(next.spotKey, next.spot);
      target.current = next;
    },
    [dropStore],
  );

  const compute = useCallback(
    (event: PositionedEvent): DropTarget | null => {
      if (!event.over) return null;
      return dropTarget(
        dispatch.getTree(),
        String(event.active.id),
        String(event.over.id),
        landsBefore(event),
      );
    },
    [dispatch],
  );

  const onDragStart = useCallback(
    (event: DragStartEvent) => {
      const id = String(event.active.id);
      blocked.current = blockedIds(dispatch.getTree(), id);
      setActiveId(id);
    },
    [dispatch],
  );
  const onDragMove = useCallback((event: DragMoveEvent) => show(compute(event)), [show, compute]);
  const onDragOver = useCallback((event: DragOverEvent) => show(compute(event)), [show, compute]);
  const onDragEnd = useCallback(
    (event: DragEndEvent) => {
      const drop = compute(event);
      show(null);
      setActiveId(null);
      blocked.current = new Set();
      if (drop) {
        memory.current = "handle";
        dispatch.move(String(event.active.id), drop.parentId, drop.index);
      }
    },
    [compute, show, dispatch, memory],
  );
  const onDragCancel = useCallback(() => {
    show(null);
    setActiveId(null);
    blocked.current = new Set();
  }, [show]);

  const accessibility = useMemo(() => {
    const summary = (id: string | number) => {
      const tree = dispatch.getTree();
      const path = pathOfId(tree, String(id));
      const node = path ? nodeAt(tree, path) : undefined;
      return node ? describeNode(node) : "the item";
    };
    const where = (): string => {
      const drop = target.current;
      if (!drop) return "nowhere new";
      if (drop.spot === "inside") return `at the end of ${summary(drop.parentId)}`;
      return `${drop.spot} ${summary(drop.spotKey)}`;
    };
    const announcements: Announcements = {
      onDragStart: ({ active }) => `Picked up ${summary(active.id)}.`,
      onDragOver: ({ active, over }) =>
        over
          ? `${summary(active.id)} would go ${where()}.`
          : `${summary(active.id)} is not over a place to drop.`,
      onDragEnd: ({ active, over }) =>
        over ? `Dropped ${summary(active.id)}.` : `${summary(active.id)} was dropped where it was.`,
      onDragCancel: ({ active }) => `Moving cancelled. ${summary(active.id)} stays where it was.`,
    };
    return { announcements, screenReaderInstructions: SCREEN_READER_INSTRUCTIONS };
  }, [dispatch]);

  return {
    dropStore,
    activeId,
    sensors,
    collisionDetection,
    accessibility,
    onDragStart,
    onDragMove,
    onDragOver,
    onDragEnd,
    onDragCancel,
  };
}
