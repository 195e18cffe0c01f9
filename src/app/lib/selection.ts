import { useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import { z } from "zod";
import { canonicalKey } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import { type OpenAudience, treeBelongsTo } from "./open-audience";
import { storedValue } from "./store";

/**
 * The contacts a person ticked in the sample, by `RBID_PAO`, kept per audience: switching to
 * another audience shows that audience's own ticks, and coming back restores them. A tiny external
 * store in localStorage (it survives a reload and is shared with other tabs), read with
 * `useSyncExternalStore`. The audience feature writes it; Checkout reads it, and buys only the
 * selected people still in the audience (lib/selection-check.ts). At most SELECTION_CAP ids per
 * audience (Enrich takes at most 1,000 entries per call): adding beyond the cap adds what fits and
 * says how many were left out.
 *
 * Which audience: a saved audience open in this tab is one audience however its filter is edited
 * (`saved:<id>`); an unsaved tree is named by its canonical form (`tree:<hash>`), and the Builder
 * carries its ticks along as it is edited (`useSelectionFollows`).
 */
export const SELECTION_CAP = 1000;
export const SELECTIONS_STORAGE_KEY = "audience-builder:selections";
/** Selections of at most this many audiences are kept, the most recently touched. */
export const AUDIENCES_KEPT = 20;
/** Where an earlier version kept one selection for every audience (adopted once, see below). */
export const LEGACY_SELECTION_KEYS = {
  ids: "audience-builder:selection",
  names: "audience-builder:selection-names",
} as const;

const SAVED = "saved:";
const TREE = "tree:";

/** Which audience ticks belong to (`key`), and the working tree it was last seen with (`tree`). */
export interface SelectionAudience {
  readonly key: string;
  /** `treeKeyOf` of the working tree. */
  readonly tree: string;
}

const treeKeys = new WeakMap<GroupNode, string>();

/** A short, stable name of a tree's canonical form (cyrb53, 53 bits): equal trees, equal names. */
export function treeKeyOf(tree: GroupNode): string {
  const known = treeKeys.get(tree);
  if (known !== undefined) return known;
  const text = canonicalKey(tree);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const key = (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  treeKeys.set(tree, key);
  return key;
}

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

interface Entry {
  /** The selected ids, oldest first. */
  readonly ids: readonly string[];
  /** The names the sample showed (id -> full name), so Checkout can say who is who. */
  readonly names: Readonly<Record<string, string>>;
  /** `treeKeyOf` of the working tree it was last seen with. */
  readonly tree: string;
  /** When it was last touched (ms), to keep the most recent AUDIENCES_KEPT. */
  readonly at: number;
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
const storedNames = z.record(z.string(), z.string().max(300)).catch({});
const entrySchema = z.object({
  ids: storedIds,
  names: storedNames,
  tree: z.string().catch(""),
  at: z.number().catch(0),
});
/** Each audience's entry read on its own: one that no longer reads is dropped, not the others. */
const selectionsSchema = z.record(z.string(), z.unknown()).transform((record) => {
  const out: Record<string, Entry> = {};
  for (const [key, value] of Object.entries(record)) {
    const entry = entrySchema.safeParse(value);
    if (entry.success && entry.data.ids.length > 0) out[key] = entry.data;
  }
  return out;
});
const store = storedValue(SELECTIONS_STORAGE_KEY, selectionsSchema);
const legacyIds = storedValue(LEGACY_SELECTION_KEYS.ids, storedIds);
const legacyNames = storedValue(LEGACY_SELECTION_KEYS.names, storedNames);
const NO_ENTRIES: Readonly<Record<string, Entry>> = {};

function entries(): Readonly<Record<string, Entry>> {
  return store.get() ?? NO_ENTRIES;
}

/** Writes the audiences' entries, an empty one removed, the oldest beyond AUDIENCES_KEPT dropped. */
function writeEntries(next: Record<string, Entry>): void {
  for (const [key, entry] of Object.entries(next)) if (entry.ids.length === 0) delete next[key];
  const byAge = Object.keys(next).sort((a, b) => next[b]!.at - next[a]!.at);
  for (const old of byAge.slice(AUDIENCES_KEPT)) delete next[old];
  store.set(Object.keys(next).length === 0 ? null : next);
}

function writeEntry(audience: SelectionAudience, ids: readonly string[], names: Record<string, string>) {
  writeEntries({ ...entries(), [audience.key]: { ids, names, tree: audience.tree, at: stamp() } });
}

/** Now, or just after the newest entry: the entry touched last is always the newest. */
function stamp(): number {
  let newest = 0;
  for (const entry of Object.values(entries())) newest = Math.max(newest, entry.at);
  return Math.max(Date.now(), newest + 1);
}

/** Subscribes to changes (this tab's and other tabs'). */
export const subscribeSelection = store.subscribe;

// ---------------------------------------------------------------------------------------------
// Which audience
// ---------------------------------------------------------------------------------------------

/**
 * The audience `tree` is: the saved audience open in this tab when the tree is its own (see
 * `treeBelongsTo`), else the unsaved tree. An unsaved tree that is a saved audience's working tree
 * in another tab (where that audience is open, and ticked) is that audience: a Checkout opened in
 * a new tab buys what the Builder's tab selected.
 */
export function selectionAudienceOf(open: OpenAudience | null, tree: GroupNode): SelectionAudience {
  const treeKey = treeKeyOf(tree);
  if (open && treeBelongsTo(open, tree)) return { key: `${SAVED}${open.id}`, tree: treeKey };
  const all = entries();
  const own = `${TREE}${treeKey}`;
  if (all[own]) return { key: own, tree: treeKey };
  let best: string | null = null;
  for (const [key, entry] of Object.entries(all))
    if (key.startsWith(SAVED) && entry.tree === treeKey && (best === null || entry.at > all[best]!.at))
      best = key;
  return { key: best ?? own, tree: treeKey };
}

/** `selectionAudienceOf`, kept current as selections are written (here or in another tab). */
export function useSelectionAudience(open: OpenAudience | null, tree: GroupNode): SelectionAudience {
  const read = useCallback(() => {
    const { key } = selectionAudienceOf(open, tree);
    return key;
  }, [open, tree]);
  const key = useSyncExternalStore(store.subscribe, read, read);
  const treeKey = treeKeyOf(tree);
  return useStable({ key, tree: treeKey });
}

/** The same object while key and tree stay the same (hooks below depend on it). */
function useStable(audience: SelectionAudience): SelectionAudience {
  const ref = useRef(audience);
  if (ref.current.key !== audience.key || ref.current.tree !== audience.tree) ref.current = audience;
  return ref.current;
}

// ---------------------------------------------------------------------------------------------
// Reading and writing one audience's selection
// ---------------------------------------------------------------------------------------------

export interface SelectionSnapshot {
  /** The audience the ticks belong to. */
  readonly key: string;
  /** The selected ids, oldest first. */
  readonly ids: readonly string[];
  /** The same ids, for membership tests. */
  readonly has: ReadonlySet<string>;
  /** The names the sample showed for them (an id without one is not known here). */
  readonly names: Readonly<Record<string, string>>;
  /** Ids the last add could not take because the cap was reached (0 when everything fitted). */
  readonly refused: number;
}

const NONE: readonly string[] = [];
const NO_NAMES: Readonly<Record<string, string>> = {};

/** Ids the last add could not take, for the audience it was made in; this page's note, not kept. */
let refusedNote = { key: "", count: 0 };
const snapshots = new Map<
  string,
  { entry: Entry | undefined; refused: number; snapshot: SelectionSnapshot }
>();

/** The selection of `audience` (the same object until it changes). */
export function getSelection(audience: Pick<SelectionAudience, "key">): SelectionSnapshot {
  const { key } = audience;
  const entry = entries()[key];
  const refused = refusedNote.key === key ? refusedNote.count : 0;
  const cached = snapshots.get(key);
  if (cached && cached.entry === entry && cached.refused === refused) return cached.snapshot;
  const ids = entry?.ids ?? NONE;
  const snapshot: SelectionSnapshot = {
    key,
    ids,
    has: new Set(ids),
    names: entry?.names ?? NO_NAMES,
    refused,
  };
  snapshots.set(key, { entry, refused, snapshot });
  return snapshot;
}

/**
 * Adds ids (duplicates ignored) to `audience`'s selection up to the cap; returns how many were
 * refused. `names`: the people's names as shown, kept for Checkout's review.
 */
export function addToSelection(
  audience: SelectionAudience,
  ids: Iterable<string>,
  names: ReadonlyMap<string, string> | null = null,
): number {
  const before = getSelection(audience);
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
  const nextNames: Record<string, string> = { ...before.names };
  let named = false;
  for (const id of next) {
    const name = names?.get(id)?.slice(0, 300);
    if (name && nextNames[id] !== name) {
      nextNames[id] = name;
      named = true;
    }
  }
  if (next.length === before.ids.length && !named && refused === before.refused) return refused;
  refusedNote = { key: audience.key, count: refused };
  writeEntry(audience, next, nextNames);
  return refused;
}

/** Removes ids from `audience`'s selection; clears the "refused" note. */
export function removeFromSelection(audience: SelectionAudience, ids: Iterable<string>): void {
  const before = getSelection(audience);
  const drop = new Set(ids);
  const next = before.ids.filter((id) => !drop.has(id));
  if (next.length === before.ids.length && before.refused === 0) return;
  refusedNote = { key: "", count: 0 };
  writeEntry(audience, next, keepNames(before.names, next));
}

/** Empties `audience`'s selection (other audiences keep theirs). */
export function clearSelection(audience: SelectionAudience): void {
  const before = getSelection(audience);
  if (before.ids.length === 0 && before.refused === 0) return;
  refusedNote = { key: "", count: 0 };
  writeEntry(audience, [], {});
}

function keepNames(names: Readonly<Record<string, string>>, ids: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const id of ids) if (names[id]) kept[id] = names[id];
  return kept;
}

/** Forgets this page's note of refused ids (tests: the stored ids are re-read on every call). */
export function reloadSelection(): void {
  refusedNote = { key: "", count: 0 };
  snapshots.clear();
}

/** `audience`'s selection, kept current; an earlier version's single selection is adopted by it. */
export function useSelection(audience: SelectionAudience): SelectionSnapshot {
  useEffect(() => adoptLegacySelection(audience), [audience]);
  const read = useCallback(() => getSelection(audience), [audience]);
  return useSyncExternalStore(store.subscribe, read, read);
}

/**
 * An earlier version kept one selection for every audience. The first audience shown after the
 * update takes it (unless it has ticks of its own), and the old keys are removed: nothing ticked is
 * lost, and rows no longer in that audience are left out of a purchase like any others.
 */
export function adoptLegacySelection(audience: SelectionAudience): void {
  const ids = legacyIds.get();
  const names = legacyNames.get();
  if (ids === null && names === null) return;
  if (ids && ids.length > 0 && getSelection(audience).ids.length === 0)
    writeEntry(audience, ids, keepNames(names ?? {}, ids));
  legacyIds.set(null);
  legacyNames.set(null);
}

// ---------------------------------------------------------------------------------------------
// Following the Builder
// ---------------------------------------------------------------------------------------------

/**
 * Where the ticks go when the Builder's audience changes from `from` to `to` without the person
 * opening another one: an unsaved tree that is edited is the same audience under a new name, so its
 * ticks move; a tree that becomes a saved audience (saved as new), or stops being one (closed,
 * deleted), keeps the ticks it had. A saved audience keeps its own as well (copied, not moved).
 * An unsaved tree's earlier ticks are replaced (the ticks being worked on win); a saved audience's
 * own ticks never are.
 */
export function carrySelection(from: SelectionAudience, to: SelectionAudience): void {
  if (from.key === to.key) return;
  const all = entries();
  const source = all[from.key];
  if (!source || (to.key.startsWith(SAVED) && all[to.key])) return;
  const next = { ...all, [to.key]: { ...source, tree: to.tree, at: stamp() } };
  if (from.key.startsWith(TREE)) delete next[from.key];
  writeEntries(next);
}

/** Notes the working tree a saved audience's ticks were last seen with (see selectionAudienceOf). */
function noteTree(audience: SelectionAudience): void {
  const entry = entries()[audience.key];
  if (!entry || entry.tree === audience.tree) return;
  writeEntries({ ...entries(), [audience.key]: { ...entry, tree: audience.tree, at: stamp() } });
}

const same = (a: SelectionAudience, b: SelectionAudience) => a.key === b.key && a.tree === b.tree;

/**
 * In the Builder: the ticks follow the audience being worked on (`carrySelection`), except when the
 * person opens another audience. The returned function is called with the audience about to be
 * opened, before it is put in the Builder: until it is there, nothing is carried (an open may take
 * two renders, the open audience first and the tree after).
 */
export function useSelectionFollows(audience: SelectionAudience): (next: SelectionAudience) => void {
  const last = useRef(audience);
  const opening = useRef<SelectionAudience | null>(null);
  useEffect(() => {
    const before = last.current;
    last.current = audience;
    const target = opening.current;
    if (target) {
      if (same(target, audience)) opening.current = null;
      return;
    }
    if (before.key === audience.key) noteTree(audience);
    else carrySelection(before, audience);
  }, [audience]);
  return useCallback((next: SelectionAudience) => {
    if (!same(next, last.current)) opening.current = next;
  }, []);
}
