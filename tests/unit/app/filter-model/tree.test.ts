import { describe, expect, it } from "vitest";
import {
  addNode,
  depthOf,
  duplicateNode,
  effectiveJoin,
  emptyTree,
  indent,
  moveDown,
  moveNode,
  moveUp,
  newCondition,
  newGroup,
  newId,
  newLookalike,
  newSemantic,
  nodeAt,
  outdent,
  pathOfId,
  removeNode,
  setGroupOp,
  setJoin,
  toggleNegate,
  unwrap,
  updateNode,
  withIds,
  wrapInGroup,
} from "../../../../src/app/lib/filter/tree";
import { type GroupNode, strictFilterSchemas } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { cond, deepTree, errorOf, group, look, okTree, sem, shape } from "./helpers";

/** root(a b g(c d) e) */
function sample(): GroupNode {
  return group("root", [cond("a"), cond("b"), group("g", [cond("c"), cond("d")]), cond("e")]);
}

describe("ids and new nodes", () => {
  it("newId is short and unique", () => {
    const ids = new Set(Array.from({ length: 5000 }, newId));
    expect(ids.size).toBe(5000);
    for (const id of [...ids].slice(0, 20)) expect(id).toMatch(/^[0-9A-Za-z]{14}$/);
  });

  it("emptyTree, newCondition, newGroup, newSemantic, newLookalike have the documented defaults", () => {
    expect(emptyTree()).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [],
    });
    expect(newCondition()).toEqual({
      type: "condition",
      column: "COUNTRY_NAME_PER",
      operator: "eq",
      value: "",
      id: expect.any(String),
    });
    expect(newCondition("JOB_TITLE_PER").column).toBe("JOB_TITLE_PER");
    const g = newGroup("OR");
    expect(g).toMatchObject({ type: "group", op: "OR", negate: false });
    expect(g.children).toHaveLength(1);
    expect(g.children[0]).toMatchObject({ type: "condition", operator: "eq", value: "" });
    expect(newGroup().op).toBe("AND");
    expect(newSemantic("company")).toEqual({
      type: "semantic",
      on: "company",
      text: "",
      match: "similar",
      negate: false,
      id: expect.any(String),
    });
    expect(newLookalike()).toEqual({
      type: "lookalike",
      domain: "",
      rbidOrg: "",
      match: "similar",
      negate: false,
      id: expect.any(String),
    });
  });

  it("newCondition on a masked column picks an operator that column allows", () => {
    const node = newCondition("EMAIL_ADDRESS_PER");
    expect(node.operator).toBe("isNull");
    expect(node).not.toHaveProperty("value");
    expect(strictFilterSchemas.node.safeParse(node).success).toBe(true);
  });

  it("new nodes are valid for the strict schema where they need no input", () => {
    expect(strictFilterSchemas.root.safeParse(emptyTree()).success).toBe(true);
    expect(strictFilterSchemas.root.safeParse(group("r", [newGroup()])).success).toBe(true);
    expect(strictFilterSchemas.node.safeParse(newSemantic("title")).success).toBe(false); // text needed
    expect(strictFilterSchemas.node.safeParse(newLookalike()).success).toBe(false); // company needed
  });

  it("withIds gives every node an id, keeps existing unique ones and fills the schema's defaults", () => {
    const input = {
      type: "group",
      children: [
        { type: "condition", column: "CITY_PER", operator: "eq", value: "Paris", id: "keep" },
        { type: "condition", column: "CITY_PER", operator: "eq", value: "Rome", id: "keep" },
        { type: "semantic", on: "title", text: "CMO", id: null },
        { type: "group", id: "" },
        { type: "lookalike", domain: "acme.com" },
      ],
    } as unknown as GroupNode;
    const tree = withIds(input);
    const ids: string[] = [];
    const visit = (n: { id?: unknown; children?: unknown[] }) => {
      ids.push(n.id as string);
      for (const c of (n.children ?? []) as (typeof n)[]) visit(c);
    };
    visit(tree as never);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(tree.children[0]!.id).toBe("keep");
    expect(tree.children[1]!.id).not.toBe("keep");
    expect(tree).toMatchObject({ op: "AND", negate: false });
    expect(tree.children[2]).toMatchObject({ negate: false });
    expect(tree.children[3]).toMatchObject({ op: "AND", negate: false, children: [] });
    expect(tree.children[4]).toMatchObject({ rbidOrg: "", negate: false });
    // The input is not touched.
    expect((input.children[3] as GroupNode).children).toBeUndefined();
    expect(strictFilterSchemas.root.safeParse(tree).success).toBe(true);
  });

  it("withIds shares subtrees that already have ids", () => {
    const tree = sample();
    expect(withIds(tree)).toBe(tree);
    const partly = group("root", [cond("a"), { ...cond("b"), id: undefined }, group("g", [cond("c")])]);
    const out = withIds(partly);
    expect(out.children[0]).toBe(partly.children[0]);
    expect(out.children[2]).toBe(partly.children[2]);
    expect(typeof out.children[1]!.id).toBe("string");
  });
});

