import { useSyncExternalStore } from "react";
import type { z } from "zod";

/**
 * The app's one way to keep something on this device: a value in localStorage, shared live with
 * the other tabs (the `storage` event), read with useSyncExternalStore. Two levels:
 * - `storedRaw`: the string itself, for a store that reads its own format (saved audiences keep
 *   what they cannot read instead of dropping it);
 * - `storedValue`: the value read with a zod schema; one that no longer reads is absent.
 * Where the browser refuses storage (privacy modes, a full quota) the value lives in memory for
 * the page's lifetime, and `set` answers false so the caller can say so.
 */

/** localStorage, or null where the browser refuses it (some privacy modes, sandboxed frames). */
export function browserStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** A Storage kept in memory, for browsers that refuse localStorage (and for tests). */
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

export interface Subscribable<T> {
  /** The same object until the stored value changes. */
  get(): T;
  subscribe(listener: () => void): () => void;
}

export interface StoredRaw extends Subscribable<string | null> {
  /** Stores the string (null removes it); false when the browser refused it (kept for this page). */
  set(raw: string | null): boolean;
}

export function storedRaw(key: string, storage: () => Storage | null = browserStorage): StoredRaw {
  /** The value when storage refused it. */
  let memory: { raw: string | null } | null = null;
  const listeners = new Set<() => void>();

  const notify = () => {
    for (const listener of listeners) listener();
  };
  const onStorage = (event: StorageEvent) => {
    if (event.key === key || event.key === null) notify();
  };

  return {
    get() {
      if (memory) return memory.raw;
      try {
        return storage()?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set(raw) {
      let kept = true;
      try {
        const store = storage();
        if (!store) throw new Error("no storage");
        if (raw === null) store.removeItem(key);
        else store.setItem(key, raw);
        memory = null;
      } catch {
        memory = { raw };
        kept = false;
      }
      notify();
      return kept;
    },
    subscribe(listener) {
      if (listeners.size === 0 && typeof window !== "undefined")
        window.addEventListener("storage", onStorage);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && typeof window !== "undefined")
          window.removeEventListener("storage", onStorage);
      };
    },
  };
}

/** Reads a raw string once per distinct string, so that snapshots stay the same object. */
export function cachedReader<T>(read: (raw: string | null) => T): (raw: string | null) => T {
  let cachedRaw: string | null | undefined;
  let cached: T;
  return (raw) => {
    if (raw !== cachedRaw || cachedRaw === undefined) {
      cached = read(raw);
      cachedRaw = raw;
    }
    return cached;
  };
}

export interface StoredValue<T> extends Subscribable<T | null> {
  /** False when the browser refused to keep it (it is still kept for this page). */
  set(value: T | null): boolean;
}

export function storedValue<S extends z.ZodType>(
  key: string,
  schema: S,
  storage: () => Storage | null = browserStorage,
): StoredValue<z.output<S>> {
  const raw = storedRaw(key, storage);
  const read = cachedReader((text): z.output<S> | null => {
    if (text === null) return null;
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  });
  return {
    get: () => read(raw.get()),
    set: (value) => raw.set(value === null ? null : JSON.stringify(value)),
    subscribe: raw.subscribe,
  };
}

/** The stored value, kept current (this tab's changes and other tabs'). */
export function useStoredValue<T>(store: Subscribable<T>): T {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
