/**
 * The editor's commands, Excalidraw-style: one named object per action, serving buttons, menus and
 * keyboard shortcuts alike. Every command acts on the tree and the focused path; `enabled` says
 * (cheaply) whether `perform` would succeed there.
 */
import type { FilterNode, GroupNode } from "../../../contract/filter";
import { MAX_FILTER_DEPTH } from "../../../contract/inferred";
import { canRedo, canUndo, commit, type History, redo, undo } from "./history";
import {
  addNode,
  childrenOf,
  duplicateNode,
  indent,
  moveDown,
  moveUp,
  newCondition,
  newGroup,
  newLookalike,
  newSemantic,
  nodeAt,
  type OpResult,
  outdent,
  type Path,
  removeNode,
  toggleNegate,
  unwrap,
  wrapInGroup,
} from "./tree";

export type CommandId =
  | "addCondition"
  | "addGroup"
  | "addTitleMatch"
  | "addCompanyMatch"
  | "addLookalike"
  | "remove"
  | "duplicate"
  | "wrap"
  | "unwrap"
  | "negate"
  | "moveUp"
  | "moveDown"
  | "indent"
  | "outdent"
  | "undo"
  | "redo";

export interface EditorCommand {
  id: CommandId;
  label: string;
  description: string;
  /** e.g. `["Mod+Enter"]`; "Mod" is Ctrl or Cmd. Shown in menus and tooltips (see `formatKey`). */
  keys: readonly string[];
  /** Undo and redo themselves: false. */
  recordsHistory: boolean;
  /**
   * Whether the shortcut may fire while a text field has focus. False where the keys edit text
   * there (Mod+Backspace deletes a word or line): pass `{ typing: true }` to `commandForKey` from
   * inside a text field and those are not matched. "unlessMac": only macOS gives the keys a meaning
   * in text (Option+Arrows move by word or paragraph); elsewhere they act on the row from its
   * fields too (Alt+Left would otherwise be the browser's Back). (Absent means true; every command
   * of `COMMANDS` sets it.)
   */
  whileTyping?: boolean | "unlessMac";
  enabled(tree: GroupNode, path: Path): boolean;
  /**
   * add* commands add into the group at `path` when it is one, else right after the node in its
   * parent. Undo and redo answer the tree unchanged (the history handles them: see `runCommand`).
   */
  perform(tree: GroupNode, path: Path): OpResult;
}

// ---------------------------------------------------------------------------------------------
// Cheap checks, kept in step with the operations (a test compares them on random trees)
// ---------------------------------------------------------------------------------------------

function validPath(path: Path): boolean {
  return Array.isArray(path) && path.every((i) => Number.isInteger(i) && i >= 0);
}

/** The node at a non-root path with its parent's child count, or undefined. */
function child(
  tree: GroupNode,
  path: Path,
): { node: FilterNode; index: number; siblings: number } | undefined {
  if (!validPath(path) || path.length === 0) return undefined;
  const parent = nodeAt(tree, path.slice(0, -1));
  if (parent?.type !== "group") return undefined;
  const index = path[path.length - 1]!;
  const siblings = childrenOf(parent);
  const node = siblings[index];
  if (node === null || typeof node !== "object") return undefined;
  return { node, index, siblings: siblings.length };
}

/** Levels spanned by a subtree, stopping as soon as `limit` is exceeded. */
function heightExceeds(node: FilterNode, limit: number): boolean {
  if (limit < 1) return true;
  if (node.type !== "group") return false;
  return childrenOf(node).some((c) => c !== null && typeof c === "object" && heightExceeds(c, limit - 1));
}

/** Whether a subtree whose root lands on path length `pathLength` stays within the depth limit. */
function fits(node: FilterNode, pathLength: number): boolean {
  return !heightExceeds(node, MAX_FILTER_DEPTH - pathLength);
}

/** Where add* commands put a new node: into a group, else right after the node. */
function addTarget(tree: GroupNode, path: Path): { parent: Path; index: number } | string {
  if (!validPath(path)) return "There is nothing at that position in the filter.";
  const node = nodeAt(tree, path);
  if (node === undefined || node === null) return "There is nothing at that position in the filter.";
  if (node.type === "group") return { parent: path, index: childrenOf(node).length };
  return { parent: path.slice(0, -1), index: path[path.length - 1]! + 1 };
}

function adder(make: () => FilterNode, height: number) {
  return {
    enabled(tree: GroupNode, path: Path) {
      const target = addTarget(tree, path);
      return typeof target !== "string" && target.parent.length + 1 + height <= MAX_FILTER_DEPTH;
    },
    perform(tree: GroupNode, path: Path): OpResult {
      const target = addTarget(tree, path);
      if (typeof target === "string") return { ok: false, tree, error: target };
      return addNode(tree, target.parent, make(), target.index);
    },
  };
}

