import { describe, expect, it } from "vitest";
import { dropTarget } from "../../../../src/app/features/builder/editor/use-editor-dnd";
import {
  mergeIntoList,
  mergeMessage,
  splitList,
} from "../../../../src/app/features/builder/editor/value-list";
import { moveNode, pathOfId } from "../../../../src/app/lib/filter/tree";
import type { FilterNode, GroupNode } from "../../../../src/contract/filter";

const c = (id: string): FilterNode => ({
  type: "condition",
  id,
  column: "COUNTRY_NAME_PER",
  operator: "eq",
  value: id,
});
const tree: GroupNode = {
  type: "group",
  id: "root",
  op: "AND",
  negate: false,
  children: [
    c("a"),
    { type: "group", id: "g", op: "OR", negate: false, children: [c("b"), c("c")] },
    c("d"),
    { type: "group", id: "empty", op: "AND", negate: false, children: [] },
  ],
};

/** The ids in document order after dropping `active` on `over`. */
function drop(active: string, over: string, before: boolean): string | null {
  const target = dropTarget(tree, active, over, before);
  if (!target) return null;
  const result = moveNode(tree, pathOfId(tree, active)!, pathOfId(tree, target.parentId)!, target.index);
  if (!result.ok) return `error: ${result.error}`;
  const ids: string[] = [];
  const visit = (node: FilterNode) => {
    ids.push(node.id ?? "?");
    if (node.type === "group") node.children.forEach(visit);
  };
  result.tree.children.forEach(visit);
  return ids.join(" ");
}

describe("dropping a dragged node", () => {
  it("lands before or after the node it is over, within a group or across groups", () => {
    expect(drop("d", "a", true)).toBe("d a g b c empty");
    expect(drop("a", "d", false)).toBe("g b c d a empty");
    expect(drop("a", "b", false)).toBe("g b a c d empty");
    expect(drop("c", "a", true)).toBe("c a g b d empty");
  });

  it("lands at the end of a group dropped on its body (an empty group too)", () => {
    expect(drop("a", "body:g", true)).toBe("g b c a d empty");
    expect(drop("d", "body:empty", true)).toBe("a g b c empty d");
    expect(dropTarget(tree, "a", "body:empty", true)).toMatchObject({
      spot: "inside",
      spotKey: "body:empty",
    });
  });

  it("refuses drops that change nothing or put a group inside itself", () => {
    expect(drop("a", "g", true)).toBeNull();
    expect(drop("b", "c", true)).toBeNull();
    expect(drop("c", "body:g", true)).toBeNull();
    expect(drop("g", "b", true)).toBeNull();
    expect(drop("g", "body:g", true)).toBeNull();
    expect(drop("a", "a", true)).toBeNull();
  });
});

describe("value lists", () => {
  it("split pasted text on commas, semicolons, tabs and new lines", () => {
    expect(splitList(" a, b;c\td\r\ne\n\n ,f ")).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("merge without duplicates (ignoring case) and up to the limit", () => {
    const result = mergeIntoList(["A"], ["a", "b", "B", "c", "d"], 3);
    expect(result).toEqual({ list: ["A", "b", "c"], duplicates: 2, dropped: 1 });
    expect(mergeMessage(result, 3)).toBe(
      "A list holds at most 3 values: 1 was left out. 2 duplicates skipped.",
    );
    expect(mergeMessage({ list: [], duplicates: 0, dropped: 0 })).toBeNull();
  });
});
