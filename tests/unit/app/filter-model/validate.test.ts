import { describe, expect, it } from "vitest";
import { updateNode, withIds } from "../../../../src/app/lib/filter/tree";
import {
  countablePart,
  firstProblem,
  toRequestFilter,
  validateTree,
} from "../../../../src/app/lib/filter/validate";
import { canonicalKey } from "../../../../src/contract/canonical";
import { type GroupNode, strictFilterSchemas } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { cond, deepTree, group, look, okTree, sem } from "./helpers";

/** The reasons of the single node `id` in a tree holding only that node (as the root's child). */
function reasons(node: Parameters<typeof group>[1][number]): readonly string[] | undefined {
  const tree = group("root", [node]);
  const problems = validateTree(tree);
  expect(problems.size === 0).toBe(strictFilterSchemas.root.safeParse(tree).success);
  return problems.get(node.id as string);
}

describe("validateTree: messages for people, per node", () => {
  it("a valid tree has no problems", () => {
    const tree = group("r", [cond("a"), group("g", [sem("s"), look("l")], { negate: true })]);
    expect(validateTree(tree).size).toBe(0);
  });

  it("conditions", () => {
    expect(reasons(cond("x", { column: "" }))).toEqual(["Choose a column."]);
    expect(reasons(cond("x", { column: "NOPE" }))).toEqual(['There is no column "NOPE"; choose another.']);
    expect(reasons(cond("x", { column: "EMPLOYEE_COUNT_MIN", value: "ten" }))).toEqual([
      "Enter a whole number.",
    ]);
    expect(reasons(cond("x", { column: "EMPLOYEE_COUNT_MIN", value: 2.5 }))).toEqual([
      "Enter a whole number.",
    ]);
    expect(reasons(cond("x", { column: "EMPLOYEE_COUNT_MIN", value: 10 }))).toBeUndefined();
    expect(reasons(cond("x", { value: undefined }))).toEqual(["Enter a value."]);
    expect(reasons(cond("x", { value: 5 }))).toEqual(["Enter text."]);
    expect(
      reasons(cond("x", { column: "FOUNDED_ORG", operator: "between", value: 1990, value2: undefined })),
    ).toEqual(["Enter a whole number for the upper end."]);
    expect(reasons(cond("x", { operator: "between", value: 5 }))).toEqual([
      'Country cannot use "is between"; choose "is", "is not", "contains", "starts with", "ends with", "is one of", "is none of", "is empty", "is known".',
    ]);
    expect(reasons(cond("x", { operator: "in", valueList: [] }))).toEqual(["Enter at least one value."]);
    expect(reasons(cond("x", { operator: "in", valueList: null }))).toEqual(["Enter at least one value."]);
    expect(reasons(cond("x", { operator: "notIn" }))).toEqual(["Enter at least one value."]);
    expect(
      reasons(cond("x", { column: "REVENUE_MIN", operator: "in", valueList: ["1", "a", "2", "b"] })),
    ).toEqual(['Enter whole numbers only ("a", "b" are not).']);
    expect(reasons(cond("x", { column: "REVENUE_MIN", operator: "in", valueList: ["1", "x"] }))).toEqual([
      'Enter whole numbers only ("x" is not one).',
    ]);
    expect(
      reasons(cond("x", { operator: "in", valueList: Array.from({ length: 10_001 }, (_, i) => `v${i}`) })),
    ).toEqual(["Enter at most 10,000 values."]);
    expect(reasons(cond("x", { column: "EMAIL_ADDRESS_PER", operator: "eq", value: "a@b.c" }))).toEqual([
      "Email can only be checked for being known or empty.",
    ]);
    expect(reasons(cond("x", { operator: "like" as never }))).toEqual(["Choose a comparison."]);
    expect(reasons(cond("x", { operator: "isNull", value: undefined }))).toBeUndefined();
  });

  it("similarity and lookalike matches", () => {
    expect(reasons(sem("s", { text: "" }))).toEqual(["Enter a job title."]);
    expect(reasons(sem("s", { text: "   ", on: "company" }))).toEqual(["Describe the kind of company."]);
    expect(reasons(sem("s", { maxDistance: 3 }))).toEqual(["Enter a distance between 0 and 2."]);
    expect(reasons(sem("s", { match: "close" as never }))).toEqual(["Choose a match level."]);
    expect(reasons(look("l", { domain: "", rbidOrg: "" }))).toEqual([
      "Name the company: its domain, its name or its company ID.",
    ]);
    expect(reasons(look("l", { domain: "", rbidOrg: "ORG000001" }))).toBeUndefined();
  });

  it("groups, connectors, unknown fields and kinds", () => {
    expect(reasons(group("g", [], { op: "XOR" as never }))).toEqual(["Choose AND or OR for this group."]);
    expect(reasons(cond("x", { joinWithPrevious: "NOR" as never }))).toEqual([
      "Choose AND or OR to join this to the item before it.",
    ]);
    expect(reasons({ ...cond("x"), negate: true } as never)).toEqual([
      'This condition has a field the service does not know ("negate"); remove it.',
    ]);
    expect(reasons({ type: "nope", id: "x" } as never)).toEqual([
      "This item is of an unknown kind; delete it.",
    ]);
  });

  it("files problems under each node's id, and the root's own fields under the root", () => {
    const tree = group("r", [cond("a", { column: "" }), group("g", [sem("s", { text: "" })])], {
      op: "X" as never,
    });
    const problems = validateTree(tree);
    expect([...problems.keys()].sort()).toEqual(["a", "r", "s"]);
    expect(problems.get("r")).toEqual(["Choose AND or OR for this group."]);
  });

  it("a group is not blamed for its children's problems", () => {
    const tree = group("r", [group("g", [cond("a", { column: "" })])]);
    expect(validateTree(tree).has("g")).toBe(false);
  });

  it("nodes without ids are filed under their path", () => {
    const tree = group("r", [{ ...cond("a", { column: "" }), id: undefined }]);
    expect(validateTree(tree).get("path:0")).toEqual(["Choose a column."]);
  });

  it("unreadable children are blamed on their group", () => {
    const tree = group("r", [null as never]);
    expect(validateTree(tree).get("r")).toEqual(["Part of this group is unreadable; delete it."]);
    expect(strictFilterSchemas.root.safeParse(tree).success).toBe(false);
  });

  it("a tree nested too deep is one problem at the root", () => {
    const tree = deepTree(MAX_FILTER_DEPTH); // depth 33
    const problems = validateTree(tree);
    expect(problems.size).toBe(1);
    expect(problems.get("root")?.[0]).toMatch(/nests 33 levels deep; at most 32/);
    expect(validateTree(deepTree(MAX_FILTER_DEPTH - 1)).size).toBe(0);
  });
});