describe("reading", () => {
  it("nodeAt follows child indexes and answers undefined for positions that do not exist", () => {
    const tree = sample();
    expect(nodeAt(tree, [])).toBe(tree);
    expect(nodeAt(tree, [2, 1])?.id).toBe("d");
    expect(nodeAt(tree, [9])).toBeUndefined();
    expect(nodeAt(tree, [0, 0])).toBeUndefined();
    expect(nodeAt(tree, [-1])).toBeUndefined();
    expect(nodeAt(tree, [1.5])).toBeUndefined();
  });

  it("pathOfId finds every node", () => {
    const tree = sample();
    expect(pathOfId(tree, "root")).toEqual([]);
    expect(pathOfId(tree, "d")).toEqual([2, 1]);
    expect(pathOfId(tree, "e")).toEqual([3]);
    expect(pathOfId(tree, "nope")).toBeUndefined();
  });

  it("depthOf counts levels as the contract does", () => {
    expect(depthOf(emptyTree())).toBe(1);
    expect(depthOf(sample())).toBe(3);
    expect(depthOf(deepTree(5))).toBe(6);
  });

  it("effectiveJoin: none before a first child, else the connector or the group's op", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" }), cond("c")], { op: "AND" });
    expect(effectiveJoin(tree, 0)).toBeNull();
    expect(effectiveJoin(tree, 1)).toBe("OR");
    expect(effectiveJoin(tree, 2)).toBe("AND");
  });
});

