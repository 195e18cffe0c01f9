/**
 * Saved audiences, kept in localStorage under `ab.savedAudiences.v1` as a JSON array. A small
 * external store for `useSyncExternalStore`: every read compares the raw stored string with the
 * last one, so writes from this tab and from other tabs (the `storage` event) both show at once.
 *
 * Nothing is dropped silently: an entry this version cannot read is kept, untouched, after the
 * readable ones; a whole value that is not a JSON array is copied to `ab.savedAudiences.v1.unreadable`
 * before the first write replaces it.
 */
import { useSyncExternalStore } from "react";
import { z } from "zod";
import type { GroupNode } from "../../../contract/filter";
import { checkFilterTree } from "../../lib/filter/check";
import { browserStorage } from "../../lib/store";
import { checkName, uniqueName } from "./audience-names";

export const SAVED_AUDIENCES_KEY = "ab.savedAudiences.v1";
const UNREADABLE_BACKUP_KEY = `${SAVED_AUDIENCES_KEY}.unreadable`;

export interface SavedAudience {
  id: string;
  name: string;
  tree: GroupNode;
  /** The audience's size when it was saved, or null if it was not known. */
  lastCount: number | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface SavedAudiencesState {
  /** Newest first (by creation). */
  items: readonly SavedAudience[];
  /** Stored entries this version could not read (kept in storage, not shown). */
  unreadable: number;
}

export type SaveResult =
  | { ok: true; item: SavedAudience }
  | { ok: false; error: string; suggestion?: string };

export interface SavedAudiencesStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): SavedAudiencesState;
  /** Newest first. */
  list(): readonly SavedAudience[];
  get(id: string): SavedAudience | undefined;
  save(name: string, tree: GroupNode, lastCount: number | null): SaveResult;
  rename(id: string, name: string): SaveResult;
  /** A copy named `Name (2)` (or the next free number). */
  duplicate(id: string): SaveResult;
  /** Removes the item and returns it, to be handed back to `restore` for an undo. */
  remove(id: string): SaveResult;
  /** Puts a removed item back (under a fresh `Name (n)` if its name was taken meanwhile). */
  restore(item: SavedAudience): SaveResult;
}

const itemSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  tree: z.unknown(),
  lastCount: z.number().finite().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

interface ParsedValue {
  state: SavedAudiencesState;
  /** Entries kept as they were, written back after the readable ones. */
  unreadableEntries: unknown[];
  /** The whole value was not an array: back it up before replacing it. */
  wholeValueUnreadable: boolean;
}

const EMPTY_STATE: SavedAudiencesState = { items: [], unreadable: 0 };

function parseValue(raw: string | null): ParsedValue {
  if (raw === null) return { state: EMPTY_STATE, unreadableEntries: [], wholeValueUnreadable: false };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value))
    return { state: { items: [], unreadable: 1 }, unreadableEntries: [], wholeValueUnreadable: true };
  const items: SavedAudience[] = [];
  const unreadableEntries: unknown[] = [];
  for (const entry of value) {
    const parsed = itemSchema.safeParse(entry);
    const checked = parsed.success ? checkFilterTree(parsed.data.tree) : null;
    if (parsed.success && checked && "tree" in checked && !items.some((i) => i.id === parsed.data.id))
      items.push({ ...parsed.data, tree: checked.tree });
    else unreadableEntries.push(entry);
  }
  return {
    state: { items: sortNewestFirst(items), unreadable: unreadableEntries.length },
    unreadableEntries,
    wholeValueUnreadable: false,
  };
}

function time(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

function sortNewestFirst(items: SavedAudience[]): SavedAudience[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => time(b.item.createdAt) - time(a.item.createdAt) || a.index - b.index)
    .map(({ item }) => item);
}

/** A random id; `crypto.randomUUID` needs a secure context, `getRandomValues` does not. */
function randomId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function" && globalThis.isSecureContext !== false) return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A Storage kept in memory, for browsers that refuse localStorage: work lasts the session. */
export function memoryStorage(): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (index) => [...data.keys()][index] ?? null,
    removeItem: (key) => void data.delete(key),
    setItem: (key, value) => void data.set(key, String(value)),
  };
}

export interface StoreOptions {
  storage: Storage;
  /** Where `storage` events arrive from (other tabs); null for none. */
  events?: Pick<Window, "addEventListener" | "removeEventListener"> | null;
  now?: () => Date;
  newId?: () => string;
}

