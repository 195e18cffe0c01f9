/**
 * Undo / redo over whole trees (cheap: operations share every untouched subtree). A burst of
 * commits with the same `mergeKey` (typing in one field) becomes one step, as long as each commit
 * comes within the merge window of the previous one.
 */
import type { GroupNode } from "../../../contract/filter";

export interface History {
  past: readonly GroupNode[];
  present: GroupNode;
  future: readonly GroupNode[];
  burst?: { key: string; at: number };
}

/** Steps kept in `past`; older ones are forgotten. */
export const HISTORY_LIMIT = 200;
/** Commits with the same merge key less than this apart (ms) form one step. */
export const MERGE_WINDOW_MS = 1000;

export function createHistory(tree: GroupNode): History {
  return { past: [], present: tree, future: [] };
}

/**
 * Records `tree` as the new present. With a `mergeKey` equal to the running burst's, and at most
 * `mergeWindowMs` (default 1000) after the burst's last commit, it replaces the present instead of
 * adding a step. A tree equal to the present (deep) is ignored: the history comes back unchanged.
 * Any recorded commit clears the redo stack.
 */
export function commit(
  h: History,
  tree: GroupNode,
  options: { mergeKey?: string; now?: number; mergeWindowMs?: number } = {},
): History {
  if (sameTree(h.present, tree)) return h;
  const now = options.now ?? Date.now();
  const window = options.mergeWindowMs ?? MERGE_WINDOW_MS;
  const key = options.mergeKey;
  if (key !== undefined && h.burst && h.burst.key === key && now - h.burst.at <= window && now >= h.burst.at)
    return { past: h.past, present: tree, future: [], burst: { key, at: now } };
  const past = [...h.past, h.present];
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT);
  const next: History = { past, present: tree, future: [] };
  if (key !== undefined) next.burst = { key, at: now };
  return next;
}

export function undo(h: History): History {
  const previous = h.past[h.past.length - 1];
  if (previous === undefined) return h;
  return { past: h.past.slice(0, -1), present: previous, future: [h.present, ...h.future] };
}

export function redo(h: History): History {
  const next = h.future[0];
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: h.future.slice(1) };
}

export function canUndo(h: History): boolean {
  return h.past.length > 0;
}

export function canRedo(h: History): boolean {
  return h.future.length > 0;
}

/** Deep equality of JSON-like values, short-circuiting on shared subtrees. */
export function sameTree(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameTree(a[i], other[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((k) => left[k] !== undefined);
  const otherKeys = Object.keys(right).filter((k) => right[k] !== undefined);
  if (keys.length !== otherKeys.length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key)) return false;
    if (!sameTree(left[key], right[key])) return false;
  }
  return true;
}