describe("addNode", () => {
  it("appends by default and focuses the new node", () => {
    const tree = sample();
    const result = addNode(tree, [2], cond("x"));
    expect(result).toMatchObject({ ok: true, focus: [2, 2] });
    expect(shape(okTree(result))).toBe("root(a b g(c d x) e)");
  });

  it("inserts at an index, and a node added first loses its connector", () => {
    const tree = sample();
    expect(shape(okTree(addNode(tree, [], cond("x"), 1)))).toBe("root(a x b g(c d) e)");
    const first = okTree(addNode(tree, [], cond("x", { joinWithPrevious: "OR" }), 0));
    expect(shape(first)).toBe("root(x a b g(c d) e)");
    const second = okTree(addNode(tree, [], cond("x", { joinWithPrevious: "OR" }), 1));
    expect(shape(second)).toBe("root(a or:x b g(c d) e)");
  });

  it("copies only along the path (structural sharing)", () => {
    const tree = sample();
    const next = okTree(addNode(tree, [2], cond("x")));
    expect(next).not.toBe(tree);
    expect(next.children[2]).not.toBe(tree.children[2]);
    expect(next.children[0]).toBe(tree.children[0]);
    expect(next.children[1]).toBe(tree.children[1]);
    expect(next.children[3]).toBe(tree.children[3]);
    const g = next.children[2] as GroupNode;
    expect(g.children[0]).toBe((tree.children[2] as GroupNode).children[0]);
  });

  it("gives fresh ids to a node whose ids are missing or already used", () => {
    const tree = sample();
    const next = okTree(addNode(tree, [], group("a", [cond("c"), { ...cond("y"), id: null }])));
    const added = next.children[4] as GroupNode;
    expect(added.id).not.toBe("a");
    expect(added.children[0]!.id).not.toBe("c");
    expect(typeof added.children[1]!.id).toBe("string");
  });

  it("refuses with reasons", () => {
    const tree = sample();
    expect(errorOf(addNode(tree, [7], cond("x")))).toBe("There is nothing at that position in the filter.");
    expect(errorOf(addNode(tree, [0], cond("x")))).toBe("Items can only be added to a group.");
    expect(errorOf(addNode(tree, [], cond("x"), 9))).toBe(
      "Position 9 is outside the group, which holds 4 items.",
    );
    expect(errorOf(addNode(tree, [], { type: "nope" } as never))).toBe(
      "That is not something a filter can hold.",
    );
    const failed = addNode(tree, [], cond("x"), -1);
    expect(failed.ok).toBe(false);
    expect(failed.tree).toBe(tree);
  });

  it("refuses to nest deeper than MAX_FILTER_DEPTH", () => {
    const tree = deepTree(MAX_FILTER_DEPTH - 1); // depth 32: a condition at level 32
    expect(depthOf(tree)).toBe(MAX_FILTER_DEPTH);
    const deepest = Array.from({ length: MAX_FILTER_DEPTH - 2 }, () => 0);
    expect(nodeAt(tree, deepest)?.type).toBe("group");
    expect(addNode(tree, deepest, cond("x")).ok).toBe(true);
    expect(errorOf(addNode(tree, deepest, newGroup()))).toBe(
      `That would nest the filter 33 levels deep; at most ${MAX_FILTER_DEPTH} are allowed.`,
    );
  });
});

describe("removeNode", () => {
  it("removes and focuses the successor, else the previous sibling, else the parent", () => {
    const tree = sample();
    const a = removeNode(tree, [1]);
    expect(shape(okTree(a))).toBe("root(a g(c d) e)");
    expect(a).toMatchObject({ focus: [1] });
    expect(removeNode(tree, [3])).toMatchObject({ ok: true, focus: [2] });
    const single = group("r", [group("g", [cond("x")])]);
    expect(removeNode(single, [0, 0])).toMatchObject({ ok: true, focus: [0] });
  });

  it("the successor of a removed first child drops its connector; other connectors stay", () => {
    const tree = group("r", [
      cond("a"),
      cond("b", { joinWithPrevious: "OR" }),
      cond("c", { joinWithPrevious: "OR" }),
    ]);
    expect(shape(okTree(removeNode(tree, [0])))).toBe("r(b or:c)");
    expect(shape(okTree(removeNode(tree, [1])))).toBe("r(a or:c)");
  });

  it("shares untouched siblings", () => {
    const tree = sample();
    const next = okTree(removeNode(tree, [2, 0]));
    expect(next.children[0]).toBe(tree.children[0]);
    expect(next.children[3]).toBe(tree.children[3]);
    expect((next.children[2] as GroupNode).children[0]).toBe((tree.children[2] as GroupNode).children[1]);
  });

  it("refuses the root and missing nodes, answering the tree unchanged", () => {
    const tree = sample();
    const root = removeNode(tree, []);
    expect(errorOf(root)).toBe("The top-level group cannot be removed.");
    expect(root.tree).toBe(tree);
    expect(errorOf(removeNode(tree, [4]))).toBe("There is nothing at that position in the filter.");
    expect(errorOf(removeNode(tree, [0, 0]))).toBe("There is nothing at that position in the filter.");
  });
});

