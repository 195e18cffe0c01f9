/**
 * Properties of the editor model over random trees (the contract's own arbitraries) and random
 * sequences of commands on random paths.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMANDS, type CommandId, commandById, runCommand } from "../../../../src/app/lib/filter/commands";
import {
  canRedo,
  canUndo,
  commit,
  createHistory,
  redo,
  sameTree,
  undo,
} from "../../../../src/app/lib/filter/history";
import {
  depthOf,
  moveNode,
  nodeAt,
  type OpResult,
  type Path,
  pathOfId,
  updateNode,
  walk,
  withIds,
} from "../../../../src/app/lib/filter/tree";
import { toRequestFilter, validateTree } from "../../../../src/app/lib/filter/validate";
import { canonicalKey } from "../../../../src/contract/canonical";
import { type FilterNode, type GroupNode, strictFilterSchemas } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { brokenFilterArb, invalidFilterArb } from "../../../support/arbitraries/broken-filter";
import { validFilterArb } from "../../../support/arbitraries/valid-filter";

import { hasBlankValue, sendable } from "./helpers";

const strictOk = (tree: unknown) => strictFilterSchemas.root.safeParse(tree).success;

/** Random valid trees, with ids. */
const treeArb: fc.Arbitrary<GroupNode> = validFilterArb({ maxDepth: 3 }).map((t) =>
  withIds(t as unknown as GroupNode),
);

/** Valid trees wrapped in groups until they sit 0 to 2 levels below the depth limit. */
const nearLimitArb: fc.Arbitrary<GroupNode> = fc
  .tuple(validFilterArb({ maxDepth: 2 }), fc.integer({ min: 0, max: 2 }))
  .map(([t, slack]) => {
    let tree = withIds(t as unknown as GroupNode);
    const wraps = MAX_FILTER_DEPTH - depthOf(tree) - slack;
    for (let i = 0; i < wraps; i++) tree = { type: "group", op: "AND", negate: false, children: [tree] };
    return withIds(tree);
  });

const anyTreeArb = fc.oneof({ arbitrary: treeArb, weight: 4 }, { arbitrary: nearLimitArb, weight: 1 });

/** Commands that change the tree (undo / redo go through the history). */
const TREE_COMMANDS = COMMANDS.map((c) => c.id).filter((id) => id !== "undo" && id !== "redo");
/** Commands that add a node the user still has to fill in (invalid until then). */
const ADDS_INCOMPLETE = new Set<CommandId>(["addTitleMatch", "addCompanyMatch", "addLookalike"]);

interface Step {
  command: CommandId;
  pick: number;
  junkPath: boolean;
}
const stepArb: fc.Arbitrary<Step> = fc.record({
  command: fc.constantFrom(...TREE_COMMANDS),
  pick: fc.nat(),
  junkPath: fc
    .boolean()
    .chain((b) => (b ? fc.boolean() : fc.constant(false)))
    .chain((b) => (b ? fc.boolean() : fc.constant(false))),
});

function allPaths(tree: GroupNode): Path[] {
  const paths: Path[] = [];
  walk(tree, (_node, path) => paths.push(path));
  return paths;
}

/** A path of the tree chosen by `pick`, or (when `junk`) one that points nowhere. */
function choosePath(tree: GroupNode, pick: number, junk: boolean): Path {
  const paths = allPaths(tree);
  if (junk) {
    const base = paths[pick % paths.length]!;
    return [...base, 1000 + (pick % 5)];
  }
  return paths[pick % paths.length]!;
}

function nodes(tree: GroupNode): FilterNode[] {
  const out: FilterNode[] = [];
  walk(tree, (node) => out.push(node));
  return out;
}

function expectUniqueIds(tree: GroupNode) {
  const ids = nodes(tree).map((n) => n.id);
  for (const id of ids) expect(typeof id === "string" && id !== "").toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
}

/** Every node of `after` equal to the node with its id in `before` is that very object. */
function expectSharing(before: GroupNode, after: GroupNode) {
  const old = new Map(nodes(before).map((n) => [n.id, n]));
  for (const node of nodes(after)) {
    const previous = old.get(node.id);
    if (previous && sameTree(previous, node)) expect(node).toBe(previous);
  }
}

/** What must hold after any command at any path. */
function checkStep(before: GroupNode, command: CommandId, path: Path, result: OpResult) {
  expect(commandById(command).enabled(before, path)).toBe(result.ok);
  if (!result.ok) {
    expect(result.tree).toBe(before);
    expect(result.error.length).toBeGreaterThan(0);
    return;
  }
  const after = result.tree;
  expectUniqueIds(after);
  expect(depthOf(after)).toBeLessThanOrEqual(MAX_FILTER_DEPTH);
  if (strictOk(before) && !ADDS_INCOMPLETE.has(command)) expect(strictOk(after)).toBe(true);
  expect(validateTree(after).size === 0).toBe(sendable(after));
  if (result.focus) expect(nodeAt(after, result.focus)).toBeDefined();
  expectSharing(before, after);
}

