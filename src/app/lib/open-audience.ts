/**
 * The open audience: which saved audience (on the server) the working tree was opened from or last
 * saved as, at which version, and the canonical key of the filter that version holds. "Save" then
 * updates it in place (a `PUT` carrying that version); the working tree has unsaved changes when
 * its canonical key differs from the saved one.
 *
 * It is kept per tab (sessionStorage, through store.ts): it survives a reload, but two tabs may
 * have two different audiences open without one saving its tree into the other's audience. The
 * working tree itself stays where working-tree.ts keeps it (the URL and localStorage).
 * Everything here but `useOpenAudience` is plain functions, without React.
 */
import { z } from "zod";
import { canonicalKey } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import type { Audience } from "../../contract/team";
import { formatNumber, formatRelative } from "./format";
import { type StoredValue, storedValue, useStoredValue } from "./store";

export const OPEN_AUDIENCE_KEY = "ab.openAudience.v1";

const openAudienceSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** The version the working tree was opened from or saved as: the one a `PUT` replaces. */
  version: z.number().int().positive(),
  /** canonicalKey of the filter that version holds. */
  savedKey: z.string(),
  /** canonicalKey of this tab's working tree when last seen with this audience open. */
  workingKey: z.string(),
  owner: z.string(),
  shared: z.boolean(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});
export type OpenAudience = z.output<typeof openAudienceSchema>;

/** sessionStorage, or null where the browser refuses it. */
function tabStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null;
  }
}

let defaultStore: StoredValue<OpenAudience> | null = null;

/** The tab's open-audience store (tests pass their own Storage to `createOpenAudienceStore`). */
export function openAudienceStore(): StoredValue<OpenAudience> {
  defaultStore ??= createOpenAudienceStore(tabStorage);
  return defaultStore;
}

export function createOpenAudienceStore(storage: () => Storage | null): StoredValue<OpenAudience> {
  return storedValue(OPEN_AUDIENCE_KEY, openAudienceSchema, storage);
}

/** The open audience, re-rendering when it changes. */
export function useOpenAudience(store: StoredValue<OpenAudience> = openAudienceStore()): OpenAudience | null {
  return useStoredValue(store);
}

/** The record for `audience`, opened (or just saved) with the working tree `tree`. */
export function openAudienceOf(audience: Audience, tree: GroupNode = audience.filter): OpenAudience {
  const key = canonicalKey(tree);
  return {
    id: audience.id,
    name: audience.name,
    version: audience.version,
    savedKey: key,
    workingKey: key,
    owner: audience.owner,
    shared: audience.shared,
    updatedBy: audience.updatedBy,
    updatedAt: audience.updatedAt,
  };
}

/** Whether `tree` differs from what the open audience's version holds. */
export function hasUnsavedChanges(open: OpenAudience, tree: GroupNode): boolean {
  return canonicalKey(tree) !== open.savedKey;
}

/**
 * Whether `tree` belongs to the open audience: it is the saved filter, or the working tree this tab
 * last had with the audience open. Another tree (a link from elsewhere, another tab's audience read
 * from shared storage) does not: saving it into the open audience would be a mistake.
 */
export function treeBelongsTo(open: OpenAudience, tree: GroupNode): boolean {
  const key = canonicalKey(tree);
  return key === open.savedKey || key === open.workingKey;
}

/** What a screen shows: the open audience and whether the tree has unsaved changes; null for none. */
export function openAudienceFor(
  open: OpenAudience | null,
  tree: GroupNode,
): { open: OpenAudience; unsaved: boolean } | null {
  if (!open || !treeBelongsTo(open, tree)) return null;
  return { open, unsaved: hasUnsavedChanges(open, tree) };
}

/**
 * At the Builder's load: keeps the open audience only if `tree` is its own (see `treeBelongsTo`),
 * else closes it and returns its name, for a sentence. Null when nothing was closed.
 */
export function closeIfForeign(store: StoredValue<OpenAudience>, tree: GroupNode): string | null {
  const open = store.get();
  if (!open || treeBelongsTo(open, tree)) return null;
  store.set(null);
  return open.name;
}

/** The record with this tab's latest working tree noted (unchanged object when nothing changed). */
export function withWorkingTree(open: OpenAudience, tree: GroupNode): OpenAudience {
  const key = canonicalKey(tree);
  return key === open.workingKey ? open : { ...open, workingKey: key };
}

/**
 * The open audience after `audience` changed on the server by this person (renamed, shared,
 * restored...) from version `replaced`. Only when the open record was at that version does it move
 * to the new one: otherwise the tree was based on an older version, and a later Save must still meet
 * the conflict. `savedKey` follows the new filter only for a record that moves.
 */