describe("duplicateNode", () => {
  it("inserts a deep copy with fresh ids right after, focused", () => {
    const tree = sample();
    const result = duplicateNode(tree, [2]);
    const next = okTree(result);
    expect(result).toMatchObject({ focus: [3] });
    const copy = next.children[3] as GroupNode;
    const original = tree.children[2] as GroupNode;
    expect(copy).toEqual({
      ...original,
      id: copy.id,
      children: original.children.map((c, i) => ({ ...c, id: copy.children[i]!.id })),
    });
    const ids = [copy.id, ...copy.children.map((c) => c.id)];
    for (const id of ids) expect(["g", "c", "d"]).not.toContain(id);
    expect(next.children[2]).toBe(original);
    expect(next.children[4]).toBe(tree.children[3]);
  });

  it("refuses the root", () => {
    expect(errorOf(duplicateNode(sample(), []))).toBe("The top-level group cannot be duplicated.");
  });
});

describe("updateNode", () => {
  it("merges shallowly and focuses the node", () => {
    const tree = sample();
    const result = updateNode(tree, [2, 1], { value: "France", operator: "ne" });
    expect(result).toMatchObject({ ok: true, focus: [2, 1] });
    const next = okTree(result);
    expect(nodeAt(next, [2, 1])).toEqual({ ...cond("d"), value: "France", operator: "ne" });
    expect((next.children[2] as GroupNode).children[0]).toBe((tree.children[2] as GroupNode).children[0]);
    expect(next.children[0]).toBe(tree.children[0]);
  });

  it("removes a field set to undefined", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" })]);
    const next = okTree(updateNode(tree, [1], { joinWithPrevious: undefined }));
    expect(next.children[1]).not.toHaveProperty("joinWithPrevious");
  });

  it("answers the same tree when nothing changes", () => {
    const tree = sample();
    expect(okTree(updateNode(tree, [0], { value: "a", type: "condition", id: "a" }))).toBe(tree);
    expect(okTree(updateNode(tree, [0], {}))).toBe(tree);
    expect(okTree(updateNode(tree, [0], { valueList: undefined }))).toBe(tree);
  });

  it("refuses changing type, id or children, unknown fields, wrong types and removing required fields", () => {
    const tree = sample();
    expect(errorOf(updateNode(tree, [0], { type: "group" }))).toBe(
      "The kind of an item cannot be changed; add a new one instead.",
    );
    expect(errorOf(updateNode(tree, [0], { id: "z" }))).toBe("An item's id cannot be changed.");
    expect(errorOf(updateNode(tree, [2], { children: [] }))).toBe(
      "A group's items change through add, remove and move, not through an update.",
    );
    expect(errorOf(updateNode(tree, [0], { negate: true }))).toBe('A condition has no field "negate".');
    expect(errorOf(updateNode(tree, [2], { op: "XOR" }))).toBe('"op" must be AND or OR.');
    expect(errorOf(updateNode(tree, [0], { operator: "like" }))).toBe(
      '"operator" must be a known comparison.',
    );
    expect(errorOf(updateNode(tree, [0], { value: {} }))).toBe(
      '"value" must be a text, a number, true, false or nothing.',
    );
    expect(errorOf(updateNode(tree, [0], { column: undefined }))).toBe('"column" cannot be removed.');
    expect(errorOf(updateNode(tree, [9], { value: "x" }))).toBe(
      "There is nothing at that position in the filter.",
    );
    const failed = updateNode(tree, [0], { value: "ok", bogus: 1 });
    expect(failed.ok).toBe(false);
    expect(failed.tree).toBe(tree);
  });

  it("updates the root's own fields", () => {
    const tree = sample();
    const next = okTree(updateNode(tree, [], { op: "OR" }));
    expect(next.op).toBe("OR");
    expect(next.children).toBe(tree.children);
  });
});

