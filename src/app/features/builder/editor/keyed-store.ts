/**
 * A tiny external store of values by key (node id), with one listener set per key. Node
 * components read their own entry with `useSyncExternalStore`, so a change to one node's entry
 * re-renders that node only: passing the whole map down as a prop would re-render every node.
 */
export class KeyedStore<V> {
  private values = new Map<string, V>();
  private listeners = new Map<string, Set<() => void>>();

  constructor(initial?: ReadonlyMap<string, V>) {
    if (initial) this.values = new Map(initial);
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  keys(): string[] {
    return [...this.values.keys()];
  }

  set(key: string, value: V | undefined): void {
    if (this.values.get(key) === value) return;
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
    this.notify(key);
  }

  /** Replaces every entry; listeners hear only about keys whose value changed (by identity). */
  replaceAll(next: ReadonlyMap<string, V>): void {
    const changed: string[] = [];
    for (const [key, value] of next) if (this.values.get(key) !== value) changed.push(key);
    for (const key of this.values.keys()) if (!next.has(key)) changed.push(key);
    this.values = new Map(next);
    for (const key of changed) this.notify(key);
  }

  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  private notify(key: string): void {
    const set = this.listeners.get(key);
    if (set) for (const listener of [...set]) listener();
  }
}
