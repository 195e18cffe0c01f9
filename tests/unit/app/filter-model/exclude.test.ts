import { describe, expect, it } from "vitest";
import { excludedBeside, excludeFromMatch, includeInMatch } from "../../../../src/app/lib/filter/tree";
import { strictFilterSchemas } from "../../../../src/contract/filter";
import { cond, group, okTree, sem } from "./helpers";

const TITLE = "JOB_TITLE_PER";
const strip = (value: unknown) => JSON.parse(JSON.stringify(value, (k, v) => (k === "id" ? undefined : v)));

describe("leaving out a value a match takes in", () => {
  it("in an AND group: a NOT condition right after the match, later values added to it", () => {
    const tree = group("root", [sem("m", { text: "VP Marketing" }), cond("c")]);
    const once = okTree(excludeFromMatch(tree, [0], TITLE, "Vice President"));
    expect(strip(once.children[1])).toEqual({
      type: "condition",
      column: TITLE,
      operator: "notIn",
      valueList: ["Vice President"],
    });
    expect(once.children[2]?.id).toBe("c");
    const twice = okTree(excludeFromMatch(once, [0], TITLE, "EVP"));
    expect(twice.children).toHaveLength(3);
    expect(twice.children[1]).toMatchObject({ valueList: ["Vice President", "EVP"] });
    // The same value again changes nothing.
    expect(okTree(excludeFromMatch(twice, [0], TITLE, "evp"))).toBe(twice);
    expect(excludedBeside(twice, "m", TITLE)).toEqual(["Vice President", "EVP"]);
    expect(strictFilterSchemas.group.safeParse(twice).success).toBe(true);
  });

  it("puts a value back: out of the NOT condition, which goes with its last value", () => {
    const tree = group("root", [sem("m", { text: "VP Marketing" }), cond("c")]);
    const two = okTree(
      excludeFromMatch(okTree(excludeFromMatch(tree, [0], TITLE, "Vice President")), [0], TITLE, "EVP"),
    );
    const one = okTree(includeInMatch(two, [0], TITLE, "vice president"));
    expect(excludedBeside(one, "m", TITLE)).toEqual(["EVP"]);
    // A value that is not left out changes nothing.
    expect(okTree(includeInMatch(one, [0], TITLE, "CMO"))).toBe(one);
    const none = okTree(includeInMatch(one, [0], TITLE, "EVP"));
    expect(none.children.map((child) => child.id)).toEqual(["m", "c"]);
    expect(excludedBeside(none, "m", TITLE)).toEqual([]);
  });

  it("in an OR group: the match is wrapped with its NOT condition, so the other branch is untouched", () => {
    const tree = group("root", [cond("c"), sem("m", { text: "VP Marketing" })], { op: "OR" });
    const next = okTree(excludeFromMatch(tree, [1], TITLE, "Vice President"));
    expect(next.op).toBe("OR");
    expect(next.children[0]?.id).toBe("c");
    const wrapper = next.children[1];
    expect(wrapper).toMatchObject({ type: "group", op: "AND", negate: false });
    expect(wrapper?.type === "group" && wrapper.children.map((c) => c.type)).toEqual([
      "semantic",
      "condition",
    ]);
    expect(excludedBeside(next, "m", TITLE)).toEqual(["Vice President"]);
    // A second value goes into the wrapper's condition, not a second wrapper.
    const again = okTree(excludeFromMatch(next, [1, 0], TITLE, "EVP"));
    expect(again.children[1]?.type === "group" && again.children[1].children).toHaveLength(2);
    expect(excludedBeside(again, "m", TITLE)).toEqual(["Vice President", "EVP"]);
  });

  it("under a negated group the match is wrapped too (NOT around it would undo the exclusion)", () => {
    const tree = group("root", [group("g", [sem("m")], { negate: true })]);
    const next = okTree(excludeFromMatch(tree, [0, 0], TITLE, "Intern"));
    const negated = next.children[0];
    expect(negated?.type === "group" && negated.negate).toBe(true);
    expect(negated?.type === "group" && negated.children[0]?.type).toBe("group");
  });

  it("refuses a path with nothing there", () => {
    const tree = group("root", [sem("m")]);
    expect(excludeFromMatch(tree, [3], TITLE, "x").ok).toBe(false);
    expect(excludedBeside(tree, "nope", TITLE)).toEqual([]);
  });
});