describe("moveNode", () => {
  it("moves within a group, toIndex counted after removal", () => {
    const tree = sample();
    expect(shape(okTree(moveNode(tree, [0], [], 2)))).toBe("root(b g(c d) a e)");
    expect(shape(okTree(moveNode(tree, [3], [], 0)))).toBe("root(e a b g(c d))");
    expect(shape(okTree(moveNode(tree, [0], [], 3)))).toBe("root(b g(c d) e a)");
  });

  it("moves into another group, also when the move shifts the destination's path", () => {
    const tree = sample();
    const result = moveNode(tree, [0], [2], 1);
    expect(shape(okTree(result))).toBe("root(b g(c a d) e)");
    expect(result).toMatchObject({ focus: [1, 1] });
    expect(shape(okTree(moveNode(tree, [2, 0], [], 4)))).toBe("root(a b g(d) e c)");
    expect(shape(okTree(moveNode(tree, [3], [2], 0)))).toBe("root(a b g(e c d))");
  });

  it("a move to the same place answers the same tree", () => {
    const tree = sample();
    expect(okTree(moveNode(tree, [1], [], 1))).toBe(tree);
  });

  it("carries connectors with their nodes, so moving back restores the tree", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" }), cond("c")]);
    const moved = okTree(moveNode(tree, [1], [], 0));
    expect(shape(moved)).toBe("r(or:b a c)");
    expect(okTree(moveNode(moved, [0], [], 1))).toEqual(tree);
  });

  it("shares subtrees it does not touch", () => {
    const tree = sample();
    const next = okTree(moveNode(tree, [2, 1], [2], 0));
    expect(next.children[0]).toBe(tree.children[0]);
    expect(next.children[3]).toBe(tree.children[3]);
  });

  it("refuses moving into itself or a descendant, the root, and bad destinations", () => {
    const tree = group("r", [group("g", [group("h", [cond("x")])]), cond("y")]);
    expect(errorOf(moveNode(tree, [0], [0], 0))).toBe(
      "A group cannot be moved into itself or into a group inside it.",
    );
    expect(errorOf(moveNode(tree, [0], [0, 0], 0))).toBe(
      "A group cannot be moved into itself or into a group inside it.",
    );
    expect(errorOf(moveNode(tree, [], [0], 0))).toBe("The top-level group cannot be moved.");
    expect(errorOf(moveNode(tree, [1], [5], 0))).toBe("There is no group at the destination.");
    expect(errorOf(moveNode(tree, [0], [1], 0))).toBe("Items can only be moved into a group.");
    expect(errorOf(moveNode(tree, [1], [], 2))).toBe(
      "Position 2 is outside the group, which holds 1 other items.",
    );
    expect(errorOf(moveNode(tree, [9], [], 0))).toBe("There is nothing at that position in the filter.");
  });

  it("refuses a move that nests too deep", () => {
    const tree = deepTree(MAX_FILTER_DEPTH - 1);
    const withSibling = okTree(addNode(tree, [], newGroup()));
    const deepest = Array.from({ length: MAX_FILTER_DEPTH - 2 }, () => 0);
    expect(errorOf(moveNode(withSibling, [1], deepest, 0))).toMatch(/33 levels deep/);
    expect(moveNode(withSibling, [1], deepest.slice(1), 0).ok).toBe(true);
  });
});

describe("moveUp / moveDown", () => {
  it("swap with a sibling, connectors staying between the same positions", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" }), cond("c")]);
    const up = moveUp(tree, [1]);
    expect(shape(okTree(up))).toBe("r(b or:a c)");
    expect(up).toMatchObject({ focus: [0] });
    const down = moveDown(tree, [1]);
    expect(shape(okTree(down))).toBe("r(a or:c b)");
    expect(down).toMatchObject({ focus: [2] });
    expect(okTree(moveDown(okTree(up), [0]))).toEqual(tree);
  });

  it("share untouched siblings", () => {
    const tree = sample();
    const next = okTree(moveDown(tree, [0]));
    expect(next.children[0]).toBe(tree.children[1]);
    expect(next.children[1]).toBe(tree.children[0]);
    expect(next.children[2]).toBe(tree.children[2]);
  });

  it("refuse at the ends and on the root", () => {
    const tree = sample();
    expect(errorOf(moveUp(tree, [0]))).toBe("It is already first in its group.");
    expect(errorOf(moveDown(tree, [3]))).toBe("It is already last in its group.");
    expect(errorOf(moveUp(tree, []))).toBe("The top-level group cannot be moved.");
  });
});

