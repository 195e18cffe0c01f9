// @vitest-environment jsdom
import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenAudience, openAudienceOf } from "../../../../src/app/lib/open-audience";
import {
  AUDIENCES_KEPT,
  addToSelection,
  adoptLegacySelection,
  carrySelection,
  clearSelection,
  getSelection,
  LEGACY_SELECTION_KEYS,
  reloadSelection,
  removeFromSelection,
  SELECTION_CAP,
  SELECTIONS_STORAGE_KEY,
  type SelectionAudience,
  selectionAudienceOf,
  treeKeyOf,
  useSelection,
  useSelectionFollows,
} from "../../../../src/app/lib/selection";
import type { GroupNode } from "../../../../src/contract/filter";
import type { Audience } from "../../../../src/contract/team";

const A: SelectionAudience = { key: "saved:a", tree: "ta" };
const B: SelectionAudience = { key: "saved:b", tree: "tb" };

function stored(): Record<string, { ids: string[]; names: Record<string, string>; tree: string }> {
  return JSON.parse(window.localStorage.getItem(SELECTIONS_STORAGE_KEY) ?? "{}");
}

const countryIs = (value: string, id = "c1"): GroupNode => ({
  type: "group",
  op: "AND",
  negate: false,
  id: "root",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value, id }],
});

function savedAudience(id: string, filter: GroupNode): OpenAudience {
  const audience: Audience = {
    id,
    name: `Audience ${id}`,
    filter,
    version: 1,
    owner: "bo",
    shared: false,
    lastCount: null,
    createdAt: "2026-11-25T10:00:00Z",
    updatedAt: "2026-11-25T10:00:00Z",
    updatedBy: "bo",
  } as Audience;
  return openAudienceOf(audience);
}

beforeEach(() => {
  window.localStorage.clear();
  reloadSelection();
});

afterEach(cleanup);