export function followChange(
  open: OpenAudience | null,
  replaced: number,
  audience: Audience,
): OpenAudience | null {
  if (!open || open.id !== audience.id) return open;
  const common = { name: audience.name, shared: audience.shared, owner: audience.owner };
  if (open.version !== replaced) return { ...open, ...common };
  return {
    ...open,
    ...common,
    version: audience.version,
    savedKey: canonicalKey(audience.filter),
    updatedBy: audience.updatedBy,
    updatedAt: audience.updatedAt,
  };
}

/**
 * Whether the open audience is still the one a request started from: the same id at the same
 * version (or still none). An answer that arrives after the person opened, imported, restored or
 * closed something else must not be applied: the record it carries would come back over the tree
 * now in the Builder, and a later Save would write that tree into the wrong audience.
 */
export function stillOpen(current: OpenAudience | null, basedOn: OpenAudience | null): boolean {
  if (basedOn === null || current === null) return current === basedOn;
  return current.id === basedOn.id && current.version === basedOn.version;
}

/**
 * Sets `next` as the open audience only if the open one is still `basedOn` (see `stillOpen`);
 * whether it did.
 */
export function openIfStill(
  store: StoredValue<OpenAudience>,
  basedOn: OpenAudience | null,
  next: OpenAudience,
): boolean {
  if (!stillOpen(store.get(), basedOn)) return false;
  store.set(next);
  return true;
}

/** The short link of a saved audience: `${origin}/a/<id>`. */
export function shortLink(id: string, origin: string = window.location.origin): string {
  return `${origin}/a/${encodeURIComponent(id)}`;
}

/** "Ana, 5 minutes ago" (`person` as people read it: the caller passes it through personLabel). */
export function savedByWhen(person: string, iso: string, now: Date = new Date()): string {
  return `${person}, ${formatRelative(iso, now)}`;
}

/**
 * A recorded name at the start of a sentence: `label`'s words ("the local admin") with their first
 * letter up; a person's own name exactly as it is ("bo" stays "bo").
 */
export function sentenceStart(name: string, label: (name: string) => string): string {
  const words = label(name);
  return words === name ? name : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The sentence of a version conflict: who saved the newer version, when, and what it holds.
 * E.g. `Ana saved version 4 of “Directors in Germany” 5 minutes ago (1,234 people), after the
 * version 3 you opened.`
 */
export function describeConflict(
  open: OpenAudience,
  current: Audience,
  now: Date = new Date(),
  /** A recorded name as people read it (the app passes lib/roles' personLabel). */
  label: (name: string) => string = (name) => name,
): string {
  const count = current.lastCount === null ? "" : ` (${formatNumber(current.lastCount)} people)`;
  return `${sentenceStart(current.updatedBy, label)} saved version ${current.version} of “${current.name}” ${formatRelative(current.updatedAt, now)}${count}, after the version ${open.version} you opened.`;
}

// ---------------------------------------------------------------------------------------------
// Saving in place
// ---------------------------------------------------------------------------------------------

export type SaveOutcome =
  | { kind: "saved"; audience: Audience; open: OpenAudience }
  /** Someone saved a newer version: `current` is it. Nothing was written. */
  | { kind: "conflict"; current: Audience }
  | { kind: "failed"; error: unknown };

export interface SaveInput {
  open: OpenAudience;
  tree: GroupNode;
  lastCount: number | null;
  /**
   * The version the save replaces: the open one (Save), or the latest one after a conflict, when
   * the person chose to overwrite it with theirs.
   */
  replacing?: number;
}

/**
 * Saves the working tree into the open audience (PUT with the version it replaces). Never throws:
 * a 409 VERSION_CONFLICT is `conflict` with the latest version, anything else `failed`.
 * `update` and `conflictOf` are the api module's (injected, so this stays free of HTTP).
 */
export async function saveInPlace(
  input: SaveInput,
  deps: {
    update(
      id: string,
      body: { version: number; filter: GroupNode; lastCount: number | null },
    ): Promise<Audience>;
    conflictOf(error: unknown): Audience | null;
  },
): Promise<SaveOutcome> {
  const { open, tree, lastCount } = input;
  try {
    const audience = await deps.update(open.id, {
      version: input.replacing ?? open.version,
      filter: tree,
      lastCount,
    });
    return { kind: "saved", audience, open: openAudienceOf(audience, tree) };
  } catch (error) {
    const current = deps.conflictOf(error);
    return current ? { kind: "conflict", current } : { kind: "failed", error };
  }
}