describe("indent", () => {
  it("moves a node into the previous sibling when it is a group (appended)", () => {
    const tree = sample();
    const result = indent(tree, [3]);
    expect(shape(okTree(result))).toBe("root(a b g(c d e))");
    expect(result).toMatchObject({ focus: [2, 2] });
  });

  it("a node indented into an empty group loses its connector", () => {
    const tree = group("r", [group("g", []), cond("a", { joinWithPrevious: "OR" })]);
    expect(shape(okTree(indent(tree, [1])))).toBe("r(g(a))");
  });

  it("otherwise wraps it with its previous sibling in a new group using the connector between them", () => {
    const tree = group("r", [
      cond("a"),
      cond("b", { joinWithPrevious: "OR" }),
      cond("c", { joinWithPrevious: "OR" }),
    ]);
    const result = indent(tree, [2]);
    const next = okTree(result);
    expect(result).toMatchObject({ focus: [1, 1] });
    const made = next.children[1] as GroupNode;
    expect(made).toMatchObject({ type: "group", op: "OR", negate: false, joinWithPrevious: "OR" });
    expect(made.children.map((c) => c.id)).toEqual(["b", "c"]);
    expect(made.children.every((c) => c.joinWithPrevious === undefined)).toBe(true);
    expect(next.children[0]).toBe(tree.children[0]);
    const plain = okTree(indent(sample(), [1]));
    expect((plain.children[0] as GroupNode).op).toBe("AND");
    expect(plain.children[0]).not.toHaveProperty("joinWithPrevious");
  });

  it("refuses a first child, the root, and too deep a result", () => {
    expect(errorOf(indent(sample(), [0]))).toBe(
      "The first item of a group cannot be indented: nothing is above it.",
    );
    expect(errorOf(indent(sample(), []))).toBe("The top-level group cannot be indented.");
    // [x, deep chain]: grouping the chain with x pushes it one level down.
    const tree = okTree(addNode(deepTree(MAX_FILTER_DEPTH - 1), [], cond("x"), 0));
    expect(errorOf(indent(tree, [1]))).toBe(
      "That would nest the filter 33 levels deep; at most 32 are allowed.",
    );
    // Into the chain's top group instead: fine.
    const other = okTree(addNode(deepTree(MAX_FILTER_DEPTH - 1), [], cond("x")));
    expect(indent(other, [1]).ok).toBe(true);
  });
});

describe("outdent", () => {
  it("moves a node to its grandparent, right after its parent", () => {
    const tree = sample();
    const result = outdent(tree, [2, 1]);
    expect(shape(okTree(result))).toBe("root(a b g(c) d e)");
    expect(result).toMatchObject({ focus: [3] });
  });

  it("the successor of an outdented first child drops its connector", () => {
    const tree = group("r", [group("g", [cond("c"), cond("d", { joinWithPrevious: "OR" })])]);
    expect(shape(okTree(outdent(tree, [0, 0])))).toBe("r(g(d) c)");
  });

  it("refuses at the top level", () => {
    expect(errorOf(outdent(sample(), [1]))).toBe("It is already at the top level.");
    expect(errorOf(outdent(sample(), []))).toBe("The top-level group cannot be outdented.");
  });
});

