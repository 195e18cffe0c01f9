// @vitest-environment jsdom
import { act, renderHook } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { checkName, NAME_MAX, uniqueName } from "../../../../src/app/features/saved-audiences/audience-names";
import {
  createSavedAudiencesStore,
  memoryStorage,
  SAVED_AUDIENCES_KEY,
  type SavedAudiencesStore,
  useSavedAudiences,
} from "../../../../src/app/features/saved-audiences/saved-audiences-store";
import type { GroupNode } from "../../../../src/contract/filter";

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
const FRANCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
};

/** A store over `storage` whose clock moves one minute per call, and whose ids count up. */
function makeStore(storage: Storage = memoryStorage(), events: Window | null = null) {
  let minute = 0;
  let id = 0;
  return createSavedAudiencesStore({
    storage,
    events,
    now: () => new Date(Date.UTC(2026, 0, 1, 9, minute++)),
    newId: () => `id-${++id}`,
  });
}

function saveOk(store: SavedAudiencesStore, name: string, tree = GERMANY, count: number | null = null) {
  const result = store.save(name, tree, count);
  if (!result.ok) throw new Error(result.error);
  return result.item;
}

describe("names", () => {
  it("are required, trimmed and at most 80 characters", () => {
    expect(checkName("  Directors  ", [])).toEqual({ ok: true, name: "Directors" });
    expect(checkName("   ", [])).toEqual({ ok: false, error: "Enter a name." });
    expect(checkName("x".repeat(NAME_MAX), [])).toMatchObject({ ok: true });
    expect(checkName(`  ${"x".repeat(NAME_MAX)}  `, [])).toMatchObject({ ok: true });
    expect(checkName("x".repeat(NAME_MAX + 1), [])).toEqual({
      ok: false,
      error: "Use at most 80 characters (this one has 81).",
    });
  });

  it("are unique, ignoring case and spaces around, with the next free `Name (n)` suggested", () => {
    expect(checkName(" directors ", ["Directors"])).toEqual({
      ok: false,
      error: "“directors” is already used.",
      suggestion: "directors (2)",
    });
    expect(uniqueName("Directors", ["Directors", "Directors (2)"])).toBe("Directors (3)");
    expect(uniqueName("Directors (2)", ["Directors", "Directors (2)"])).toBe("Directors (3)");
    expect(uniqueName("Fresh", ["Directors"])).toBe("Fresh");
    expect(uniqueName("   ", [])).toBe("Untitled audience");
  });

  it("stay within 80 characters when numbered", () => {
    const long = "y".repeat(NAME_MAX);
    const next = uniqueName(long, [long]);
    expect(next).toBe(`${"y".repeat(NAME_MAX - 4)} (2)`);
    expect(next.length).toBe(NAME_MAX);
  });
});