describe("random commands on random paths", () => {
  it("either succeed keeping every invariant, or report an error with the tree unchanged", () => {
    fc.assert(
      fc.property(anyTreeArb, fc.array(stepArb, { minLength: 1, maxLength: 25 }), (start, steps) => {
        expect(strictOk(start)).toBe(true);
        let tree = start;
        for (const step of steps) {
          const path = choosePath(tree, step.pick, step.junkPath);
          const result = commandById(step.command).perform(tree, path);
          checkStep(tree, step.command, path, result);
          tree = result.tree;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("undoing every committed step returns the start tree; redoing them all the end tree", () => {
    type HistoryStep = Step | { type: "typing"; pick: number; text: string; gap: number };
    const typingArb = fc.record({
      type: fc.constant("typing" as const),
      pick: fc.nat(),
      text: fc.string({ maxLength: 6 }),
      gap: fc.constantFrom(50, 300, 999, 1500, 5000),
    });
    const historyStepArb: fc.Arbitrary<HistoryStep> = fc.oneof(stepArb, typingArb);
    fc.assert(
      fc.property(anyTreeArb, fc.array(historyStepArb, { minLength: 1, maxLength: 30 }), (start, steps) => {
        let h = createHistory(start);
        let now = 0;
        for (const step of steps) {
          if ("type" in step) {
            now += step.gap;
            const conditions = allPaths(h.present).filter((p) => nodeAt(h.present, p)?.type === "condition");
            if (conditions.length === 0) continue;
            const path = conditions[step.pick % conditions.length]!;
            const node = nodeAt(h.present, path)!;
            const result = updateNode(h.present, path, { value: step.text });
            expect(result.ok).toBe(true);
            h = commit(h, result.tree, { mergeKey: `${node.id}:value`, now });
          } else {
            now += 10_000;
            h = runCommand(h, step.command, choosePath(h.present, step.pick, step.junkPath), { now }).history;
          }
        }
        const end = h.present;
        while (canUndo(h)) h = undo(h);
        expect(h.present).toEqual(start);
        while (canRedo(h)) h = redo(h);
        expect(h.present).toEqual(end);
      }),
      { numRuns: 200 },
    );
  });
});

describe("moveNode", () => {
  it("moving a node and then moving it back restores the tree", () => {
    fc.assert(
      fc.property(treeArb, fc.nat(), fc.nat(), fc.nat(), (tree, pickFrom, pickTo, pickIndex) => {
        const paths = allPaths(tree);
        const movable = paths.filter((p) => p.length > 0);
        fc.pre(movable.length > 0);
        const from = movable[pickFrom % movable.length]!;
        const groups = paths.filter((p) => nodeAt(tree, p)?.type === "group");
        const toParent = groups[pickTo % groups.length]!;
        const destination = nodeAt(tree, toParent) as GroupNode;
        const toIndex = pickIndex % (destination.children.length + 1);
        const moved = moveNode(tree, from, toParent, toIndex);
        if (!moved.ok) {
          expect(moved.tree).toBe(tree);
          return;
        }
        expectUniqueIds(moved.tree);
        expectSharing(tree, moved.tree);
        expect(strictOk(moved.tree)).toBe(true);
        const node = nodeAt(tree, from)!;
        expect(nodeAt(moved.tree, moved.focus!)).toBe(node);
        // Back: into the original parent (found by id), at the original index.
        const parentId = nodeAt(tree, from.slice(0, -1))!.id as string;
        const back = moveNode(moved.tree, moved.focus!, pathOfId(moved.tree, parentId)!, from.at(-1)!);
        expect(back.ok).toBe(true);
        expect(back.tree).toEqual(tree);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses moving a group into itself or a descendant", () => {
    fc.assert(
      fc.property(treeArb, fc.nat(), fc.nat(), (tree, pickGroup, pickInner) => {
        const groups = allPaths(tree).filter((p) => p.length > 0 && nodeAt(tree, p)?.type === "group");
        fc.pre(groups.length > 0);
        const from = groups[pickGroup % groups.length]!;
        const inside = groups.filter((p) => p.length >= from.length && from.every((x, i) => p[i] === x));
        const into = inside[pickInner % inside.length]!;
        const result = moveNode(tree, from, into, 0);
        expect(result.ok).toBe(false);
        expect(result.tree).toBe(tree);
      }),
    );
  });
});

describe("validation agrees with the strict schema", () => {
  it("on valid trees, with or without ids", () => {
    fc.assert(
      fc.property(validFilterArb({ maxDepth: 4 }), (input) => {
        const tree = input as unknown as GroupNode;
        expect(strictOk(tree)).toBe(true);
        expect(validateTree(tree).size === 0).toBe(!hasBlankValue(tree));
        expect(validateTree(withIds(tree)).size === 0).toBe(!hasBlankValue(tree));
      }),
      { numRuns: 300 },
    );
  });

  it("on trees with one invalid node", () => {
    fc.assert(
      fc.property(invalidFilterArb({ maxDepth: 3 }), (input) => {
        const tree = input as GroupNode;
        expect(strictOk(tree)).toBe(false);
        expect(validateTree(tree).size).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it("on adversarial values, never throwing", () => {
    fc.assert(
      fc.property(brokenFilterArb(), (input) => {
        const tree = input as GroupNode;
        const problems = validateTree(tree);
        expect(problems.size === 0).toBe(sendable(tree));
        for (const reasons of problems.values()) expect(reasons.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("every problem is filed under a node of the tree, with ids", () => {
    fc.assert(
      fc.property(invalidFilterArb({ maxDepth: 3 }), (input) => {
        if (input === null || typeof input !== "object" || Array.isArray(input)) return;
        const tree = withIds(input as GroupNode);
        const ids = new Set(nodes(tree).map((n) => n.id));
        for (const key of validateTree(tree).keys()) expect(ids.has(key)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("toRequestFilter keeps validity and meaning", () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const sent = toRequestFilter(tree);
        expect(strictOk(sent)).toBe(true);
        expect(canonicalKey(sent)).toBe(canonicalKey(tree));
      }),
      { numRuns: 300 },
    );
  });
});