describe("firstProblem", () => {
  it("answers the first problem in document order", () => {
    const tree = group("r", [
      cond("a"),
      group("g", [cond("b", { column: "" }), sem("s", { text: "" })]),
      cond("c", { column: "" }),
    ]);
    const problems = validateTree(tree);
    expect(firstProblem(tree, problems)).toEqual({ id: "b", path: [1, 0], message: "Choose a column." });
    expect(firstProblem(group("r", [cond("a")]), validateTree(group("r", [cond("a")])))).toBeUndefined();
  });
});

describe("memoisation and speed", () => {
  const big = (): GroupNode =>
    group(
      "root",
      Array.from({ length: 30 }, (_, g) =>
        group(
          `g${g}`,
          Array.from({ length: 10 }, (_, i) =>
            cond(`c${g}-${i}`, i % 3 === 0 ? { column: "EMPLOYEE_COUNT_MIN", value: i } : {}),
          ),
        ),
      ),
    );

  it("the same tree object answers the same map", () => {
    const tree = big();
    expect(validateTree(tree)).toBe(validateTree(tree));
  });

  it("re-validates a 300-condition tree on each keystroke quickly", () => {
    let tree = big();
    validateTree(tree);
    const started = performance.now();
    const rounds = 200;
    for (let i = 0; i < rounds; i++) {
      tree = okTree(updateNode(tree, [i % 30, 1], { value: `typed ${i}` }));
      const problems = validateTree(tree);
      expect(problems.size).toBe(0);
    }
    const perKeystroke = (performance.now() - started) / rounds;
    // Typically well under 0.5 ms; the bound only catches a full re-parse per keystroke gone wrong.
    expect(perKeystroke).toBeLessThan(8);
  });

  it("an invalid edit shows up and goes away as the user types", () => {
    let tree = big();
    tree = okTree(updateNode(tree, [3, 0], { value: "12a" }));
    expect(validateTree(tree).get("c3-0")).toEqual(["Enter a whole number."]);
    tree = okTree(updateNode(tree, [3, 0], { value: 12 }));
    expect(validateTree(tree).size).toBe(0);
  });
});

describe("toRequestFilter", () => {
  it("drops connectors on first children and operands the operator does not read, keeping ids", () => {
    const tree = group("r", [
      cond("a", { joinWithPrevious: "OR", operator: "in", valueList: ["x"], value: "left over" }),
      cond("b", { joinWithPrevious: "OR", operator: "isNull", value: "x", value2: "y", valueList: null }),
      group("g", [cond("c", { joinWithPrevious: "AND" })]),
    ]);
    const out = toRequestFilter(tree);
    expect(out).toEqual(
      group("r", [
        { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["x"], id: "a" },
        {
          type: "condition",
          column: "COUNTRY_NAME_PER",
          operator: "isNull",
          id: "b",
          joinWithPrevious: "OR",
        },
        group("g", [cond("c")]),
      ]),
    );
    expect(canonicalKey(out)).toBe(canonicalKey(tree));
    expect(strictFilterSchemas.root.safeParse(out).success).toBe(true);
  });

  it("shares what it does not change", () => {
    const tree = group("r", [cond("a"), group("g", [cond("c")])]);
    expect(toRequestFilter(tree)).toBe(tree);
  });
});

