import { DndContext, DragOverlay } from "@dnd-kit/core";
import {
  type KeyboardEvent,
  memo,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import { describeNode } from "../../../../contract/describe";
import { COMMANDS, commandById, commandForKey, formatKey } from "../../../lib/filter/commands";
import { nodeAt, pathOfId } from "../../../lib/filter/tree";
import { afterPress, followPresses } from "./after-press";
import {
  AsideContext,
  DispatchContext,
  DropContext,
  FocusMemoryContext,
  PlatformContext,
  type RenderNodeAside,
} from "./editor-context";
import { GroupNodeView } from "./group-node";
import { ariaKeys } from "./node-actions-menu";
import { useEditorDnd } from "./use-editor-dnd";
import { ancestorIds, type EditorDispatch, type FilterEditorState } from "./use-filter-editor";
import "./filter-editor.css";

export interface FilterEditorProps {
  /** The state from `useFilterEditor(initial)`, owned by the page (which also reads its tree). */
  editor: FilterEditorState;
  /** Accessible name of the editor region. */
  label?: string;
  /**
   * Extra content beside every node (e.g. a per-node count). Pass a stable function (module level
   * or `useCallback`): a new function re-renders every node.
   */
  renderNodeAside?: RenderNodeAside;
  /** Show "N items need attention · Show" in the toolbar (default true). */
  showProblemSummary?: boolean;
  className?: string;
}

function isMacPlatform(): boolean {
  if (typeof navigator === "undefined") return false;
  const platform =
    (navigator as { userAgentData?: { platform?: string } }).userAgentData?.platform ??
    navigator.platform ??
    "";
  return /mac|iphone|ipad|ipod/i.test(platform || navigator.userAgent);
}

const NOT_TYPING = new Set([
  "button",
  "checkbox",
  "radio",
  "submit",
  "reset",
  "range",
  "color",
  "file",
  "image",
]);

/** Keys there edit text (or a select's value), so shortcuts that would fight them stay off. */
function isTextField(element: HTMLElement): boolean {
  if (element.isContentEditable) return true;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return !NOT_TYPING.has(element.type);
  return false;
}

/** The first add button ("+ Condition") of `group`'s own add bar, past its rules. */
function addButtonOf(group: Element | null): HTMLElement | null {
  return group?.querySelector<HTMLElement>(":scope > .fe-group-body > .fe-add-bar .fe-add") ?? null;
}

/** The key that jumps to the add bar of the group holding focus. */
const ADD_BAR_KEY = "Mod+/";

function isAddBarKey(event: KeyboardEvent<HTMLElement>): boolean {
  return event.key === "/" && !event.altKey && (event.ctrlKey || event.metaKey);
}

/** The element of node `id` (its row or group section). */
function findNode(root: HTMLElement | null, id: string): HTMLElement | null {
  if (!root) return null;
  for (const element of root.querySelectorAll<HTMLElement>("[data-node-id]"))
    if (element.getAttribute("data-node-id") === id) return element;
  return null;
}

/**
 * Focuses the node's `field` control, else its first input, else its drag handle; a disabled one
 * (a NOT rule's list button) cannot take focus and is passed over.
 */
function focusInside(element: HTMLElement, field: string | null): void {
  const own = (candidate: Element) =>
    candidate.closest("[data-node-id]") === element && !(candidate as HTMLButtonElement).disabled;
  const pick = (name: string) => {
    const found = [...element.querySelectorAll<HTMLElement>(`[data-field="${name}"]`)].filter(own);
    return found.find((candidate) => candidate.tabIndex >= 0) ?? found[0];
  };
  const order = [field, "column", "text", "company", "handle", "menu"].filter(
    (name): name is string => !!name,
  );
  for (const name of order) {
    const target = pick(name);
    if (target) {
      target.focus();
      return;
    }
  }
}

const SHORTCUTS = COMMANDS.filter((command) => command.keys.length > 0);

/**
 * `leave`, but never in the middle of a press: a blank rule left by a press elsewhere says
 * "Enter a value." and grows, which would move the button being pressed (an add button below it).
 */
function useLeaveAfterPress(leave: (nodeId: string) => void): (nodeId: string) => void {
  const latest = useRef(leave);
  latest.current = leave;
  useEffect(followPresses, []);
  return useCallback((nodeId: string) => afterPress(() => latest.current(nodeId)), []);
}

/**
 * The tree, read from the editor's store rather than handed down: a change then renders the tree
 * without re-rendering dnd-kit's DndContext above it. DndContext gives its children a new transform
 * object on each of its renders, and a changed context value makes React search every memoized row
 * below for readers of it: at 300 conditions that search was half of a keystroke's time.
 */
const TreeView = memo(function TreeView({ dispatch }: { dispatch: EditorDispatch }) {
  const tree = useSyncExternalStore(dispatch.subscribeTree, dispatch.getTree, dispatch.getTree);
  return <GroupNodeView node={tree} position="" depth={0} handle={null} />;
});

/**
 * The visual filter editor. Self-contained apart from its state, which the page owns:
 *
 * ```tsx
 * const editor = useFilterEditor(initialTree);
 * <FilterEditor editor={editor} renderNodeAside={renderCount} />
 * // editor.tree, editor.blocking, editor.reveal() for the page's count, send button, ...
 * ```
 *
 * Keyboard: the model's shortcuts act on the node that holds focus (Ctrl/Cmd+Enter adds a
 * condition, Ctrl/Cmd+D duplicates, Ctrl/Cmd+Backspace deletes, Ctrl/Cmd+I toggles NOT,
 * Alt+Arrows move, indent and outdent, Ctrl/Cmd+Z / Shift+Z / Y undo and redo, in text fields too).
 */
export function FilterEditor({
  editor,
  label = "Filter editor",
  renderNodeAside,
  showProblemSummary = true,
  className,
}: FilterEditorProps) {
  const { tree, dispatch, focus, notice } = editor;
  const rootRef = useRef<HTMLElement>(null);
  const leaveAfterPress = useLeaveAfterPress(editor.leave);
  const [memory] = useState<{ current: string | null }>(() => ({ current: null }));
  const [platform] = useState(() => ({ mac: isMacPlatform() }));
  const dnd = useEditorDnd(dispatch, memory);
  const rootId = tree.id ?? "";
  const dragging = dnd.activeId !== null;

  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (event.defaultPrevented || event.nativeEvent.isComposing || dragging) return;
      const target = event.target as HTMLElement;
      // Portalled content (the actions menu) bubbles here through React: its keys are its own.
      if (!rootRef.current?.contains(target)) return;
      if (isAddBarKey(event)) {
        // To the add buttons of the group around focus, past every rule in between.
        const add = addButtonOf(target.closest(".fe-group") ?? rootRef.current.querySelector(".fe-group"));
        if (add) {
          event.preventDefault();
          add.focus();
        }
        return;
      }
      // A select's Alt+Arrows open it (outside macOS): its keys stay its own, as a Mac's text keys do.
      const command = commandForKey(event, {
        typing: isTextField(target),
        mac: platform.mac || target instanceof HTMLSelectElement,
      });
      if (!command) return;
      event.preventDefault();
      event.stopPropagation();
      memory.current = target.closest("[data-field]")?.getAttribute("data-field") ?? null;
      const owner = target.closest("[data-node-id], [data-connector-of]");
      const nodeId =
        owner?.getAttribute("data-node-id") ?? owner?.getAttribute("data-connector-of") ?? rootId;
      dispatch.run(command.id, nodeId);
    },
    [dispatch, memory, rootId, dragging, platform],
  );

  // Focus follows the node a command (or a drop) acted on, inside collapsed groups too.
  const focusToken = focus?.token;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per focus request
  useEffect(() => {
    if (!focus) return;
    const current = dispatch.getTree();
    const node = nodeAt(current, focus.path);
    const id = node?.id;
    if (typeof id !== "string") return;
    for (const ancestor of ancestorIds(current, focus.path)) dispatch.collapsed.set(ancestor, undefined);
    let tries = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = () => {
      const element = findNode(rootRef.current, id);
      if (element) focusInside(element, memory.current);
      else if (tries++ < 3) timer = setTimeout(attempt, 0);
    };
    attempt();
    return () => clearTimeout(timer);
  }, [focusToken]);

  const activePath = dnd.activeId ? pathOfId(tree, dnd.activeId) : undefined;
  const activeNode = activePath ? nodeAt(tree, activePath) : undefined;
  const overlayText = activeNode ? describeNode(activeNode) : null;
  // DndContext is memoized: with these children (new only when a drag starts or ends) and its
  // stable props, it is left alone while the tree changes.
  const dndChildren = useMemo(
    () => (
      <>
        <TreeView dispatch={dispatch} />
        <DragOverlay dropAnimation={null}>
          {overlayText !== null ? <div className="fe-drag-overlay">{overlayText}</div> : null}
        </DragOverlay>
      </>
    ),
    [dispatch, overlayText],
  );
  const undoCommand = commandById("undo");
  const redoCommand = commandById("redo");
  const blocking = editor.shownBlocking;
  const problemCount = editor.shownProblems.size;

  return (
    <section
      ref={rootRef}
      className={`fe${className ? ` ${className}` : ""}`}
      aria-label={label}
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        // Focus moved from one item to another (or out): the item it left was left as it is.
        const from = event.target.closest("[data-node-id]");
        const to =
          event.relatedTarget instanceof Element ? event.relatedTarget.closest("[data-node-id]") : null;
        const id = from?.getAttribute("data-node-id");
        if (id && from !== to) leaveAfterPress(id);
      }}
    >
      <div className="fe-toolbar">
        {/* Tab meets it first: past every rule to "+ Condition" of the whole filter in one press. */}
        <button
          type="button"
          className="fe-skip"
          onClick={() => addButtonOf(rootRef.current?.querySelector(".fe-group") ?? null)?.focus()}
        >
          Skip the rules: add a condition
        </button>
        <button
          type="button"
          className="button button-secondary fe-toolbar-button"
          onClick={editor.undo}
          disabled={!editor.canUndo}
          aria-keyshortcuts={ariaKeys(undoCommand.keys, platform.mac)}
          title={`${undoCommand.description} (${formatKey(undoCommand.keys[0] ?? "", platform.mac)})`}
        >
          Undo
        </button>
        <button
          type="button"
          className="button button-secondary fe-toolbar-button"
          onClick={editor.redo}
          disabled={!editor.canRedo}
          aria-keyshortcuts={ariaKeys(redoCommand.keys, platform.mac)}
          title={`${redoCommand.description} (${formatKey(redoCommand.keys[0] ?? "", platform.mac)})`}
        >
          Redo
        </button>
        {showProblemSummary && blocking ? (
          <p className="fe-blocking">
            <span>
              {problemCount === 1 ? "1 item needs attention" : `${problemCount} items need attention`}:{" "}
              {blocking.message}
            </span>
            <button type="button" className="fe-link-button" onClick={() => editor.reveal()}>
              Show
            </button>
          </p>
        ) : null}
        <details className="fe-help">
          <summary>Keyboard shortcuts</summary>
          <dl className="fe-help-list">
            {SHORTCUTS.map((command) => (
              <div key={command.id}>
                <dt>{command.keys.map((key) => formatKey(key, platform.mac)).join(" or ")}</dt>
                <dd>{command.label}</dd>
              </div>
            ))}
            <div>
              <dt>{formatKey(ADD_BAR_KEY, platform.mac)}</dt>
              <dd>Go to the add buttons of the group</dd>
            </div>
            <div>
              <dt>Space, arrows, Space</dt>
              <dd>Drag with the keyboard from a handle</dd>
            </div>
          </dl>
        </details>
      </div>
      <DispatchContext.Provider value={dispatch}>
        <DropContext.Provider value={dnd.dropStore}>
          <PlatformContext.Provider value={platform}>
            <FocusMemoryContext.Provider value={memory}>
              <AsideContext.Provider value={renderNodeAside ?? null}>
                <DndContext
                  sensors={dnd.sensors}
                  collisionDetection={dnd.collisionDetection}
                  accessibility={dnd.accessibility}
                  onDragStart={dnd.onDragStart}
                  onDragMove={dnd.onDragMove}
                  onDragOver={dnd.onDragOver}
                  onDragEnd={dnd.onDragEnd}
                  onDragCancel={dnd.onDragCancel}
                >
                  {dndChildren}
                </DndContext>
              </AsideContext.Provider>
            </FocusMemoryContext.Provider>
          </PlatformContext.Provider>
        </DropContext.Provider>
      </DispatchContext.Provider>
      <p
        className={notice?.tone === "error" ? "fe-notice" : "visually-hidden"}
        role="status"
        aria-live="polite"
      >
        {notice?.text ?? ""}
      </p>
    </section>
  );
}
