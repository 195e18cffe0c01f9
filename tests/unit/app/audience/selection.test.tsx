// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  addToSelection,
  clearSelection,
  getSelection,
  reloadSelection,
  removeFromSelection,
  SELECTION_CAP,
  SELECTION_STORAGE_KEY,
  useSelection,
} from "../../../../src/app/lib/selection";

function stored(): unknown {
  return JSON.parse(window.localStorage.getItem(SELECTION_STORAGE_KEY) ?? "null");
}

beforeEach(() => {
  window.localStorage.clear();
  reloadSelection();
});

afterEach(cleanup);

describe("the shared selection store", () => {
  it("adds without duplicates, removes, clears, and persists every change", () => {
    expect(addToSelection(["a", "b", "a"])).toBe(0);
    expect(getSelection().ids).toEqual(["a", "b"]);
    expect(stored()).toEqual(["a", "b"]);
    removeFromSelection(["a"]);
    expect(stored()).toEqual(["b"]);
    clearSelection();
    expect(getSelection().ids).toEqual([]);
    expect(window.localStorage.getItem(SELECTION_STORAGE_KEY)).toBeNull();
  });

  it("survives a reload (read back from localStorage)", () => {
    addToSelection(["x", "y"]);
    reloadSelection();
    expect(getSelection().ids).toEqual(["x", "y"]);
    expect(getSelection().has.has("y")).toBe(true);
  });

  it("is capped at 1,000 ids and says how many were refused", () => {
    const many = Array.from({ length: SELECTION_CAP + 5 }, (_, i) => `id-${i}`);
    expect(addToSelection(many)).toBe(5);
    expect(getSelection().ids).toHaveLength(SELECTION_CAP);
    expect(getSelection().refused).toBe(5);
    expect(addToSelection(["one-more"])).toBe(1);
    removeFromSelection(["id-0"]);
    expect(getSelection().refused).toBe(0);
    expect(addToSelection(["one-more"])).toBe(0);
    expect(getSelection().ids).toContain("one-more");
  });

  it("ignores a corrupt or oversized stored value", () => {
    window.localStorage.setItem(SELECTION_STORAGE_KEY, "{not json");
    reloadSelection();
    expect(getSelection().ids).toEqual([]);
    window.localStorage.setItem(
      SELECTION_STORAGE_KEY,
      JSON.stringify([...Array.from({ length: 1200 }, (_, i) => `s-${i}`), 7]),
    );
    reloadSelection();
    expect(getSelection().ids).toHaveLength(SELECTION_CAP);
  });

  it("keeps components in step, this tab's changes and other tabs' (storage event)", () => {
    function Count() {
      const selection = useSelection();
      return <p>{selection.ids.length} selected</p>;
    }
    render(<Count />);
    expect(screen.getByText("0 selected")).toBeTruthy();
    act(() => {
      addToSelection(["a"]);
    });
    expect(screen.getByText("1 selected")).toBeTruthy();
    act(() => {
      window.localStorage.setItem(SELECTION_STORAGE_KEY, JSON.stringify(["a", "b", "c"]));
      window.dispatchEvent(new StorageEvent("storage", { key: SELECTION_STORAGE_KEY }));
    });
    expect(screen.getByText("3 selected")).toBeTruthy();
  });
});
