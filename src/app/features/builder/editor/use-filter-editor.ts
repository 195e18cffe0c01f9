import { useCallback, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { FilterNode, GroupNode, JoinOp } from "../../../../contract/filter";
import { type CommandId, runCommand } from "../../../lib/filter/commands";
import { canRedo, canUndo, commit, createHistory, type History } from "../../../lib/filter/history";
import {
  excludeFromMatch,
  includeInMatch,
  moveNode,
  nodeAt,
  type OpResult,
  type Path,
  pathOfId,
  setGroupOp,
  setJoin,
  updateNode,
  withIds,
} from "../../../lib/filter/tree";
import { firstProblem, isUnfinishedOnly, type Problems, validateTree } from "../../../lib/filter/validate";
import { KeyedStore } from "./keyed-store";
import { afterKeystroke, NO_RHYTHM, type TypingRhythm, typingPauseMs } from "./typing-rhythm";

/**
 * The filter editor's state: the tree inside an undo history (model/history.ts), its validation,
 * and the commands that change it (model/commands.ts). Pure model, React only at the edge: a
 * reducer whose dispatch is stable, so the callbacks handed to the node components never change
 * and a memoized node re-renders only when its own subtree does. The reducer's state lives in a
 * small store (not `useReducer`) so that the editor's tree view can subscribe to it below
 * dnd-kit's context, which then does not re-render on every keystroke (see FilterEditor).
 *
 * Undo: Ctrl/Cmd+Z and Ctrl/Cmd+Shift+Z (or Ctrl/Cmd+Y) are the editor's undo and redo everywhere
 * in the editor, text fields included (the FilterEditor root handles them). A field's own text
 * undo would fight the tree's history (the field is controlled by the tree), and typing in one field
 * is merged into one undo step anyway (`mergeKey` = `${nodeId}:${field}`), which is what people
 * expect of a builder.
 */

/** A request to move keyboard focus to the node at `path` (`token` changes on every request). */
export interface FocusRequest {
  path: Path;
  token: number;
}

/** What the editor last did or refused, for its polite live region. */
export interface EditorNotice {
  text: string;
  tone: "info" | "error";
  token: number;
}

/** The first node that keeps the filter from being sent (the lead's "why is Send disabled"). */
export interface BlockingProblem {
  id: string;
  path: Path;
  message: string;
}

export type NodePatch = Record<string, unknown>;
export type TreeOp = (tree: GroupNode, path: Path) => OpResult;

/**
 * Stable callbacks for the node components (one object for the life of the editor), addressed by
 * node id: ids survive moves, while paths change whenever something above moves.
 */
export interface EditorDispatch {
  run(command: CommandId, nodeId: string): void;
  update(nodeId: string, patch: NodePatch, mergeKey?: string): void;
  setJoin(nodeId: string, join: JoinOp | null): void;
  setGroupOp(nodeId: string, op: JoinOp): void;
  /** Leaves out of a match the people whose `column` is `value` (one undoable step). */
  exclude(nodeId: string, column: string, value: string): void;
  /** Puts back a value `exclude` left out beside the match (one undoable step). */
  include(nodeId: string, column: string, value: string): void;
  /** Moves a node into the group `toParentId` at `toIndex` (counted once the node has left its place). */
  move(nodeId: string, toParentId: string, toIndex: number): void;
  /** The current tree, read when needed (a menu opening), never during a node's render. */
  getTree(): GroupNode;
  /** Calls `listener` after every change of the editor's state (`useSyncExternalStore(subscribeTree, getTree)`). */
  subscribeTree(listener: () => void): () => void;
  toggleCollapse(nodeId: string): void;
  /**
   * What the service said of a node that the tree alone cannot show (a lookalike of a company it
   * does not know); null: nothing (any more). Such a node is left out of the count, and blocks buying.
   */
  reportUnknown(nodeId: string, reason: string | null): void;
  /**
   * The service refused a node as it is (a count's 422 pointing at it): said on the node, which is
   * left out of the count until it changes (then it is sent again, and may be refused again).
   */
  reportRefused(node: FilterNode, reason: string): void;
  /** Per-node validation reasons (arrays kept identical while their content is). */
  readonly problems: KeyedStore<readonly string[]>;
  /** Collapsed group ids. */
  readonly collapsed: KeyedStore<true>;
}

export interface FilterEditorState {
  tree: GroupNode;
  problems: Problems;
  /** The first problem in document order, or undefined when the tree can be sent. */
  blocking: BlockingProblem | undefined;
  /** The problems said on screen: a rule not filled in yet is quiet until the person leaves it. */
  shownProblems: Problems;
  shownBlocking: BlockingProblem | undefined;
  /** Focus left this node (for a row: the person moved on from it). */
  leave(nodeId: string): void;
  /** The last change was typing in a field (its count waits for a pause), not a discrete edit. */
  typing: boolean;
  /** The pause that ends typing, from the person's own pace (typing-rhythm.ts). */
  typingPauseMs: number;
  run(command: CommandId, path: Path): void;
  update(path: Path, patch: NodePatch, mergeKey?: string): void;
  /** Replaces the whole tree (an undoable step; `{ resetHistory: true }` starts a fresh history). */
  replace(tree: GroupNode, options?: { resetHistory?: boolean }): void;
  undo(): void;
  redo(): void;
  canUndo: boolean;
  canRedo: boolean;
  /** Where the last command wants focus (null when it did not move anything). */
  focusPath: Path | null;
  focus: FocusRequest | null;
  notice: EditorNotice | null;
  /** Expands the groups around a node and focuses it (default: the blocking node). */
  reveal(nodeId?: string): void;
  dispatch: EditorDispatch;
}

type Target = { path: Path } | { id: string };

type Action =
  | { type: "run"; command: CommandId; target: Target; now: number }
  | { type: "apply"; target: Target; op: TreeOp; mergeKey?: string; now: number; focus: boolean }
  | { type: "replace"; tree: GroupNode; resetHistory: boolean; now: number }
  | { type: "focus"; target: Target };

interface State {
  history: History;
  focus: FocusRequest | null;
  notice: EditorNotice | null;
  token: number;
  /** The last change was typing (an update with a merge key), not a discrete edit. */
  typing: boolean;
  rhythm: TypingRhythm;
}

const DONE: Record<CommandId, string> = {
  addCondition: "Condition added.",
  addGroup: "Group added.",
  addTitleMatch: "Job title match added.",
  addCompanyMatch: "Company match added.",
  addLookalike: "Lookalike added.",
  remove: "Deleted.",
  duplicate: "Duplicated.",
  wrap: "Wrapped in a group.",
  unwrap: "Ungrouped.",
  negate: "NOT toggled.",
  moveUp: "Moved up.",
  moveDown: "Moved down.",
  indent: "Indented.",
  outdent: "Outdented.",
  undo: "Undone.",
  redo: "Redone.",
};

const GONE = "That item is no longer in the filter.";

function resolve(tree: GroupNode, target: Target): Path | undefined {
  return "path" in target ? target.path : pathOfId(tree, target.id);
}

function notice(state: State, text: string, tone: EditorNotice["tone"]): State {
  const token = state.token + 1;
  return { ...state, token, notice: { text, tone, token } };
}

function reducer(state: State, action: Action): State {
  const tree = state.history.present;
  switch (action.type) {
    case "run": {
      const path = resolve(tree, action.target);
      if (!path) return notice(state, GONE, "error");
      const { history, result } = runCommand(state.history, action.command, path, { now: action.now });
      if (!result.ok) return notice(state, result.error, "error");
      const token = state.token + 1;
      const undoing = action.command === "undo" || action.command === "redo";
      const focusPath = result.focus ?? (undoing ? null : path);
      return {
        history,
        token,
        focus: focusPath ? { path: focusPath, token } : state.focus,
        notice: { text: DONE[action.command], tone: "info", token },
        typing: false,
        rhythm: state.rhythm,
      };
    }
    case "apply": {
      const path = resolve(tree, action.target);
      if (!path) return notice(state, GONE, "error");
      const result = action.op(tree, path);
      if (!result.ok) return notice(state, result.error, "error");
      if (result.tree === tree) return state;
      const options =
        action.mergeKey === undefined ? { now: action.now } : { now: action.now, mergeKey: action.mergeKey };
      const history = commit(state.history, result.tree, options);
      const typing = action.mergeKey !== undefined;
      const rhythm = typing ? afterKeystroke(state.rhythm, action.now) : state.rhythm;
      if (!action.focus) return { ...state, history, typing, rhythm };
      const token = state.token + 1;
      return { ...state, history, typing, rhythm, token, focus: { path: result.focus ?? path, token } };
    }
    case "replace": {
      const next = withIds(action.tree);
      const history = action.resetHistory
        ? createHistory(next)
        : commit(state.history, next, { now: action.now });
      return { ...state, history, typing: false };
    }
    case "focus": {
      const path = resolve(tree, action.target);
      if (!path) return state;
      const token = state.token + 1;
      return { ...state, token, focus: { path, token } };
    }
  }
}

function init(initial: GroupNode): State {
  return {
    history: createHistory(withIds(initial)),
    focus: null,
    notice: null,
    token: 0,
    typing: false,
    rhythm: NO_RHYTHM,
  };
}

/** The reducer's state outside React: `send` reduces at once and tells the subscribers. */
class EditorStore {
  private state: State;
  private readonly listeners = new Set<() => void>();

  constructor(initial: GroupNode) {
    this.state = init(initial);
  }

  readonly getState = (): State => this.state;
  readonly getTree = (): GroupNode => this.state.history.present;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly send = (action: Action): void => {
    const next = reducer(this.state, action);
    if (next === this.state) return;
    this.state = next;
    for (const listener of [...this.listeners]) listener();
  };
}

/** Same reasons, in the same order. */
function sameReasons(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((reason, i) => reason === b[i]);
}

/** The tree's own problems, plus what the service said of nodes that have none of their own. */
function withUnknowns(problems: Problems, unknowns: ReadonlyMap<string, string>): Problems {
  if (unknowns.size === 0) return problems;
  const merged = new Map(problems);
  for (const [id, reason] of unknowns) if (!merged.has(id)) merged.set(id, [reason]);
  return merged;
}

interface Refusal {
  /** The node as it was refused: a changed node is sent again. */
  key: string;
  reason: string;
}

function refusalKey(node: FilterNode): string {
  return JSON.stringify(node, (name, value) =>
    name === "id" || name === "joinWithPrevious" ? undefined : value,
  );
}

/** The refusals that still apply: their node is there, unchanged. */
function stillRefused(tree: GroupNode, refusals: ReadonlyMap<string, Refusal>): ReadonlyMap<string, string> {
  const applying = new Map<string, string>();
  for (const [id, refusal] of refusals) {
    const path = pathOfId(tree, id);
    const node = path ? nodeAt(tree, path) : undefined;
    if (node && refusalKey(node) === refusal.key) applying.set(id, refusal.reason);
  }
  return applying;
}

/** The problems without those of rules not filled in yet that the person has not left. */
function quietUnfinished(problems: Problems, left: ReadonlySet<string>): Problems {
  let quiet: Map<string, readonly string[]> | null = null;
  for (const [id, reasons] of problems)
    if (!left.has(id) && isUnfinishedOnly(reasons)) {
      quiet ??= new Map(problems);
      quiet.delete(id);
    }
  return quiet ?? problems;
}

function syncProblems(store: KeyedStore<readonly string[]>, problems: Problems): void {
  const next = new Map<string, readonly string[]>();
  for (const [id, reasons] of problems) {
    const previous = store.get(id);
    next.set(id, previous && sameReasons(previous, reasons) ? previous : reasons);
  }
  store.replaceAll(next);
}

/** Ids of the groups that contain the node at `path` (the root included). */
export function ancestorIds(tree: GroupNode, path: Path): string[] {
  const ids: string[] = [];
  let node: FilterNode | undefined = tree;
  for (const index of path) {
    if (node?.type !== "group") break;
    if (typeof node.id === "string") ids.push(node.id);
    node = node.children[index];
  }
  return ids;
}

export function useFilterEditor(initial: GroupNode): FilterEditorState {
  const [store] = useState(() => new EditorStore(initial));
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  const send = store.send;
  const tree = state.history.present;
  const checked = useMemo(() => validateTree(tree), [tree]);
  const [unknowns, setUnknowns] = useState<ReadonlyMap<string, string>>(() => new Map());
  const [refusals, setRefusals] = useState<ReadonlyMap<string, Refusal>>(() => new Map());
  const refused = useMemo(() => stillRefused(tree, refusals), [tree, refusals]);
  const problems = useMemo(
    () => withUnknowns(withUnknowns(checked, unknowns), refused),
    [checked, unknowns, refused],
  );
  const blocking = useMemo(() => firstProblem(tree, problems), [tree, problems]);
  // A rule not filled in yet is unfinished, not wrong: said only once the person has left it empty.
  // Every node left is kept (a rule left finished and emptied later by an undo is said at once),
  // but the editor renders again only when a leave changes what is said (a rule left unfinished):
  // leaving a group's add button or a finished rule changes nothing shown, and rendering for it
  // cost every added rule a second commit before its first frame.
  const left = useRef(new Set<string>());
  const [leftSaid, setLeftSaid] = useState(0);
  const checkedNow = useRef(checked);
  checkedNow.current = checked;
  // The rows say what the service answered themselves (a lookalike's "No such company").
  // biome-ignore lint/correctness/useExhaustiveDependencies: leftSaid says when `left` changed what is shown
  const shownProblems = useMemo(
    () => withUnknowns(quietUnfinished(checked, left.current), refused),
    [checked, leftSaid, refused],
  );
  const shownBlocking = useMemo(() => firstProblem(tree, shownProblems), [tree, shownProblems]);
  const leave = useCallback((nodeId: string) => {
    if (left.current.has(nodeId)) return;
    left.current.add(nodeId);
    if (isUnfinishedOnly(checkedNow.current.get(nodeId))) setLeftSaid((n) => n + 1);
  }, []);

  const [stores] = useState(() => {
    const problemStore = new KeyedStore<readonly string[]>();
    syncProblems(problemStore, quietUnfinished(validateTree(tree), new Set()));
    return { problems: problemStore, collapsed: new KeyedStore<true>() };
  });
  useLayoutEffect(() => syncProblems(stores.problems, shownProblems), [stores, shownProblems]);

  const dispatch = useMemo<EditorDispatch>(() => {
    const apply = (id: string, op: TreeOp, mergeKey?: string, focus = false) =>
      send(
        mergeKey === undefined
          ? { type: "apply", target: { id }, op, now: Date.now(), focus }
          : { type: "apply", target: { id }, op, mergeKey, now: Date.now(), focus },
      );
    return {
      run: (command, id) => send({ type: "run", command, target: { id }, now: Date.now() }),
      update: (id, patch, mergeKey) => apply(id, (t, p) => updateNode(t, p, patch), mergeKey),
      setJoin: (id, join) => apply(id, (t, p) => setJoin(t, p, join)),
      setGroupOp: (id, op) => apply(id, (t, p) => setGroupOp(t, p, op)),
      exclude: (id, column, value) => apply(id, (t, p) => excludeFromMatch(t, p, column, value)),
      include: (id, column, value) => apply(id, (t, p) => includeInMatch(t, p, column, value)),
      move: (id, toParentId, toIndex) =>
        apply(
          id,
          (t, p) => {
            const to = pathOfId(t, toParentId);
            if (!to) return { ok: false, tree: t, error: GONE };
            return moveNode(t, p, to, toIndex);
          },
          undefined,
          true,
        ),
      getTree: store.getTree,
      subscribeTree: store.subscribe,
      toggleCollapse: (id) => stores.collapsed.set(id, stores.collapsed.get(id) ? undefined : true),
      reportUnknown: (id, reason) =>
        setUnknowns((known) => {
          if ((known.get(id) ?? null) === reason) return known;
          const next = new Map(known);
          if (reason === null) next.delete(id);
          else next.set(id, reason);
          return next;
        }),
      reportRefused: (node, reason) => {
        const id = node.id;
        if (!id) return;
        setRefusals((known) => {
          const key = refusalKey(node);
          if (known.get(id)?.key === key && known.get(id)?.reason === reason) return known;
          return new Map(known).set(id, { key, reason });
        });
      },
      problems: stores.problems,
      collapsed: stores.collapsed,
    };
  }, [stores, store, send]);

  const run = useCallback(
    (command: CommandId, path: Path) => send({ type: "run", command, target: { path }, now: Date.now() }),
    [send],
  );
  const update = useCallback(
    (path: Path, patch: NodePatch, mergeKey?: string) =>
      send(
        mergeKey === undefined
          ? {
              type: "apply",
              target: { path },
              op: (t, p) => updateNode(t, p, patch),
              now: Date.now(),
              focus: false,
            }
          : {
              type: "apply",
              target: { path },
              op: (t, p) => updateNode(t, p, patch),
              mergeKey,
              now: Date.now(),
              focus: false,
            },
      ),
    [send],
  );
  const replace = useCallback(
    (next: GroupNode, options: { resetHistory?: boolean } = {}) =>
      send({ type: "replace", tree: next, resetHistory: options.resetHistory ?? false, now: Date.now() }),
    [send],
  );
  const undo = useCallback(() => run("undo", []), [run]);
  const redo = useCallback(() => run("redo", []), [run]);

  const blockingId = blocking?.id;
  const reveal = useCallback(
    (nodeId?: string) => {
      const id = nodeId ?? blockingId;
      if (id === undefined) return;
      const current = store.getTree();
      const path = pathOfId(current, id);
      if (!path) return;
      for (const ancestor of ancestorIds(current, path)) stores.collapsed.set(ancestor, undefined);
      send({ type: "focus", target: { id } });
    },
    [blockingId, stores, store, send],
  );

  return {
    tree,
    problems,
    blocking,
    shownProblems,
    shownBlocking,
    leave,
    typing: state.typing,
    typingPauseMs: typingPauseMs(state.rhythm),
    run,
    update,
    replace,
    undo,
    redo,
    canUndo: canUndo(state.history),
    canRedo: canRedo(state.history),
    focusPath: state.focus?.path ?? null,
    focus: state.focus,
    notice: state.notice,
    reveal,
    dispatch,
  };
}
