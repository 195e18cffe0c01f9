import { useSyncExternalStore } from "react";
import { z } from "zod";
import { storedValue } from "./store";

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

/** The ids as kept: strings, once each, at most the cap (anything else in storage is ignored). */
const storedIds = z
  .array(z.unknown())
  .transform((ids) =>
    [...new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""))].slice(
      0,
      SELECTION_CAP,
    ),
  );
const idsStore = storedValue(SELECTION_STORAGE_KEY, storedIds);

/**
 * The names of selected people as the sample showed them (id -> full name), so that Checkout can
 * say who is who without asking the service again. Only ids still selected are kept.
 */
export const SELECTION_NAMES_STORAGE_KEY = "audience-builder:selection-names";
const namesStore = storedValue(
  SELECTION_NAMES_STORAGE_KEY,
  z.record(z.string(), z.string().max(300)).catch({}),
);
const NO_NAMES: Readonly<Record<string, string>> = {};

/** Keeps the names of `ids` only (and adds `more`). */
function writeNames(ids: readonly string[], more: ReadonlyMap<string, string> | null = null): void {
  const before = namesStore.get() ?? NO_NAMES;
  const next: Record<string, string> = {};
  for (const id of ids) {
    const name = more?.get(id) ?? before[id];
    if (name) next[id] = name.slice(0, 300);
  }
  const changed =
    Object.keys(next).length !== Object.keys(before).length ||
    Object.entries(next).some(([id, name]) => before[id] !== name);
  if (changed) namesStore.set(Object.keys(next).length === 0 ? null : next);
}
const NONE: readonly string[] = [];

/** Ids the last add could not take; this page's note, not kept. */
let refused = 0;
let snapshot: SelectionSnapshot = snapshotOf(NONE);

function read(): SelectionSnapshot {
  const ids = idsStore.get() ?? NONE;
  if (snapshot.ids !== ids || snapshot.refused !== refused) snapshot = snapshotOf(ids, refused);
  return snapshot;
}

function write(ids: readonly string[], refusedNow = 0): void {
  refused = refusedNow;
  idsStore.set(ids.length === 0 ? null : [...ids]);
}

/** Subscribes to changes (this tab's and other tabs'). */
export const subscribeSelection = idsStore.subscribe;

/** The current selection (the same object until it changes). */
export function getSelection(): SelectionSnapshot {
  return read();
}

/**
 * Adds ids (duplicates ignored) up to the cap; returns how many were refused. `names`: the people's
 * names as shown, kept for Checkout's review.
 */
export function addToSelection(
  ids: Iterable<string>,
  names: ReadonlyMap<string, string> | null = null,
): number {
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
  if (names) writeNames(next, names);
  if (next.length === before.ids.length && refused === before.refused) return refused;
  write(next, refused);
  return refused;
}

/** Removes ids; clears the "refused" note. */
export function removeFromSelection(ids: Iterable<string>): void {
  const before = read();
  const drop = new Set(ids);
  const next = before.ids.filter((id) => !drop.has(id));
  if (next.length === before.ids.length && before.refused === 0) return;
  write(next);
  writeNames(next);
}

/** Empties the selection. */
export function clearSelection(): void {
  const before = read();
  if (before.ids.length === 0 && before.refused === 0) return;
  write([]);
  writeNames([]);
}

/** Forgets this page's note of refused ids (tests: the stored ids are re-read on every call). */
export function reloadSelection(): void {
  refused = 0;
}

/** The selection, kept current. */
export function useSelection(): SelectionSnapshot {
  return useSyncExternalStore(subscribeSelection, getSelection, getSelection);
}

/** The names the sample showed for selected people (id -> name; an id without one is not known here). */
export function useSelectionNames(): Readonly<Record<string, string>> {
  return useSyncExternalStore(namesStore.subscribe, readNames, readNames);
}

function readNames(): Readonly<Record<string, string>> {
  return namesStore.get() ?? NO_NAMES;
}
