import { describe, expect, it } from "vitest";
import { andAtTop, valueCondition } from "../../../../src/app/lib/filter/tree";
import { validateTree } from "../../../../src/app/lib/filter/validate";
import { canonicalFilter } from "../../../../src/contract/canonical";
import { type GroupNode, strictFilterSchemas } from "../../../../src/contract/filter";
import { MAX_FILTER_DEPTH } from "../../../../src/contract/inferred";
import { cond, deepTree, errorOf, group, okTree, shape } from "../filter-model/helpers";

/** The added condition, named `new` so that shapes read plainly. */
const director = () => ({ ...valueCondition("JOB_LEVEL_PER", "Director"), id: "new" });

describe("valueCondition: a value picked in the insights as a rule", () => {
  it("is `eq` on the value, and `isNull` (no operand) for the 'not given' bucket", () => {
    expect(valueCondition("JOB_LEVEL_PER", "Director")).toMatchObject({
      type: "condition",
      column: "JOB_LEVEL_PER",
      operator: "eq",
      value: "Director",
    });
    const none = valueCondition("COUNTRY_NAME_PER", null);
    expect(none).toMatchObject({ column: "COUNTRY_NAME_PER", operator: "isNull" });
    expect(none).not.toHaveProperty("value");
  });

  it("gives an integer column a number, even when the value came as digits", () => {
    expect(valueCondition("FOUNDED_ORG", 1998).value).toBe(1998);
    expect(valueCondition("FOUNDED_ORG", "1998").value).toBe(1998);
    // A text column keeps digits as text.
    expect(valueCondition("CITY_PER", "1998").value).toBe("1998");
  });

  it("makes rules the strict contract and the editor's validation accept", () => {
    for (const node of [
      valueCondition("JOB_LEVEL_PER", "Director"),
      valueCondition("COUNTRY_NAME_PER", null),
      valueCondition("FOUNDED_ORG", "2001"),
      valueCondition("EMPLOYEE_COUNT_RANGE_ORG", "51-200"),
    ]) {
      const tree = okTree(andAtTop(group("root", []), node));
      expect(strictFilterSchemas.root.safeParse(tree).success).toBe(true);
      expect(validateTree(tree).size).toBe(0);
    }
  });
});

describe("andAtTop: the audience can only shrink", () => {
  it("adds to an empty root, which becomes AND", () => {
    const tree = okTree(andAtTop(group("root", []), director()));
    expect(shape(tree)).toBe("root(new)");
    const orRoot = okTree(andAtTop(group("root", [], { op: "OR" }), director()));
    expect(shape(orRoot)).toBe("root(new)");
    expect(orRoot.op).toBe("AND");
  });

  it("appends to an AND root (focus on the new rule), leaving the rest untouched", () => {
    const before = group("root", [cond("a"), group("g", [cond("b"), cond("c")], { op: "OR" })]);
    const result = andAtTop(before, director());
    const tree = okTree(result);
    expect(shape(tree)).toBe("root(a g|(b c) new)");
    expect(result.ok && result.focus).toEqual([2]);
    expect(tree.children[1]).toBe(before.children[1]);
    expect(tree.children[2]?.joinWithPrevious).toBeUndefined();
  });

  it("wraps an OR root: AND(old root, new) rather than OR-ing the rule in", () => {
    const before = group("root", [cond("a"), cond("b")], { op: "OR" });
    const result = andAtTop(before, director());
    const tree = okTree(result);
    expect(shape(tree)).toMatch(/^\w+\(root\|\(a b\) new\)$/);
    expect(tree.op).toBe("AND");
    expect(tree.negate).toBe(false);
    expect(tree.children[0]).toBe(before);
    expect(result.ok && result.focus).toEqual([1]);
    // In words: the whole old audience, and the new rule.
    expect(canonicalFilter(tree).children[0]).toEqual(canonicalFilter(before));
  });

  it("wraps an AND root that holds an OR connector (AND binds tighter: appending would narrow only the last branch)", () => {
    const before = group("root", [cond("a"), cond("b", { joinWithPrevious: "OR" })]);
    const tree = okTree(andAtTop(before, director()));
    expect(shape(tree)).toMatch(/^\w+\(root\(a or:b\) new\)$/);
  });

  it("wraps a negated root: NOT(old) AND new, not NOT(old AND new)", () => {
    const before = group("root", [cond("a")], { negate: true });
    const tree = okTree(andAtTop(before, director()));
    expect(shape(tree)).toMatch(/^\w+\(!root\(a\) new\)$/);
    expect(tree.negate).toBe(false);
    // Even an empty negated root (nobody) stays what it was, ANDed.
    expect(shape(okTree(andAtTop(group("root", [], { negate: true }), director())))).toMatch(
      /^\w+\(!root\(\) new\)$/,
    );
  });

  it("does not add a rule the AND root already has: same tree, focus on it", () => {
    const existing = { ...valueCondition("JOB_LEVEL_PER", "Director"), id: "had" };
    const before = group("root", [cond("a"), existing]);
    const result = andAtTop(before, director());
    expect(okTree(result)).toBe(before);
    expect(result.ok && result.focus).toEqual([1]);
    // Another value is another rule.
    expect(shape(okTree(andAtTop(before, { ...valueCondition("JOB_LEVEL_PER", "VP"), id: "vp" })))).toBe(
      "root(a had vp)",
    );
  });

  it("adds a list condition whose values differ from one the root has (another target list)", () => {
    const list = (id: string, valueList: string[]) =>
      ({ type: "condition", column: "DOMAIN_ORG", operator: "in", valueList, id }) as const;
    const before = group("root", [list("had", ["a.com", "b.com"])]);
    expect(shape(okTree(andAtTop(before, list("other", ["c.com"]))))).toBe("root(had other)");
    expect(okTree(andAtTop(before, list("same", ["a.com", "b.com"])))).toBe(before);
  });

  it("gives fresh ids where the node's id is already used", () => {
    const before = group("root", [cond("new")]);
    const tree = okTree(andAtTop(before, director()));
    expect(tree.children).toHaveLength(2);
    expect(tree.children[1]?.id).not.toBe("new");
  });

  it("refuses to wrap a tree already as deep as allowed, and leaves it unchanged", () => {
    const deep: GroupNode = { ...deepTree(MAX_FILTER_DEPTH - 1), op: "OR" };
    const deepest = { ...deep, children: [...deep.children, cond("x")] };
    const result = andAtTop(deepest, director());
    expect(errorOf(result)).toMatch(/levels deep/);
    expect(result.tree).toBe(deepest);
  });
});
