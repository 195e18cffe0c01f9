/**
 * Keeping work: the audience being built survives a reload, a crash and a shared link. The tree
 * travels in the URL (`?a=...`, lz-string) and is written to localStorage on every change. Everything
 * here except `useWorkingTreePersistence` is plain functions, without React. What is read back is
 * checked by `checkFilterTree` (filter/check.ts): a half-typed rule is kept, a broken shape refused.
 * Import (a file someone hands you) is stricter and refuses both: see `importTreeJson`.
 */
import LZString from "lz-string";
import { useEffect, useState } from "react";
import type { FilterNode, GroupNode } from "../../contract/filter";
import { checkFilterTree } from "./filter/check";
import { andAtTop, emptyTree, isEmptyTree } from "./filter/tree";
import { browserStorage } from "./store";

/** The URL search parameter that carries the working tree. */
export const URL_PARAM = "a";
/** The localStorage key of the working tree. */
export const WORKING_TREE_KEY = "ab.workingTree.v1";
/** How long the URL waits for typing to pause before it is updated. */
export const URL_DEBOUNCE_MS = 300;
/**
 * Above this many characters the tree stays out of the URL (Node refuses request heads over 16 KiB,
 * and many proxies far less); the tree is still kept in localStorage, and can be exported as a file.
 */
export const MAX_URL_PARAM_LENGTH = 8_000;
/** A pasted link longer than this is refused before it is decompressed. */
const MAX_DECODE_INPUT = 200_000;

/** The message of anything thrown, for one readable line. */
function messageOf(error: unknown): string {
  // DOMException (quota, security) is not always an `Error` across realms.
  if (error !== null && typeof error === "object" && "message" in error && typeof error.message === "string")
    return error.message;
  return String(error);
}

// ---------------------------------------------------------------------------------------------
// URL
// ---------------------------------------------------------------------------------------------

/** The tree as a URL-safe string (lz-string of its JSON); the value of `?a=`. */
export function encodeTreeForUrl(tree: GroupNode): string {
  return LZString.compressToEncodedURIComponent(JSON.stringify(tree));
}

/**
 * The tree back from `?a=`. Never throws: anything unreadable is `{ error }` with a sentence to
 * show. On success, `unfinished` lists rules the builder will ask to complete (usually none).
 */
export function decodeTreeFromUrl(
  text: string,
): { tree: GroupNode; unfinished: string[] } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "The link holds no audience." };
  if (trimmed.length > MAX_DECODE_INPUT) return { error: "The link's audience is too long to read." };
  let json: string | null;
  try {
    json = LZString.decompressFromEncodedURIComponent(trimmed);
  } catch {
    json = null;
  }
  if (!json) return { error: "The link's audience is damaged (it may have been cut short when copied)." };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { error: "The link's audience is damaged (it may have been cut short when copied)." };
  }
  const checked = checkFilterTree(value);
  if ("errors" in checked) return { error: `The link's audience is not valid: ${summarise(checked.errors)}` };
  return checked;
}

/** A sentence ended with a full stop (a check's lines have none). */
const withStop = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The first few lines, then how many more. */
function summarise(lines: readonly string[], shown = 3): string {
  const head = lines.slice(0, shown).join("; ");
  return lines.length > shown ? `${head}; and ${lines.length - shown} more` : head;
}

/** `?a=` of a search string, with `+` read back as lz-string wrote it (a query turns `+` into a space). */
export function treeParamOf(search: string): string | null {
  const value = new URLSearchParams(search).get(URL_PARAM);
  return value === null ? null : value.replace(/ /g, "+");
}

/**
 * The search string with `?a=` set to `param` (or removed for null), every other parameter kept in
 * its order. The value is appended raw: lz-string's alphabet is safe in a query.
 */
