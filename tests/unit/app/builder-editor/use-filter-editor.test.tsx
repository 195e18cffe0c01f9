// @vitest-environment jsdom
import { act, cleanup, renderHook, screen } from "@testing-library/react";
import { useCallback } from "react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { RenderNodeAside } from "../../../../src/app/features/builder/editor/editor-context";
import { useFilterEditor } from "../../../../src/app/features/builder/editor/use-filter-editor";
import { cond, group, installDomShims, renderEditor } from "./harness";

beforeAll(installDomShims);
afterEach(cleanup);

describe("useFilterEditor", () => {
  it("gives every node an id, runs commands by path, and records them for undo", () => {
    const { result } = renderHook(() => useFilterEditor(group([cond("a")])));
    expect(typeof result.current.tree.id).toBe("string");
    act(() => result.current.run("addCondition", []));
    expect(result.current.tree.children).toHaveLength(2);
    expect(result.current.focusPath).toEqual([1]);
    act(() => result.current.run("moveUp", [1]));
    expect(result.current.tree.children[1]?.id).toBe("a");
    act(() => result.current.run("moveUp", [0]));
    expect(result.current.notice).toMatchObject({ tone: "error", text: "It is already first in its group." });
    act(() => result.current.undo());
    expect(result.current.tree.children[0]?.id).toBe("a");
    expect(result.current.canRedo).toBe(true);
  });

  it("merges updates with one merge key, memoises validation per tree, and names what blocks sending", () => {
    const { result } = renderHook(() => useFilterEditor(group([cond("a", "FOUNDED_ORG", 1990)])));
    const before = result.current.problems;
    expect(result.current.blocking).toBeUndefined();
    act(() => result.current.update([0], { value: "1" }, "a:value"));
    act(() => result.current.update([0], { value: "19" }, "a:value"));
    act(() => result.current.update([0], { value: "19x" }, "a:value"));
    expect(result.current.problems).not.toBe(before);
    expect(result.current.blocking).toMatchObject({ id: "a", path: [0], message: "Enter a whole number." });
    act(() => result.current.undo());
    expect(result.current.tree.children[0]).toMatchObject({ value: 1990 });
    expect(result.current.canUndo).toBe(false);
  });

  it("says an unfinished rule once it is left; leaving what has nothing to say renders nothing", () => {
    let renders = 0;
    const { result } = renderHook(() => {
      renders++;
      return useFilterEditor(group([cond("done"), cond("blank", "COUNTRY_NAME_PER", "")]));
    });
    const root = result.current.tree.id as string;
    expect(result.current.problems.get("blank")).toEqual(["Enter a value."]);
    expect(result.current.shownProblems.has("blank")).toBe(false);
    // A group (its add button) and a finished rule: nothing shown changes, so no render.
    const before = renders;
    act(() => result.current.leave(root));
    act(() => result.current.leave("done"));
    expect(renders).toBe(before);
    // The blank rule left: its problem is said.
    act(() => result.current.leave("blank"));
    expect(result.current.shownProblems.get("blank")).toEqual(["Enter a value."]);
    // A rule left while finished and emptied afterwards is said at once, as before.
    act(() => result.current.update([0], { value: "" }));
    expect(result.current.shownProblems.get("done")).toEqual(["Enter a value."]);
  });

  it("tells typing (updates with a merge key) from discrete edits, for the count's wait", () => {
    const { result } = renderHook(() => useFilterEditor(group([cond("a", "FOUNDED_ORG", 1990)])));
    expect(result.current.typing).toBe(false);
    act(() => result.current.update([0], { value: 199 }, "a:value"));
    expect(result.current.typing).toBe(true);
    act(() => result.current.update([0], { operator: "gte" }));
    expect(result.current.typing).toBe(false);
    act(() => result.current.update([0], { value: 19 }, "a:value"));
    act(() => result.current.run("negate", [0]));
    expect(result.current.typing).toBe(false);
  });

  it("learns the typist's pace from the keystrokes' times: the count's wait outlasts their gap between keys", () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ["Date"] });
    try {
      const { result } = renderHook(() => useFilterEditor(group([cond("a", "FULL_NAME_PER", "")])));
      expect(result.current.typingPauseMs).toBe(240);
      let text = "";
      for (const letter of "Schneider") {
        text += letter;
        vi.advanceTimersByTime(200);
        act(() => result.current.update([0], { value: text }, "a:value"));
      }
      expect(result.current.typingPauseMs).toBe(320);
      // A discrete edit between words forgets nothing of the pace.
      act(() => result.current.update([0], { operator: "contains" }));
      expect(result.current.typingPauseMs).toBe(320);
    } finally {
      vi.useRealTimers();
    }
  });

  it("replaces the tree as an undoable step, or with a fresh history", () => {
    const { result } = renderHook(() => useFilterEditor(group([cond("a")])));
    act(() => result.current.replace(group([cond("b"), cond("c")])));
    expect(result.current.tree.children.map((c) => c.id)).toEqual(["b", "c"]);
    expect(result.current.canUndo).toBe(true);
    act(() => result.current.replace(group([]), { resetHistory: true }));
    expect(result.current.tree.children).toEqual([]);
    expect(result.current.canUndo).toBe(false);
  });
});

describe("renderNodeAside", () => {
  it("shows the page's extra beside every node, told whether the node is complete", () => {
    function useAside(): RenderNodeAside {
      return useCallback(
        (node, { id, problems }) => (
          <span data-testid={`aside-${id}`}>{`${node.type}${problems ? ` (${problems[0]})` : ""}`}</span>
        ),
        [],
      );
    }
    const { result } = renderHook(useAside);
    renderEditor(group([cond("a"), cond("b", "FOUNDED_ORG", "x")], { id: "root" }), {
      renderNodeAside: result.current,
    });
    expect(screen.getByTestId("aside-root").textContent).toBe("group");
    expect(screen.getByTestId("aside-a").textContent).toBe("condition");
    expect(screen.getByTestId("aside-b").textContent).toBe("condition (Enter a whole number.)");
  });
});