describe("wrapInGroup / unwrap", () => {
  it("wraps a node in a group that takes over its connector", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" })]);
    const result = wrapInGroup(tree, [1]);
    const next = okTree(result);
    expect(result).toMatchObject({ focus: [1] });
    expect(next.children[1]).toMatchObject({
      type: "group",
      op: "AND",
      negate: false,
      joinWithPrevious: "OR",
    });
    expect((next.children[1] as GroupNode).children[0]).toEqual(cond("b"));
    expect(next.children[0]).toBe(tree.children[0]);
  });

  it("refuses wrapping the root or nesting too deep", () => {
    expect(errorOf(wrapInGroup(sample(), []))).toBe("The top-level group cannot be wrapped.");
    const tree = deepTree(MAX_FILTER_DEPTH - 1);
    expect(errorOf(wrapInGroup(tree, [0]))).toMatch(/33 levels deep/);
  });

  it("unwraps a group into its children; the first takes the group's connector", () => {
    const tree = group("r", [
      cond("a"),
      group("g", [cond("c"), cond("d")], { joinWithPrevious: "OR" }),
      cond("e"),
    ]);
    const result = unwrap(tree, [1]);
    expect(shape(okTree(result))).toBe("r(a or:c d e)");
    expect(result).toMatchObject({ focus: [1] });
  });

  it("unwrapping keeps the connectors that applied inside the group", () => {
    const tree = group("r", [
      cond("a"),
      group("g", [cond("c"), cond("d"), cond("x", { joinWithPrevious: "AND" })], { op: "OR" }),
    ]);
    expect(shape(okTree(unwrap(tree, [1])))).toBe("r(a c or:d and:x)");
  });

  it("wrap then unwrap restores the tree", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" })]);
    expect(okTree(unwrap(okTree(wrapInGroup(tree, [1])), [1]))).toEqual(tree);
  });

  it("unwrapping an empty group removes it", () => {
    const tree = group("r", [group("g", []), cond("b", { joinWithPrevious: "OR" })]);
    expect(shape(okTree(unwrap(tree, [0])))).toBe("r(b)");
  });

  it("refuses the root, a non-group and a negated group", () => {
    expect(errorOf(unwrap(sample(), []))).toBe("The top-level group cannot be ungrouped.");
    expect(errorOf(unwrap(sample(), [0]))).toBe("Only a group can be ungrouped.");
    const tree = group("r", [group("g", [cond("c")], { negate: true })]);
    expect(errorOf(unwrap(tree, [0]))).toBe(
      "Remove NOT first: ungrouping a negated group would change what it means.",
    );
  });
});

describe("toggleNegate", () => {
  it("flips negate on groups, semantic and lookalike nodes, and the root", () => {
    const tree = group("r", [sem("s"), look("l"), group("g", [cond("a"), cond("b")])]);
    expect(okTree(toggleNegate(tree, [0])).children[0]).toMatchObject({ negate: true });
    expect(okTree(toggleNegate(tree, [1])).children[1]).toMatchObject({ negate: true });
    expect(okTree(toggleNegate(tree, [2])).children[2]).toMatchObject({ negate: true });
    expect(okTree(toggleNegate(tree, [])).negate).toBe(true);
    const twice = okTree(toggleNegate(okTree(toggleNegate(tree, [0])), [0]));
    expect(twice).toEqual(tree);
  });

  it("wraps a condition in a negated group (focus on the condition), and unwraps it on the next toggle", () => {
    const tree = group("r", [cond("a"), cond("b", { joinWithPrevious: "OR" })]);
    const on = toggleNegate(tree, [1]);
    const negated = okTree(on);
    expect(on).toMatchObject({ focus: [1, 0] });
    expect(negated.children[1]).toMatchObject({ type: "group", negate: true, joinWithPrevious: "OR" });
    expect((negated.children[1] as GroupNode).children).toEqual([cond("b")]);
    expect(strictFilterSchemas.root.safeParse(negated).success).toBe(true);
    // Off again, from the condition or from the group.
    const fromCondition = toggleNegate(negated, [1, 0]);
    expect(okTree(fromCondition)).toEqual(tree);
    expect(fromCondition).toMatchObject({ focus: [1] });
    expect(okTree(toggleNegate(negated, [1]))).toEqual(tree);
  });

  it("a negated group with several items just loses its NOT", () => {
    const tree = group("r", [group("g", [cond("a"), cond("b")], { negate: true })]);
    expect(okTree(toggleNegate(tree, [0])).children[0]).toMatchObject({ type: "group", negate: false });
    // A condition inside it is wrapped on its own instead.
    expect(shape(okTree(toggleNegate(tree, [0, 1])))).toMatch(/^r\(!g\(a !\w+\(b\)\)\)$/);
  });

  it("refuses nothing there and too deep a wrap", () => {
    expect(errorOf(toggleNegate(sample(), [8]))).toBe("There is nothing at that position in the filter.");
    const tree = deepTree(MAX_FILTER_DEPTH - 1);
    const leaf = Array.from({ length: MAX_FILTER_DEPTH - 1 }, () => 0);
    expect(nodeAt(tree, leaf)?.type).toBe("condition");
    expect(errorOf(toggleNegate(tree, leaf))).toMatch(/33 levels deep/);
  });
});