export function searchWithTreeParam(search: string, param: string | null): string {
  const params = new URLSearchParams(search);
  params.delete(URL_PARAM);
  const rest = params.toString();
  const parts = [rest, param === null ? "" : `${URL_PARAM}=${param}`].filter((part) => part !== "");
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/** What the URL should carry for this tree: nothing for an empty tree or one too large for a link. */
export function urlParamFor(tree: GroupNode): { param: string | null; tooLong: boolean } {
  if (isEmptyTree(tree)) return { param: null, tooLong: false };
  const param = encodeTreeForUrl(tree);
  if (param.length > MAX_URL_PARAM_LENGTH) return { param: null, tooLong: true };
  return { param, tooLong: false };
}

// ---------------------------------------------------------------------------------------------
// localStorage
// ---------------------------------------------------------------------------------------------

/**
 * What is stored: the tree, and the `?a=` the page's URL carried when it was written. A reload
 * whose URL still carries that same value is this tab's own URL, possibly up to one debounce
 * behind; storage then holds the newer tree. Any other `?a=` is a link from elsewhere, and wins.
 */
interface StoredWorkingTree {
  version: 1;
  tree: GroupNode;
  urlParam: string | null;
  savedAt: string;
}

/** Writes the working tree. Throws what the Storage throws (quota, privacy mode). */
export function writeWorkingTree(storage: Storage, tree: GroupNode, urlParam: string | null): void {
  const record: StoredWorkingTree = { version: 1, tree, urlParam, savedAt: new Date().toISOString() };
  storage.setItem(WORKING_TREE_KEY, JSON.stringify(record));
}

type StoredRead =
  | { kind: "none" }
  | { kind: "ok"; tree: GroupNode; urlParam: string | null }
  | { kind: "broken"; error: string };

function readWorkingTree(storage: Storage): StoredRead {
  let raw: string | null;
  try {
    raw = storage.getItem(WORKING_TREE_KEY);
  } catch (error) {
    return { kind: "broken", error: `the browser's storage could not be read (${messageOf(error)})` };
  }
  if (raw === null) return { kind: "none" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: "broken", error: "it is not valid JSON" };
  }
  if (value === null || typeof value !== "object" || !("tree" in value))
    return { kind: "broken", error: "it is not a saved audience" };
  const record = value as { tree: unknown; urlParam?: unknown };
  const checked = checkFilterTree(record.tree);
  if ("errors" in checked) return { kind: "broken", error: summarise(checked.errors) };
  const urlParam = typeof record.urlParam === "string" ? record.urlParam : null;
  return { kind: "ok", tree: checked.tree, urlParam };
}

export interface InitialTree {
  tree: GroupNode;
  source: "url" | "storage" | "empty";
  /** Something could not be read and was skipped: say so. */
  warning?: string;
}

/**
 * The tree to start the builder with: the URL's (a shared link reproduces the audience), else the
 * one last stored on this device, else an empty tree. Never throws; a broken URL or stored value
 * is skipped with a warning. The broken stored value is left in place until the next change.
 */
export function loadInitialTree(location: { search: string }, storage: Storage | null): InitialTree {
  const stored: StoredRead = storage ? readWorkingTree(storage) : { kind: "none" };
  const param = treeParamOf(location.search);
  let urlWarning: string | undefined;
  if (param !== null) {
    const decoded = decodeTreeFromUrl(param);
    if ("tree" in decoded) {
      // This tab's own URL, not yet caught up with the last edits: the stored tree is newer.
      if (stored.kind === "ok" && stored.urlParam === param) return { tree: stored.tree, source: "storage" };
      return { tree: decoded.tree, source: "url" };
    }
    urlWarning = decoded.error;
  }
  if (stored.kind === "ok") {
    return urlWarning
      ? {
          tree: stored.tree,
          source: "storage",
          warning: `${withStop(urlWarning)} Your last audience on this device was opened instead.`,
        }
      : { tree: stored.tree, source: "storage" };
  }
  const storedWarning =
    stored.kind === "broken"
      ? `Your last audience on this device could not be restored: ${stored.error}.`
      : "";
  const warning = [
    urlWarning ? `${withStop(urlWarning)} An empty audience was opened instead.` : "",
    storedWarning,
  ]
    .filter((part) => part !== "")
    .join(" ");
  return warning ? { tree: emptyTree(), source: "empty", warning } : { tree: emptyTree(), source: "empty" };
}

// ---------------------------------------------------------------------------------------------
// Adding a rule from another screen
// ---------------------------------------------------------------------------------------------

export type AppendResult =
  | {
      ok: true;
      tree: GroupNode;
      /** Where the Builder opens with the new tree: `/?a=...`, or `/` when it is too long for a link. */
      href: string;
    }
  | { ok: false; error: string };