const noop = {
  enabled: () => true,
  perform: (tree: GroupNode): OpResult => ({ ok: true, tree }),
};

export const COMMANDS: readonly EditorCommand[] = [
  {
    id: "addCondition",
    label: "Add condition",
    description: "Add a condition inside the selected group, or right after the selected item.",
    keys: ["Mod+Enter"],
    recordsHistory: true,
    whileTyping: true,
    ...adder(() => newCondition(), 1),
  },
  {
    id: "addGroup",
    label: "Add group",
    description: "Add a group of conditions inside the selected group, or right after the selected item.",
    keys: ["Mod+Shift+Enter"],
    recordsHistory: true,
    whileTyping: true,
    ...adder(() => newGroup(), 2),
  },
  {
    id: "addTitleMatch",
    label: "Add job title match",
    description: "Find people whose job title means something like a text you enter.",
    keys: [],
    recordsHistory: true,
    whileTyping: true,
    ...adder(() => newSemantic("title"), 1),
  },
  {
    id: "addCompanyMatch",
    label: "Add company match",
    description: "Find people at companies whose business is like a description you enter.",
    keys: [],
    recordsHistory: true,
    whileTyping: true,
    ...adder(() => newSemantic("company"), 1),
  },
  {
    id: "addLookalike",
    label: "Add lookalike companies",
    description: "Find people at companies similar to one you name by domain, name or company ID.",
    keys: [],
    recordsHistory: true,
    whileTyping: true,
    ...adder(() => newLookalike(), 1),
  },
  {
    id: "remove",
    label: "Delete",
    description: "Delete the selected item (a group with everything in it).",
    keys: ["Mod+Backspace"],
    recordsHistory: true,
    whileTyping: false,
    enabled: (tree, path) => child(tree, path) !== undefined,
    perform: removeNode,
  },
  {
    id: "duplicate",
    label: "Duplicate",
    description: "Copy the selected item right below itself.",
    keys: ["Mod+D"],
    recordsHistory: true,
    whileTyping: true,
    enabled: (tree, path) => child(tree, path) !== undefined,
    perform: duplicateNode,
  },
  {
    id: "wrap",
    label: "Wrap in group",
    description: "Put the selected item in a new group of its own, to combine it with others.",
    keys: ["Mod+G"],
    recordsHistory: true,
    whileTyping: true,
    enabled: (tree, path) => {
      const here = child(tree, path);
      return here !== undefined && fits(here.node, path.length + 1);
    },
    perform: wrapInGroup,
  },
  {
    id: "unwrap",
    label: "Ungroup",
    description: "Replace the selected group by the items it holds.",
    keys: ["Mod+Shift+G"],
    recordsHistory: true,
    whileTyping: true,
    enabled: (tree, path) => {
      const node = child(tree, path)?.node;
      return node?.type === "group" && !node.negate;
    },
    perform: unwrap,
  },
  {
    id: "negate",
    label: "Toggle NOT",
    description: "Match everyone the selected item does not match, or undo that.",
    keys: ["Mod+I"],
    recordsHistory: true,
    whileTyping: true,
    enabled: (tree, path) => {
      if (!validPath(path)) return false;
      const node = nodeAt(tree, path);
      if (node === undefined || node === null || typeof node !== "object") return false;
      if (node.type !== "condition") return true;
      const parent = nodeAt(tree, path.slice(0, -1)) as GroupNode;
      if (path.length > 1 && parent.negate && childrenOf(parent).length === 1) return true;
      return path.length + 2 <= MAX_FILTER_DEPTH;
    },
    perform: toggleNegate,
  },
  {
    id: "moveUp",
    label: "Move up",
    description: "Move the selected item above the one before it.",
    keys: ["Alt+ArrowUp"],
    recordsHistory: true,
    whileTyping: "unlessMac",
    enabled: (tree, path) => (child(tree, path)?.index ?? 0) > 0,
    perform: moveUp,
  },
  {
    id: "moveDown",
    label: "Move down",
    description: "Move the selected item below the one after it.",
    keys: ["Alt+ArrowDown"],
    recordsHistory: true,
    whileTyping: "unlessMac",
    enabled: (tree, path) => {
      const here = child(tree, path);
      return here !== undefined && here.index < here.siblings - 1;
    },
    perform: moveDown,
  },
  {
    id: "indent",
    label: "Indent",
    description: "Move the selected item into the group above it, or group it with the item above.",
    keys: ["Alt+ArrowRight"],
    recordsHistory: true,
    whileTyping: "unlessMac",
    enabled: (tree, path) => {
      const here = child(tree, path);
      if (here === undefined || here.index === 0) return false;
      if (!fits(here.node, path.length + 1)) return false;
      const previous = nodeAt(tree, [...path.slice(0, -1), here.index - 1])!;
      return previous.type === "group" || fits(previous, path.length + 1);
    },
    perform: indent,
  },
  {
    id: "outdent",
    label: "Outdent",
    description: "Move the selected item out of its group, right after it.",
    keys: ["Alt+ArrowLeft"],
    recordsHistory: true,
    whileTyping: "unlessMac",
    enabled: (tree, path) => path.length >= 2 && child(tree, path) !== undefined,
    perform: outdent,
  },
  {
    id: "undo",
    label: "Undo",
    description: "Undo the last change.",
    keys: ["Mod+Z"],
    recordsHistory: false,
    whileTyping: true,
    ...noop,
  },
  {
    id: "redo",
    label: "Redo",
    description: "Redo the change just undone.",
    keys: ["Mod+Shift+Z", "Mod+Y"],
    recordsHistory: false,
    whileTyping: true,
    ...noop,
  },
];