describe("the saved audiences store", () => {
  let storage: Storage;
  beforeEach(() => {
    storage = memoryStorage();
  });

  it("saves with name, tree, count and dates, and lists newest first", () => {
    const store = makeStore(storage);
    const first = saveOk(store, " Germany ", GERMANY, 12_345);
    const second = saveOk(store, "France", FRANCE, null);
    expect(first).toEqual({
      id: "id-1",
      name: "Germany",
      tree: GERMANY,
      lastCount: 12_345,
      createdAt: "2026-01-01T09:00:00.000Z",
      updatedAt: "2026-01-01T09:00:00.000Z",
    });
    expect(store.list().map((item) => item.name)).toEqual(["France", "Germany"]);
    expect(store.get(second.id)?.tree).toEqual(FRANCE);
    // Persisted: another store over the same storage reads the same list.
    expect(makeStore(storage).list()).toEqual(store.list());
    expect(JSON.parse(storage.getItem(SAVED_AUDIENCES_KEY)!)).toHaveLength(2);
  });

  it("refuses a bad or taken name and writes nothing", () => {
    const store = makeStore(storage);
    saveOk(store, "Germany");
    expect(store.save("", FRANCE, null)).toEqual({ ok: false, error: "Enter a name." });
    expect(store.save("GERMANY", FRANCE, null)).toEqual({
      ok: false,
      error: "“GERMANY” is already used.",
      suggestion: "GERMANY (2)",
    });
    expect(store.list()).toHaveLength(1);
  });

  it("renames, keeping the place in the list; a name may change case; clashes are refused", () => {
    const store = makeStore(storage);
    const germany = saveOk(store, "Germany");
    saveOk(store, "France", FRANCE);
    const renamed = store.rename(germany.id, "  DACH  ");
    expect(renamed).toMatchObject({ ok: true, item: { id: germany.id, name: "DACH", tree: GERMANY } });
    if (!renamed.ok) return;
    expect(renamed.item.updatedAt > renamed.item.createdAt).toBe(true);
    expect(store.rename(germany.id, "dach")).toMatchObject({ ok: true, item: { name: "dach" } });
    expect(store.rename(germany.id, "france")).toMatchObject({ ok: false, suggestion: "france (2)" });
    expect(store.rename("nope", "x")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no longer exists/),
    });
    expect(store.list().map((item) => item.name)).toEqual(["France", "dach"]);
  });

  it("duplicates under `Name (2)`, `Name (3)`, newest first", () => {
    const store = makeStore(storage);
    const germany = saveOk(store, "Germany", GERMANY, 42);
    const copy = store.duplicate(germany.id);
    expect(copy).toMatchObject({ ok: true, item: { name: "Germany (2)", tree: GERMANY, lastCount: 42 } });
    if (!copy.ok) return;
    expect(copy.item.id).not.toBe(germany.id);
    expect(store.duplicate(copy.item.id)).toMatchObject({ ok: true, item: { name: "Germany (3)" } });
    expect(store.list().map((item) => item.name)).toEqual(["Germany (3)", "Germany (2)", "Germany"]);
  });

  it("removes, and puts a removed item back in its place for an undo", () => {
    const store = makeStore(storage);
    const germany = saveOk(store, "Germany");
    const france = saveOk(store, "France", FRANCE);
    saveOk(store, "Spain");
    const removed = store.remove(france.id);
    expect(removed).toEqual({ ok: true, item: france });
    expect(store.list().map((item) => item.name)).toEqual(["Spain", "Germany"]);
    expect(store.remove(france.id)).toMatchObject({ ok: false });
    expect(store.restore(france)).toEqual({ ok: true, item: france });
    expect(store.list().map((item) => item.name)).toEqual(["Spain", "France", "Germany"]);
    // Restoring twice is harmless.
    expect(store.restore(france)).toEqual({ ok: true, item: france });
    expect(store.list()).toHaveLength(3);
    // If its name was taken meanwhile, it comes back numbered.
    store.remove(germany.id);
    saveOk(store, "Germany", FRANCE);
    expect(store.restore(germany)).toMatchObject({ ok: true, item: { id: germany.id, name: "Germany (2)" } });
  });

  it("keeps entries it cannot read, untouched, and counts them", () => {
    const foreign = { id: "x", name: "From the future", tree: { type: "group", hologram: true } };
    storage.setItem(SAVED_AUDIENCES_KEY, JSON.stringify([foreign, "junk"]));
    const store = makeStore(storage);
    expect(store.getSnapshot()).toEqual({ items: [], unreadable: 2 });
    saveOk(store, "Germany");
    const raw = JSON.parse(storage.getItem(SAVED_AUDIENCES_KEY)!) as unknown[];
    expect(raw).toHaveLength(3);
    expect(raw.slice(1)).toEqual([foreign, "junk"]);
  });

  it("keeps a saved tree whose rules are unfinished (work is never dropped)", () => {
    const unfinished = {
      ...GERMANY,
      children: [{ type: "condition", column: "FOUNDED_ORG", operator: "gt" }],
    } as GroupNode;
    const store = makeStore(storage);
    saveOk(store, "Draft", unfinished);
    expect(makeStore(storage).list()[0]?.tree).toEqual(unfinished);
  });

  it("backs up a whole value it cannot read before replacing it", () => {
    storage.setItem(SAVED_AUDIENCES_KEY, "{not json");
    const store = makeStore(storage);
    expect(store.getSnapshot().unreadable).toBe(1);
    saveOk(store, "Germany");
    expect(storage.getItem(`${SAVED_AUDIENCES_KEY}.unreadable`)).toBe("{not json");
    expect(store.getSnapshot()).toMatchObject({ unreadable: 0, items: [{ name: "Germany" }] });
  });

  it("reports a full storage instead of pretending to save", () => {
    const full = memoryStorage();
    full.setItem = () => {
      throw new DOMException("quota", "QuotaExceededError");
    };
    const store = makeStore(full);
    expect(store.save("Germany", GERMANY, null)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/storage is full or unavailable/),
    });
    expect(store.list()).toEqual([]);
  });

  it("gives the same snapshot until something changes (useSyncExternalStore needs that)", () => {
    const store = makeStore(storage);
    const before = store.getSnapshot();
    expect(store.getSnapshot()).toBe(before);
    saveOk(store, "Germany");
    const after = store.getSnapshot();
    expect(after).not.toBe(before);
    expect(store.getSnapshot()).toBe(after);
  });

  it("notifies subscribers of its own writes", () => {
    const store = makeStore(storage);
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    saveOk(store, "Germany");
    expect(listener).toHaveBeenCalledTimes(1);
    unsubscribe();
    saveOk(store, "France");
    expect(listener).toHaveBeenCalledTimes(1);
  });
});

describe("across tabs", () => {
  beforeEach(() => localStorage.clear());

  it("a write in another tab (the storage event) updates the hook's list", () => {
    const store = makeStore(localStorage, window);
    const { result } = renderHook(() => useSavedAudiences(store));
    expect(result.current.items).toEqual([]);
    // Another tab writes the same localStorage; this tab only hears the event.
    const otherTab = makeStore(localStorage, null);
    saveOk(otherTab, "From the other tab");
    act(() => {
      window.dispatchEvent(
        new StorageEvent("storage", {
          key: SAVED_AUDIENCES_KEY,
          newValue: localStorage.getItem(SAVED_AUDIENCES_KEY),
          storageArea: localStorage,
        }),
      );
    });
    expect(result.current.items.map((item) => item.name)).toEqual(["From the other tab"]);
    // A clear() elsewhere (key null) empties it too.
    localStorage.clear();
    act(() => {
      window.dispatchEvent(new StorageEvent("storage", { key: null, storageArea: localStorage }));
    });
    expect(result.current.items).toEqual([]);
  });

  it("ignores other keys and other storage areas", () => {
    const store = makeStore(localStorage, window);
    const listener = vi.fn();
    store.subscribe(listener);
    window.dispatchEvent(
      new StorageEvent("storage", { key: "ab.workingTree.v1", storageArea: localStorage }),
    );
    window.dispatchEvent(
      new StorageEvent("storage", { key: SAVED_AUDIENCES_KEY, storageArea: sessionStorage }),
    );
    expect(listener).not.toHaveBeenCalled();
    window.dispatchEvent(
      new StorageEvent("storage", { key: SAVED_AUDIENCES_KEY, storageArea: localStorage }),
    );
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