describe("the selection store: ticks per audience", () => {
  it("adds without duplicates, removes, clears, and persists every change, per audience", () => {
    expect(addToSelection(A, ["a", "b", "a"], new Map([["a", "Ada"]]))).toBe(0);
    addToSelection(B, ["z"]);
    expect(getSelection(A).ids).toEqual(["a", "b"]);
    expect(getSelection(A).names).toEqual({ a: "Ada" });
    expect(getSelection(B).ids).toEqual(["z"]);
    expect(stored()["saved:a"]).toMatchObject({ ids: ["a", "b"], names: { a: "Ada" }, tree: "ta" });
    removeFromSelection(A, ["a"]);
    expect(stored()["saved:a"]).toMatchObject({ ids: ["b"], names: {} });
    clearSelection(A);
    expect(getSelection(A).ids).toEqual([]);
    expect(Object.keys(stored())).toEqual(["saved:b"]);
    clearSelection(B);
    expect(window.localStorage.getItem(SELECTIONS_STORAGE_KEY)).toBeNull();
  });

  it("survives a reload (read back from localStorage)", () => {
    addToSelection(A, ["x", "y"]);
    reloadSelection();
    expect(getSelection(A).ids).toEqual(["x", "y"]);
    expect(getSelection(A).has.has("y")).toBe(true);
  });

  it("is capped at 1,000 ids per audience and says how many were refused, in that audience only", () => {
    const many = Array.from({ length: SELECTION_CAP + 5 }, (_, i) => `id-${i}`);
    expect(addToSelection(A, many)).toBe(5);
    expect(getSelection(A).ids).toHaveLength(SELECTION_CAP);
    expect(getSelection(A).refused).toBe(5);
    expect(getSelection(B).refused).toBe(0);
    expect(addToSelection(A, ["one-more"])).toBe(1);
    removeFromSelection(A, ["id-0"]);
    expect(getSelection(A).refused).toBe(0);
    expect(addToSelection(A, ["one-more"])).toBe(0);
    expect(getSelection(A).ids).toContain("one-more");
  });

  it("keeps the most recently touched audiences only", () => {
    for (let i = 0; i < AUDIENCES_KEPT + 3; i += 1)
      addToSelection({ key: `tree:t${i}`, tree: `t${i}` }, [`id-${i}`]);
    expect(Object.keys(stored())).toHaveLength(AUDIENCES_KEPT);
    expect(getSelection({ key: "tree:t0" }).ids).toEqual([]);
    expect(getSelection({ key: `tree:t${AUDIENCES_KEPT + 2}` }).ids).toEqual([`id-${AUDIENCES_KEPT + 2}`]);
  });

  it("ignores a corrupt stored value, and a broken audience without losing the others", () => {
    window.localStorage.setItem(SELECTIONS_STORAGE_KEY, "{not json");
    reloadSelection();
    expect(getSelection(A).ids).toEqual([]);
    window.localStorage.setItem(
      SELECTIONS_STORAGE_KEY,
      JSON.stringify({
        "saved:a": {
          ids: [...Array.from({ length: 1200 }, (_, i) => `s-${i}`), 7],
          names: 3,
          tree: "ta",
          at: 1,
        },
        "saved:b": "nonsense",
      }),
    );
    reloadSelection();
    expect(getSelection(A).ids).toHaveLength(SELECTION_CAP);
    expect(getSelection(A).names).toEqual({});
    expect(getSelection(B).ids).toEqual([]);
  });

  it("keeps components in step, this tab's changes and other tabs' (storage event)", () => {
    function Count({ audience }: { audience: SelectionAudience }) {
      const selection = useSelection(audience);
      return <p>{selection.ids.length} selected</p>;
    }
    render(<Count audience={A} />);
    expect(screen.getByText("0 selected")).toBeTruthy();
    act(() => {
      addToSelection(A, ["a"]);
      addToSelection(B, ["b1", "b2"]);
    });
    expect(screen.getByText("1 selected")).toBeTruthy();
    act(() => {
      window.localStorage.setItem(
        SELECTIONS_STORAGE_KEY,
        JSON.stringify({ "saved:a": { ids: ["a", "b", "c"], names: {}, tree: "ta", at: 2 } }),
      );
      window.dispatchEvent(new StorageEvent("storage", { key: SELECTIONS_STORAGE_KEY }));
    });
    expect(screen.getByText("3 selected")).toBeTruthy();
  });

  it("an earlier version's single selection is adopted once, by the first audience shown", () => {
    window.localStorage.setItem(LEGACY_SELECTION_KEYS.ids, JSON.stringify(["p1", "p2"]));
    window.localStorage.setItem(LEGACY_SELECTION_KEYS.names, JSON.stringify({ p1: "Ada", gone: "X" }));
    renderHook(() => useSelection(A));
    expect(getSelection(A).ids).toEqual(["p1", "p2"]);
    expect(getSelection(A).names).toEqual({ p1: "Ada" });
    expect(window.localStorage.getItem(LEGACY_SELECTION_KEYS.ids)).toBeNull();
    expect(window.localStorage.getItem(LEGACY_SELECTION_KEYS.names)).toBeNull();
    // Nothing left to adopt for the next audience.
    adoptLegacySelection(B);
    expect(getSelection(B).ids).toEqual([]);
  });
});

describe("which audience ticks belong to", () => {
  const germany = countryIs("Germany");

  it("names a tree by its canonical form: ids and key order do not matter, values do", () => {
    expect(treeKeyOf(germany)).toBe(treeKeyOf(countryIs("Germany", "other-id")));
    expect(treeKeyOf(germany)).not.toBe(treeKeyOf(countryIs("France")));
    expect(treeKeyOf(germany)).toMatch(/^[0-9a-z]+$/);
  });

  it("is the saved audience open in this tab when the tree is its own, else the unsaved tree", () => {
    const open = savedAudience("aud_1", germany);
    expect(selectionAudienceOf(open, germany)).toEqual({ key: "saved:aud_1", tree: treeKeyOf(germany) });
    // A tree that is not the open audience's is not it.
    const france = countryIs("France");
    expect(selectionAudienceOf(open, france)).toEqual({
      key: `tree:${treeKeyOf(france)}`,
      tree: treeKeyOf(france),
    });
    expect(selectionAudienceOf(null, germany).key).toBe(`tree:${treeKeyOf(germany)}`);
  });

  it("in a tab where the saved audience is not open, its ticks are found by its working tree", () => {
    const open = savedAudience("aud_1", germany);
    addToSelection(selectionAudienceOf(open, germany), ["p1"]);
    expect(selectionAudienceOf(null, germany).key).toBe("saved:aud_1");
    // The unsaved tree's own ticks come first.
    addToSelection({ key: `tree:${treeKeyOf(germany)}`, tree: treeKeyOf(germany) }, ["p9"]);
    expect(selectionAudienceOf(null, germany).key).toBe(`tree:${treeKeyOf(germany)}`);
  });
});