describe("setGroupOp / setJoin", () => {
  it("sets a group's op", () => {
    const tree = sample();
    const next = okTree(setGroupOp(tree, [2], "OR"));
    expect((next.children[2] as GroupNode).op).toBe("OR");
    expect(next.children[0]).toBe(tree.children[0]);
    expect(okTree(setGroupOp(tree, [2], "AND"))).toBe(tree);
    expect(errorOf(setGroupOp(tree, [0], "OR"))).toBe("Only a group combines items with AND or OR.");
    expect(errorOf(setGroupOp(tree, [2], "XOR" as never))).toBe("A group combines its items with AND or OR.");
  });

  it("sets and clears the connector before a node", () => {
    const tree = sample();
    const or = okTree(setJoin(tree, [1], "OR"));
    expect(or.children[1]).toMatchObject({ joinWithPrevious: "OR" });
    expect(okTree(setJoin(or, [1], null)).children[1]).not.toHaveProperty("joinWithPrevious");
    expect(okTree(setJoin(tree, [1], null))).toBe(tree);
  });

  it("refuses a first child and the root", () => {
    expect(errorOf(setJoin(sample(), [0], "OR"))).toBe(
      "The first item of a group has no connector before it.",
    );
    expect(errorOf(setJoin(sample(), [2, 0], "OR"))).toBe(
      "The first item of a group has no connector before it.",
    );
    expect(errorOf(setJoin(sample(), [], "OR"))).toBe("The top-level group cannot be joined to anything.");
    expect(errorOf(setJoin(sample(), [1], "X" as never))).toBe("A connector is AND or OR.");
  });
});

describe("never throws", () => {
  it("answers an error for malformed paths", () => {
    const tree = sample();
    const bad = [[NaN], [-1], [0.5], [99, 0], "0" as unknown as number[], null as unknown as number[]];
    for (const path of bad) {
      for (const op of [
        removeNode,
        duplicateNode,
        moveUp,
        moveDown,
        indent,
        outdent,
        wrapInGroup,
        unwrap,
        toggleNegate,
      ]) {
        const result = op(tree, path);
        expect(result.ok).toBe(false);
        expect(result.tree).toBe(tree);
      }
      expect(updateNode(tree, path, { value: "x" }).ok).toBe(false);
      expect(addNode(tree, path, cond("x")).ok).toBe(false);
      expect(moveNode(tree, path, [], 0).ok).toBe(false);
      expect(moveNode(tree, [0], path, 0).ok).toBe(false);
      expect(setJoin(tree, path, "OR").ok).toBe(false);
      expect(setGroupOp(tree, path, "OR").ok).toBe(false);
    }
  });
});
