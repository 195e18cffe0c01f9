// @vitest-environment jsdom
import { act, cleanup, fireEvent } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setRenderProbe } from "../../../../src/app/features/builder/editor/render-probe";
import type { FilterNode } from "../../../../src/contract/filter";
import { cond, group, installDomShims, renderEditor } from "./harness";

beforeAll(installDomShims);
afterEach(() => {
  setRenderProbe(null);
  cleanup();
  vi.unstubAllGlobals();
});

/** 30 groups of 10 conditions: g1..g30, conditions g1c1..g30c10. */
function bigTree() {
  const groups: FilterNode[] = [];
  for (let g = 1; g <= 30; g++) {
    const children: FilterNode[] = [];
    for (let c = 1; c <= 10; c++) children.push(cond(`g${g}c${c}`, "COUNTRY_NAME_PER", `Country ${g}.${c}`));
    groups.push(group(children, { id: `g${g}`, op: g % 2 === 0 ? "OR" : "AND" }));
  }
  return group(groups, { id: "root" });
}

/** By accessible name, without role queries (slow on 300 rows). */
function labelled(label: string): HTMLElement {
  const found = document.querySelector<HTMLElement>(`[aria-label="${label}"]`);
  if (!found) throw new Error(`nothing labelled ${label}`);
  return found;
}

function record() {
  const renders: string[] = [];
  setRenderProbe((component, id) => renders.push(`${component}:${id}`));
  return renders;
}

describe("re-render isolation (30 groups x 10 conditions)", () => {
  it("a keystroke re-renders only its own row and its ancestor groups", () => {
    const { tree } = renderEditor(bigTree());
    const value = labelled("Value of condition 17.5");

    const renders = record();
    fireEvent.change(value, { target: { value: "Country 17.5x" } });
    expect(tree().children[16]).toMatchObject({
      children: expect.arrayContaining([expect.objectContaining({ value: "Country 17.5x" })]),
    });
    expect(renders.sort()).toEqual(
      ["ConditionRow:g17c5", "GroupNode:g17", "GroupNode:root", "NodeItem:g17", "NodeItem:g17c5"].sort(),
    );

    // A keystroke that makes the value invalid shows the reason on that row only.
    renders.length = 0;
    act(() => {
      fireEvent.change(labelled("Comparison of condition 3.2"), { target: { value: "in" } });
    });
    expect(labelled("Values of condition 3.2").tagName).toBe("INPUT");
    expect(new Set(renders)).toEqual(
      new Set(["ConditionRow:g3c2", "GroupNode:g3", "GroupNode:root", "NodeItem:g3", "NodeItem:g3c2"]),
    );
  });

  it("collapsing one group and toggling a connector stay local too", () => {
    renderEditor(bigTree());
    const renders = record();
    fireEvent.click(labelled("Collapse group 9"));
    expect(new Set(renders)).toEqual(new Set(["GroupNode:g9"]));

    renders.length = 0;
    fireEvent.click(labelled("And before condition 5.3: press to use OR"));
    expect(new Set(renders)).toEqual(
      new Set(["ConditionRow:g5c3", "GroupNode:g5", "GroupNode:root", "NodeItem:g5", "NodeItem:g5c3"]),
    );
  });

  it("switching a group's AND / OR re-renders the group and its connectors, not its items", () => {
    const { tree } = renderEditor(bigTree());
    const renders = record();
    const or = document.querySelector<HTMLElement>('[data-node-id="g7"] [aria-label="Any of these (OR)"]');
    if (!or) throw new Error("no OR button in group 7");
    fireEvent.click(or);
    expect(tree().children[6]).toMatchObject({ op: "OR" });
    expect(new Set(renders)).toEqual(new Set(["GroupNode:g7", "GroupNode:root", "NodeItem:g7"]));
    // The connectors say it all the same.
    expect(labelled("Or before condition 7.2: press to use AND")).toBeTruthy();
  });

  it("adding a condition renders the new row; its group's items update, their rows do not", () => {
    const { tree } = renderEditor(bigTree());
    const renders = record();
    fireEvent.click(labelled("Add condition to group 12"));
    const added = tree().children[11];
    expect(added?.type === "group" ? added.children : []).toHaveLength(11);
    // Only the new row (twice: mounted, then marked incomplete), none of the others.
    const rows = [...new Set(renders.filter((r) => r.startsWith("ConditionRow:")))];
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toMatch(/^ConditionRow:g\d+c\d+$/);
    const elsewhere = renders.filter((r) => {
      const id = r.slice(r.indexOf(":") + 1);
      return /^g\d+/.test(id) && id !== "g12" && !id.startsWith("g12c");
    });
    expect(elsewhere).toEqual([]);
  });
});
