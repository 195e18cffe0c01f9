import { useSyncExternalStore } from "react";
import type { z } from "zod";

/** localStorage, or null where the browser refuses it (some privacy modes, sandboxed frames). */
export function browserStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/**
 * A small value kept in localStorage and read with useSyncExternalStore: the last purchase's rows
 * (so a reload or a failed download never means paying again) and the export being followed.
 * Values that no longer read with their schema are treated as absent.
 */
export interface StoredValue<T> {
  get(): T | null;
  /** False when the browser refused to keep it (it is still kept for this page). */
  set(value: T | null): boolean;
  subscribe(listener: () => void): () => void;
}

/** The stored value, kept current (this tab's changes and other tabs'). */
export function useStoredValue<T>(store: StoredValue<T>): T | null {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

export function storedValue<S extends z.ZodType>(
  key: string,
  schema: S,
  storage: () => Storage | null = browserStorage,
): StoredValue<z.output<S>> {
  type T = z.output<S>;
  let cachedRaw: string | null | undefined;
  let cached: T | null = null;
  /** The value when storage refused it. */
  let memory: { value: T | null } | null = null;
  const listeners = new Set<() => void>();

  const read = (): T | null => {
    if (memory) return memory.value;
    let raw: string | null = null;
    try {
      raw = storage()?.getItem(key) ?? null;
    } catch {
      raw = null;
    }
    if (raw === cachedRaw) return cached;
    cachedRaw = raw;
    cached = null;
    if (raw !== null) {
      try {
        const parsed = schema.safeParse(JSON.parse(raw));
        cached = parsed.success ? parsed.data : null;
      } catch {
        cached = null;
      }
    }
    return cached;
  };

  const notify = () => {
    for (const listener of listeners) listener();
  };

  const onStorage = (event: StorageEvent) => {
    if (event.key === key || event.key === null) notify();
  };

  const subscribe = (listener: () => void) => {
    if (listeners.size === 0 && typeof window !== "undefined") window.addEventListener("storage", onStorage);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && typeof window !== "undefined")
        window.removeEventListener("storage", onStorage);
    };
  };

  return {
    get: read,
    subscribe,
    set(value) {
      let kept = true;
      try {
        const store = storage();
        if (!store) throw new Error("no storage");
        if (value === null) store.removeItem(key);
        else store.setItem(key, JSON.stringify(value));
        memory = null;
      } catch {
        memory = { value };
        kept = false;
      }
      notify();
      return kept;
    },
  };
}