/**
 * Adds `node` to the working audience (ANDed, see `andAtTop`) from a screen other than the Builder:
 * reads the tree the Builder would open (`location`'s `?a=`, else storage), writes the new one to
 * storage with the `?a=` it will live at, and returns the Builder's address carrying it, so that the
 * Builder opens the new tree whether or not storage works (it reports a storage problem itself).
 * Fails only when neither can carry the tree. Never throws.
 */
export function appendToWorkingAudience(
  storage: Storage | null,
  node: FilterNode,
  location: { search: string } = { search: "" },
): AppendResult {
  const added = andAtTop(loadInitialTree(location, storage).tree, node);
  if (!added.ok) return { ok: false, error: `The audience could not be updated: ${added.error}` };
  const placed = placeWorkingTree(storage, added.tree);
  if (!placed.ok) return { ok: false, error: `The audience could not be updated: ${placed.error}` };
  return { ok: true, tree: added.tree, href: placed.href };
}

/**
 * Makes `tree` the working audience from outside the Builder (a short link, another screen): writes
 * it to storage with the `?a=` it will live at, and returns the Builder's address carrying it, so
 * that the Builder opens it whether or not storage works. Fails only when neither can carry it.
 */
export function placeWorkingTree(
  storage: Storage | null,
  tree: GroupNode,
): { ok: true; href: string } | { ok: false; error: string } {
  const { param } = urlParamFor(tree);
  let storageProblem: string | null = storage ? null : "this browser does not allow saving here";
  if (storage) {
    try {
      writeWorkingTree(storage, tree, param);
    } catch (error) {
      storageProblem = messageOf(error);
    }
  }
  if (storageProblem !== null && param === null)
    return {
      ok: false,
      error: `it is too large for a link, and could not be kept on this device (${storageProblem}).`,
    };
  return { ok: true, href: `/${searchWithTreeParam("", param)}` };
}

// ---------------------------------------------------------------------------------------------
// The hook
// ---------------------------------------------------------------------------------------------

export interface WorkingTreePersistence {
  /** Set when the last write to localStorage failed (storage full or refused). */
  storageError: string | null;
  /** The tree is too large for a link; it is kept on this device only (export it to share). */
  linkTooLong: boolean;
}

/**
 * Keeps `tree` safe: localStorage is written at once on every change, and the URL's `?a=` is
 * updated with `history.replaceState` once the changes pause (`delayMs`), keeping the path, the
 * other parameters and `history.state`. No history entry is ever pushed. A pending URL update is
 * flushed when the page is hidden or left (`pagehide`), and dropped when the component unmounts
 * (the URL then belongs to another screen; storage already holds the tree).
 */
export function useWorkingTreePersistence(
  tree: GroupNode,
  options: { storage?: Storage | null; delayMs?: number } = {},
): WorkingTreePersistence {
  const storage = options.storage === undefined ? browserStorage() : options.storage;
  const delayMs = options.delayMs ?? URL_DEBOUNCE_MS;
  const [storageError, setStorageError] = useState<string | null>(null);
  const [linkTooLong, setLinkTooLong] = useState(false);

  useEffect(() => {
    const save = (urlParam: string | null) => {
      if (!storage) {
        setStorageError(
          "This browser does not allow saving here: keep the page open, or export the audience.",
        );
        return;
      }
      try {
        writeWorkingTree(storage, tree, urlParam);
        setStorageError(null);
      } catch (error) {
        setStorageError(
          `Could not save on this device (${messageOf(error)}). Export the audience to keep it.`,
        );
      }
    };
    save(treeParamOf(window.location.search));

    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      window.removeEventListener("pagehide", flush);
      const { param, tooLong } = urlParamFor(tree);
      setLinkTooLong(tooLong);
      const { pathname, search, hash } = window.location;
      if (treeParamOf(search) === param) return;
      window.history.replaceState(
        window.history.state,
        "",
        `${pathname}${searchWithTreeParam(search, param)}${hash}`,
      );
      // Record the URL this tree now lives at (see StoredWorkingTree).
      save(param);
    };
    timer = setTimeout(flush, delayMs);
    window.addEventListener("pagehide", flush);
    return () => {
      if (timer !== null) clearTimeout(timer);
      window.removeEventListener("pagehide", flush);
    };
  }, [tree, storage, delayMs]);

  return { storageError, linkTooLong };
}