describe("an unfinished rule blocks sending, though the contract would accept it", () => {
  const root = (children: unknown[]) =>
    withIds({ type: "group", op: "AND", negate: false, children } as never);

  it("a blank value, a blank end of a range, an empty list entry", () => {
    for (const condition of [
      { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "" },
      { type: "condition", column: "COUNTRY_NAME_PER", operator: "contains", value: "   " },
      { type: "condition", column: "CITY_PER", operator: "in", valueList: [""] },
    ]) {
      const tree = root([condition]);
      const problems = validateTree(tree);
      expect([...problems.values()].flat().join(" ")).toMatch(/Enter (a value|at least one value)/);
      expect(firstProblem(tree, problems)?.path).toEqual([0]);
    }
  });

  it("is finished once filled in; null checks need nothing", () => {
    expect(
      validateTree(root([{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Spain" }]))
        .size,
    ).toBe(0);
    expect(validateTree(root([{ type: "condition", column: "CITY_PER", operator: "isNull" }])).size).toBe(0);
  });
});

describe("a range with its ends swapped matches nobody: refused in place, before anything is sent", () => {
  const root = (children: unknown[]) =>
    withIds({ type: "group", op: "AND", negate: false, children } as never);
  const founded = (value: unknown, value2: unknown) =>
    root([{ type: "condition", column: "FOUNDED_ORG", operator: "between", value, value2 }]);

  it("says which end is which, and to swap them", () => {
    const tree = founded(2020, 1990);
    const problems = validateTree(tree);
    expect([...problems.values()].flat()).toEqual([
      "The lower end (2020) is above the upper end (1990): swap them, or nobody matches.",
    ]);
    expect(firstProblem(tree, problems)?.path).toEqual([0]);
  });

  it("ends in order, or equal, are fine", () => {
    expect(validateTree(founded(1990, 2020)).size).toBe(0);
    expect(validateTree(founded(2000, 2000)).size).toBe(0);
  });
});

describe("countablePart: what is counted while the audience is being edited", () => {
  const root = (children: unknown[]) =>
    withIds({ type: "group", op: "AND", negate: false, children } as never) as GroupNode;
  const germany = { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" };
  const blank = { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "" };
  const swapped = {
    type: "condition",
    column: "FOUNDED_ORG",
    operator: "between",
    value: 2020,
    value2: 1990,
  };

  it("a finished audience is counted as it is", () => {
    const tree = root([germany]);
    expect(countablePart(tree, validateTree(tree))).toEqual({ tree, unfinished: 0, broken: [] });
  });

  it("a blank new rule is left out: the count is the one before it was added", () => {
    const before = root([germany]);
    const after = root([germany, blank]);
    const part = countablePart(after, validateTree(after))!;
    expect(part.unfinished).toBe(1);
    expect(part.broken).toEqual([]);
    expect(canonicalKey(part.tree)).toBe(canonicalKey(toRequestFilter(before)));
  });

  it("a broken rule is left out and named, the rest still counted", () => {
    const tree = root([swapped, germany]);
    const part = countablePart(tree, validateTree(tree))!;
    expect(part.broken).toEqual([
      {
        key: (tree.children[0] as { id: string }).id,
        path: [0],
        message: "The lower end (2020) is above the upper end (1990): swap them, or nobody matches.",
      },
    ]);
    expect(part.tree.children).toHaveLength(1);
    expect(part.tree.children[0]).toMatchObject({ value: "Germany" });
    // What is counted is a tree the contract accepts, without the connector of a new first child.
    expect(strictFilterSchemas.root.safeParse(part.tree).success).toBe(true);
    expect("joinWithPrevious" in part.tree.children[0]!).toBe(false);
  });

  it("a group left empty by it goes too; a broken top level counts nothing", () => {
    const tree = root([germany, { type: "group", op: "OR", negate: true, children: [blank] }]);
    const part = countablePart(tree, validateTree(tree))!;
    expect(part.tree.children).toHaveLength(1);
    const only = root([blank]);
    expect(countablePart(only, validateTree(only))?.tree.children).toEqual([]);
    const badRoot = { ...root([germany]), op: "XOR" } as unknown as GroupNode;
    expect(countablePart(badRoot, validateTree(badRoot))).toBeNull();
  });
});
