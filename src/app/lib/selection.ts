import { useSyncExternalStore } from "react";

/**
 * The contacts a person ticked in the sample, by `RBID_PAO`: a tiny external store, persisted in
 * localStorage (so it survives a reload and is shared with other tabs), read with
 * `useSyncExternalStore`. The audience feature writes it; checkout reads it to enrich the chosen
 * rows. At most SELECTION_CAP ids (Enrich takes at most 1,000 entries per call): adding beyond the
 * cap adds what fits and says how many were left out.
 */
export const SELECTION_CAP = 1000;
export const SELECTION_STORAGE_KEY = "audience-builder:selection";

export interface SelectionSnapshot {
  /** The selected ids, oldest first. */
  readonly ids: readonly string[];
  /** The same ids, for membership tests. */
  readonly has: ReadonlySet<string>;
  /** Ids the last add could not take because the cap was reached (0 when everything fitted). */
  readonly refused: number;
}

function snapshotOf(ids: readonly string[], refused = 0): SelectionSnapshot {
  return { ids, has: new Set(ids), refused };
}

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    // Storage disabled (privacy settings, sandboxed frame): the selection lives for this page only.
    return null;
  }
}

function load(): readonly string[] {
  try {
    const raw = storage()?.getItem(SELECTION_STORAGE_KEY);
    if (!raw) return [];
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    const ids = parsed.filter((id): id is string => typeof id === "string" && id !== "");
    return [...new Set(ids)].slice(0, SELECTION_CAP);
  } catch {
    return [];
  }
}

function save(ids: readonly string[]): void {
  try {
    const store = storage();
    if (!store) return;
    if (ids.length === 0) store.removeItem(SELECTION_STORAGE_KEY);
    else store.setItem(SELECTION_STORAGE_KEY, JSON.stringify(ids));
  } catch {
    // Quota or privacy errors: the selection still works for this page.
  }
}

let current: SelectionSnapshot | null = null;
const listeners = new Set<() => void>();

function read(): SelectionSnapshot {
  current ??= snapshotOf(load());
  return current;
}

function write(next: SelectionSnapshot): void {
  current = next;
  save(next.ids);
  for (const listener of listeners) listener();
}

function onStorage(event: StorageEvent): void {
  if (event.key !== SELECTION_STORAGE_KEY && event.key !== null) return;
  current = snapshotOf(load());
  for (const listener of listeners) listener();
}

/** Subscribes to changes (this tab's and, through the `storage` event, other tabs'). */
export function subscribeSelection(listener: () => void): () => void {
  if (listeners.size === 0 && typeof window !== "undefined") window.addEventListener("storage", onStorage);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && typeof window !== "undefined")
      window.removeEventListener("storage", onStorage);
  };
}

/** The current selection (the same object until it changes). */
export function getSelection(): SelectionSnapshot {
  return read();
}

/** Adds ids (duplicates ignored) up to the cap; returns how many were refused. */
export function addToSelection(ids: Iterable<string>): number {
  const before = read();
  const next = [...before.ids];
  const has = new Set(before.ids);
  let refused = 0;
  for (const id of ids) {
    if (id === "" || has.has(id)) continue;
    if (next.length >= SELECTION_CAP) {
      refused += 1;
      continue;
    }
    next.push(id);
    has.add(id);
  }
  if (next.length === before.ids.length && refused === before.refused) return refused;
  write(snapshotOf(next, refused));
  return refused;
}

/** Removes ids; clears the "refused" note. */
export function removeFromSelection(ids: Iterable<string>): void {
  const before = read();
  const drop = new Set(ids);
  const next = before.ids.filter((id) => !drop.has(id));
  if (next.length === before.ids.length && before.refused === 0) return;
  write(snapshotOf(next));
}

/** Empties the selection. */
export function clearSelection(): void {
  const before = read();
  if (before.ids.length === 0 && before.refused === 0) return;
  write(snapshotOf([]));
}

/** Re-reads the persisted selection (for tests, and after storage was changed behind our back). */
export function reloadSelection(): void {
  current = snapshotOf(load());
  for (const listener of listeners) listener();
}

/** The selection, kept current. */
export function useSelection(): SelectionSnapshot {
  return useSyncExternalStore(subscribeSelection, getSelection, getSelection);
}