const byId = new Map(COMMANDS.map((c) => [c.id, c]));

export function commandById(id: CommandId): EditorCommand {
  const command = byId.get(id);
  if (!command) throw new Error(`unknown editor command '${id}'`);
  return command;
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

export interface KeyEventLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

interface Chord {
  mod: boolean;
  shift: boolean;
  alt: boolean;
  key: string;
}

/** "Mod+Shift+Z" as its parts; the key lower-cased when it is one character. */
export function parseKey(spec: string): Chord {
  const parts = spec.split("+");
  const key = parts.pop() ?? "";
  return {
    mod: parts.includes("Mod"),
    shift: parts.includes("Shift"),
    alt: parts.includes("Alt"),
    key: normaliseKey(key),
  };
}

function normaliseKey(key: string): string {
  return key.length === 1 ? key.toLowerCase() : key;
}

const CHORDS: readonly [Chord, EditorCommand][] = COMMANDS.flatMap((command) =>
  command.keys.map((spec) => [parseKey(spec), command] as [Chord, EditorCommand]),
);

/**
 * The command a key press triggers, if any. "Mod" is Ctrl or Cmd; the other modifiers must match
 * exactly. With `{ typing: true }` (the event comes from a text field), commands whose keys edit
 * text there are left out; `mac` says whose text keys those are (see `whileTyping`).
 */
export function commandForKey(
  e: KeyEventLike,
  options: { typing?: boolean; mac?: boolean } = {},
): EditorCommand | undefined {
  if (typeof e?.key !== "string") return undefined;
  const mod = Boolean(e.ctrlKey || e.metaKey);
  const key = normaliseKey(e.key);
  for (const [chord, command] of CHORDS) {
    if (chord.key !== key || chord.mod !== mod || chord.shift !== Boolean(e.shiftKey)) continue;
    if (chord.alt !== Boolean(e.altKey)) continue;
    if (options.typing && command.whileTyping === false) continue;
    if (options.typing && command.whileTyping === "unlessMac" && options.mac) continue;
    return command;
  }
  return undefined;
}

const MAC_NAMES: Record<string, string> = {
  Mod: "⌘",
  Shift: "⇧",
  Alt: "⌥",
  Enter: "↩",
  Backspace: "⌫",
  ArrowUp: "↑",
  ArrowDown: "↓",
  ArrowLeft: "←",
  ArrowRight: "→",
};
const PC_NAMES: Record<string, string> = {
  Mod: "Ctrl",
  ArrowUp: "↑",
  ArrowDown: "↓",
  ArrowLeft: "←",
  ArrowRight: "→",
};

/** A key spec as people read it: "Ctrl+Shift+Enter", or "⌘⇧↩" on a Mac. */
export function formatKey(spec: string, mac: boolean): string {
  const names = mac ? MAC_NAMES : PC_NAMES;
  const parts = spec.split("+").map((part) => names[part] ?? part);
  return mac ? parts.join("") : parts.join("+");
}

// ---------------------------------------------------------------------------------------------
// Running a command against a history
// ---------------------------------------------------------------------------------------------

/**
 * Performs a command on the history's present and records it (undo and redo move through the
 * history instead). On failure the history comes back unchanged with the reason in `result`.
 */
export function runCommand(
  h: History,
  id: CommandId,
  path: Path,
  options: { now?: number } = {},
): { history: History; result: OpResult } {
  if (id === "undo" || id === "redo") {
    const possible = id === "undo" ? canUndo(h) : canRedo(h);
    if (!possible)
      return {
        history: h,
        result: {
          ok: false,
          tree: h.present,
          error: id === "undo" ? "Nothing to undo." : "Nothing to redo.",
        },
      };
    const history = id === "undo" ? undo(h) : redo(h);
    return { history, result: { ok: true, tree: history.present } };
  }
  const result = commandById(id).perform(h.present, path);
  if (!result.ok) return { history: h, result };
  return { history: commit(h, result.tree, options.now === undefined ? {} : { now: options.now }), result };
}
