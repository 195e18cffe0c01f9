// ---------------------------------------------------------------------------------------------
// Helpers on JSON-like trees
// ---------------------------------------------------------------------------------------------

/** Deep copy of a JSON-like value; own keys such as `__proto__` stay plain own properties. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value))
      setOwn(out, key, cloneJson((value as Record<string, unknown>)[key]));
    return out as T;
  }
  return value;
}

/** Sets an own, enumerable property even for keys like `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every node of a tree (root first, depth first), following `children` arrays. */
export function collectNodes(tree: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    out.push(record);
    if (Array.isArray(record.children)) for (const child of record.children) walk(child);
  };
  walk(tree);
  return out;
}

/** A copy of `tree` whose `index`-th node (in `collectNodes` order) is `replacement`. */
export function replaceNode(tree: unknown, index: number, replacement: unknown): unknown {
  if (index === 0) return replacement;
  const copy = cloneJson(tree);
  let seen = 0;
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return false;
    const children = (node as Record<string, unknown>).children;
    if (!Array.isArray(children)) return false;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child === null || typeof child !== "object" || Array.isArray(child)) continue;
      seen++;
      if (seen === index) {
        children[i] = replacement;
        return true;
      }
      if (walk(child)) return true;
    }
    return false;
  };
  walk(copy);
  return copy;
}

/** The same JSON value with the keys of every object in another order (a deterministic shuffle). */
export function shuffleKeys<T>(value: T, seed: number): T {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) setOwn(out, key, walk((v as Record<string, unknown>)[key]));
    return out;
  };
  return walk(value) as T;
}

/** The same tree with every node's `id` replaced by `makeId(index)` (undefined removes it). */
export function reassignIds<T>(tree: T, makeId: (index: number) => string | null | undefined): T {
  const copy = cloneJson(tree);
  collectNodes(copy).forEach((node, i) => {
    const id = makeId(i);
    if (id === undefined) delete node.id;
    else node.id = id;
  });
  return copy;
}
