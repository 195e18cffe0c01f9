import { describe, expect, it } from "vitest";
import {
  canRedo,
  canUndo,
  commit,
  createHistory,
  HISTORY_LIMIT,
  redo,
  sameTree,
  undo,
} from "../../../../src/app/lib/filter/history";
import { updateNode } from "../../../../src/app/lib/filter/tree";
import type { GroupNode } from "../../../../src/contract/filter";
import { cond, group, okTree } from "./helpers";

const start = group("r", [cond("a")]);
const typed = (tree: GroupNode, value: string) => okTree(updateNode(tree, [0], { value }));

describe("history", () => {
  it("starts with nothing to undo or redo", () => {
    const h = createHistory(start);
    expect(h).toEqual({ past: [], present: start, future: [] });
    expect(canUndo(h)).toBe(false);
    expect(canRedo(h)).toBe(false);
    expect(undo(h)).toBe(h);
    expect(redo(h)).toBe(h);
  });

  it("commits, undoes and redoes", () => {
    const one = typed(start, "1");
    const two = typed(one, "2");
    let h = commit(commit(createHistory(start), one, { now: 0 }), two, { now: 5000 });
    expect(h.past).toEqual([start, one]);
    expect(h.present).toBe(two);
    h = undo(h);
    expect(h.present).toBe(one);
    expect(canRedo(h)).toBe(true);
    h = undo(h);
    expect(h.present).toBe(start);
    expect(canUndo(h)).toBe(false);
    h = redo(redo(h));
    expect(h.present).toBe(two);
    expect(canRedo(h)).toBe(false);
  });

  it("a new commit clears the redo stack", () => {
    const one = typed(start, "1");
    let h = undo(commit(createHistory(start), one, { now: 0 }));
    expect(canRedo(h)).toBe(true);
    h = commit(h, typed(start, "other"), { now: 10 });
    expect(canRedo(h)).toBe(false);
    expect(h.past).toEqual([start]);
  });

  it("merges a burst with the same key into one step", () => {
    let h = createHistory(start);
    let tree = start;
    for (const [i, text] of ["U", "Un", "Uni", "Unit"].entries()) {
      tree = typed(tree, text);
      h = commit(h, tree, { mergeKey: "a:value", now: 1000 + i * 300 });
    }
    expect(h.past).toEqual([start]);
    expect(h.present).toBe(tree);
    expect(h.burst).toEqual({ key: "a:value", at: 1900 });
    expect(undo(h).present).toBe(start);
  });

  it("the window runs from the last keystroke of the burst", () => {
    let h = createHistory(start);
    // 0, 900, 1800, 2700: each within 1000 ms of the previous one, the burst lasting 2.7 s.
    for (const [i, at] of [0, 900, 1800, 2700].entries())
      h = commit(h, typed(h.present, `v${i}`), { mergeKey: "k", now: at });
    expect(h.past).toHaveLength(1);
    // A pause longer than the window starts a new step.
    h = commit(h, typed(h.present, "later"), { mergeKey: "k", now: 2700 + 1001 });
    expect(h.past).toHaveLength(2);
    // A custom window.
    h = commit(h, typed(h.present, "x"), { mergeKey: "k", now: 3701 + 4000, mergeWindowMs: 5000 });
    expect(h.past).toHaveLength(2);
  });

  it("another key, or no key, starts a new step", () => {
    let h = createHistory(start);
    h = commit(h, typed(start, "1"), { mergeKey: "a", now: 0 });
    h = commit(h, typed(h.present, "2"), { mergeKey: "b", now: 10 });
    expect(h.past).toHaveLength(2);
    h = commit(h, typed(h.present, "3"), { now: 20 });
    expect(h.past).toHaveLength(3);
    expect(h.burst).toBeUndefined();
    h = commit(h, typed(h.present, "4"), { mergeKey: "b", now: 30 });
    expect(h.past).toHaveLength(4);
  });

  it("undo ends a burst: typing again after an undo is a new step", () => {
    let h = createHistory(start);
    h = commit(h, typed(start, "1"), { mergeKey: "a", now: 0 });
    h = commit(h, typed(h.present, "12"), { mergeKey: "b", now: 10 });
    h = undo(h);
    expect(h.burst).toBeUndefined();
    h = commit(h, typed(h.present, "13"), { mergeKey: "a", now: 20 });
    expect(h.past).toHaveLength(2);
  });

  it("a commit equal to the present is ignored", () => {
    const h = commit(createHistory(start), typed(start, "1"), { now: 0 });
    expect(commit(h, h.present)).toBe(h);
    expect(commit(h, structuredClone(h.present), { mergeKey: "x" })).toBe(h);
  });

  it("keeps at most HISTORY_LIMIT steps", () => {
    let h = createHistory(start);
    for (let i = 0; i < HISTORY_LIMIT + 50; i++)
      h = commit(h, typed(h.present, String(i)), { now: i * 10_000 });
    expect(h.past).toHaveLength(HISTORY_LIMIT);
    let steps = 0;
    while (canUndo(h)) {
      h = undo(h);
      steps++;
    }
    expect(steps).toBe(HISTORY_LIMIT);
    expect((h.present.children[0] as { value: string }).value).toBe("49");
  });

  it("sameTree compares deeply, ignoring undefined fields", () => {
    expect(sameTree(start, structuredClone(start))).toBe(true);
    expect(sameTree(start, { ...start, extra: undefined })).toBe(true);
    expect(sameTree(start, typed(start, "z"))).toBe(false);
    expect(sameTree([1, 2], [1, 2, 3])).toBe(false);
    expect(sameTree({ a: [] }, { a: {} })).toBe(false);
  });
});