export function createSavedAudiencesStore(options: StoreOptions): SavedAudiencesStore {
  const { storage } = options;
  const events =
    options.events === undefined ? (typeof window === "undefined" ? null : window) : options.events;
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomId;
  const listeners = new Set<() => void>();
  let lastRaw: string | null | undefined;
  let lastParsed: ParsedValue = parseValue(null);

  const readRaw = (): string | null => {
    try {
      return storage.getItem(SAVED_AUDIENCES_KEY);
    } catch {
      return null;
    }
  };
  const read = (): ParsedValue => {
    const raw = readRaw();
    if (raw !== lastRaw) {
      lastRaw = raw;
      lastParsed = parseValue(raw);
    }
    return lastParsed;
  };
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const onStorage = (event: Event) => {
    const { key, storageArea } = event as StorageEvent;
    if (storageArea && storageArea !== storage) return;
    if (key === null || key === SAVED_AUDIENCES_KEY) notify();
  };

  /** Applies `change` to a fresh read of the list and writes it; storage errors become a sentence. */
  const write = (change: (items: readonly SavedAudience[]) => SavedAudience[]): string | null => {
    const current = read();
    const next = change(current.state.items);
    try {
      if (current.wholeValueUnreadable && lastRaw != null) storage.setItem(UNREADABLE_BACKUP_KEY, lastRaw);
      storage.setItem(SAVED_AUDIENCES_KEY, JSON.stringify([...next, ...current.unreadableEntries]));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return `Could not save on this device: the browser's storage is full or unavailable (${reason}).`;
    }
    notify();
    return null;
  };

  const names = (exceptId?: string) =>
    read()
      .state.items.filter((item) => item.id !== exceptId)
      .map((item) => item.name);
  const find = (id: string) => read().state.items.find((item) => item.id === id);

  const store: SavedAudiencesStore = {
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1) events?.addEventListener("storage", onStorage);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) events?.removeEventListener("storage", onStorage);
      };
    },
    getSnapshot: () => read().state,
    list: () => read().state.items,
    get: (id) => find(id),

    save(name, tree, lastCount) {
      const check = checkName(name, names());
      if (!check.ok) return check;
      const stamp = now().toISOString();
      const item: SavedAudience = {
        id: newId(),
        name: check.name,
        tree,
        lastCount,
        createdAt: stamp,
        updatedAt: stamp,
      };
      const error = write((items) => [item, ...items]);
      return error ? { ok: false, error } : { ok: true, item };
    },

    rename(id, name) {
      const existing = find(id);
      if (!existing) return { ok: false, error: "This audience no longer exists (deleted in another tab?)." };
      const check = checkName(name, names(id));
      if (!check.ok) return check;
      if (check.name === existing.name) return { ok: true, item: existing };
      const item = { ...existing, name: check.name, updatedAt: now().toISOString() };
      const error = write((items) => items.map((other) => (other.id === id ? item : other)));
      return error ? { ok: false, error } : { ok: true, item };
    },

    duplicate(id) {
      const existing = find(id);
      if (!existing) return { ok: false, error: "This audience no longer exists (deleted in another tab?)." };
      const stamp = now().toISOString();
      const item: SavedAudience = {
        ...existing,
        id: newId(),
        name: uniqueName(existing.name, names()),
        createdAt: stamp,
        updatedAt: stamp,
      };
      const error = write((items) => [item, ...items]);
      return error ? { ok: false, error } : { ok: true, item };
    },

    remove(id) {
      const existing = find(id);
      if (!existing) return { ok: false, error: "This audience no longer exists (deleted in another tab?)." };
      const error = write((items) => items.filter((other) => other.id !== id));
      return error ? { ok: false, error } : { ok: true, item: existing };
    },

    restore(removed) {
      const existing = find(removed.id);
      if (existing) return { ok: true, item: existing };
      const item = { ...removed, name: uniqueName(removed.name, names()) };
      // Back in its place: the list is ordered by creation, which the item keeps.
      const error = write((items) => sortNewestFirst([...items, item]));
      return error ? { ok: false, error } : { ok: true, item };
    },
  };
  return store;
}

let defaultStore: SavedAudiencesStore | null = null;

/** The app's store, over localStorage (or memory where the browser refuses it). */
export function savedAudiencesStore(): SavedAudiencesStore {
  defaultStore ??= createSavedAudiencesStore({ storage: browserStorage() ?? memoryStorage() });
  return defaultStore;
}

/** The saved audiences, newest first, re-rendering on every change (this tab or another). */
export function useSavedAudiences(store: SavedAudiencesStore = savedAudiencesStore()): SavedAudiencesState {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