describe("carrying ticks as the Builder's audience changes", () => {
  const draft = (name: string): SelectionAudience => ({ key: `tree:${name}`, tree: name });

  it("an unsaved tree that is edited takes its ticks along (moved, not copied)", () => {
    addToSelection(draft("t1"), ["p1", "p2"], new Map([["p1", "Ada"]]));
    carrySelection(draft("t1"), draft("t2"));
    expect(getSelection(draft("t1")).ids).toEqual([]);
    expect(getSelection(draft("t2"))).toMatchObject({ ids: ["p1", "p2"], names: { p1: "Ada" } });
    expect(stored()["tree:t2"]?.tree).toBe("t2");
  });

  it("a saved audience keeps its own ticks when the tree leaves it (copied)", () => {
    addToSelection(A, ["p1"]);
    carrySelection(A, draft("ta"));
    expect(getSelection(A).ids).toEqual(["p1"]);
    expect(getSelection(draft("ta")).ids).toEqual(["p1"]);
  });

  it("the ticks being worked on replace an unsaved tree's earlier ones, never a saved audience's own", () => {
    addToSelection(draft("t1"), ["new"]);
    addToSelection(draft("t2"), ["old"]);
    carrySelection(draft("t1"), draft("t2"));
    expect(getSelection(draft("t2")).ids).toEqual(["new"]);
    addToSelection(A, ["a's own"]);
    carrySelection(draft("t2"), A);
    expect(getSelection(A).ids).toEqual(["a's own"]);
    expect(getSelection(draft("t2")).ids).toEqual(["new"]);
  });

  it("useSelectionFollows: edits carry, opening another audience does not, coming back restores", () => {
    addToSelection(draft("t1"), ["p1", "p2", "p3"]);
    const { rerender, result } = renderHook(({ audience }) => useSelectionFollows(audience), {
      initialProps: { audience: draft("t1") },
    });
    // An edit of the unsaved tree.
    rerender({ audience: draft("t2") });
    expect(getSelection(draft("t2")).ids).toEqual(["p1", "p2", "p3"]);
    // Saved as a new audience: same tree, now a saved one.
    rerender({ audience: { key: "saved:new", tree: "t2" } });
    expect(getSelection({ key: "saved:new" }).ids).toEqual(["p1", "p2", "p3"]);
    // Opening B, which arrives in two renders (the open audience first, then its tree).
    act(() => result.current(B));
    rerender({ audience: { key: "saved:b", tree: "t2" } });
    rerender({ audience: B });
    expect(getSelection(B).ids).toEqual([]);
    expect(getSelection({ key: "saved:new" }).ids).toEqual(["p1", "p2", "p3"]);
    // Ticks in B, an edit of B (still B), then back to the first audience.
    addToSelection(B, ["b1"]);
    rerender({ audience: { key: "saved:b", tree: "tb-edited" } });
    expect(stored()["saved:b"]?.tree).toBe("tb-edited");
    const back = { key: "saved:new", tree: "t2" };
    act(() => result.current(back));
    rerender({ audience: back });
    expect(getSelection(back).ids).toEqual(["p1", "p2", "p3"]);
    expect(getSelection(B).ids).toEqual(["b1"]);
    // After the open, edits carry again.
    rerender({ audience: { key: "tree:t3", tree: "t3" } });
    expect(getSelection({ key: "tree:t3" }).ids).toEqual(["p1", "p2", "p3"]);
  });
});
