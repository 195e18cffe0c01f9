/**
 * The open audience follows the person, not the tab: the proxy remembers which audience each person
 * has open and the version their edits start from (`/api/audiences/open`), so that a new window,
 * or the same one after signing in again, reopens it, and a purchase from it still carries its name
 * into the ledger. The tab keeps its own record too (open-audience.ts): two tabs may have two
 * audiences open; the one touched last is the one remembered.
 *
 * Two halves: `rememberOnServer` sends this tab's changes (debounced, as edits change the working
 * key at every keystroke; the last one goes out with the page), and `reopenDecision` says what a
 * tab with nothing open does with what the server remembers.
 */
import { useEffect, useRef, useState } from "react";
import { canonicalKey } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import type { OpenAudienceAnswer } from "../../contract/team";
import { forgetOpenAudience, getOpenAudience, rememberOpenAudience } from "../api/audiences";
import { isEmptyTree } from "./filter/tree";
import { type OpenAudience, openAudienceOf, openAudienceStore, withWorkingTree } from "./open-audience";
import type { StoredValue } from "./store";

/** Edits change the working key at every keystroke: the server hears of it after this pause. */
export const REMEMBER_DEBOUNCE_MS = 1000;

/** What the server is told: the audience, its version, the working key; null to forget. */
type Remembered = { id: string; version: number; workingKey: string } | null;

const rememberedOf = (open: OpenAudience | null): Remembered =>
  open ? { id: open.id, version: open.version, workingKey: open.workingKey } : null;

/** `undefined`: not known to the server (a send failed), so the next change is sent whatever it is. */
const same = (a: Remembered | undefined, b: Remembered | undefined) =>
  a !== undefined &&
  b !== undefined &&
  (a === b ||
    (a !== null && b !== null && a.id === b.id && a.version === b.version && a.workingKey === b.workingKey));

export interface RememberDeps {
  put(body: NonNullable<Remembered>, options: { keepalive: boolean }): Promise<unknown>;
  remove(options: { keepalive: boolean }): Promise<unknown>;
}

const serverDeps: RememberDeps = {
  put: (body, options) => rememberOpenAudience(body, options),
  remove: (options) => forgetOpenAudience(options),
};

/** Changes made by `closeInThisTab`: this tab forgets, the server keeps. */
let localOnly = false;

/**
 * Closes the open audience in this tab only (signing out: the next person in this tab must not
 * save into it, but the person who signs out gets it back when they sign in again).
 */
export function closeInThisTab(store: StoredValue<OpenAudience> = openAudienceStore()): void {
  localOnly = true;
  try {
    store.set(null);
  } finally {
    localOnly = false;
  }
}

/**
 * Sends this tab's open audience to the server whenever it changes (not what it was at the start:
 * a new tab with nothing open must not erase what the server remembers before it is read). A
 * failure is let go (it is a convenience, not a record): the next change sends the newest state.
 * Returns the function that stops it.
 */
export function rememberOnServer(
  store: StoredValue<OpenAudience> = openAudienceStore(),
  deps: RememberDeps = serverDeps,
  debounceMs: number = REMEMBER_DEBOUNCE_MS,
): () => void {
  let sent: Remembered | undefined = rememberedOf(store.get());
  let timer: ReturnType<typeof setTimeout> | undefined;

  const send = (keepalive: boolean) => {
    clearTimeout(timer);
    timer = undefined;
    const now = rememberedOf(store.get());
    if (same(now, sent)) return;
    sent = now;
    const request = now ? deps.put(now, { keepalive }) : deps.remove({ keepalive });
    request.catch(() => {
      // Sent again with the next change.
      if (same(sent, now)) sent = undefined;
    });
  };

  const unsubscribe = store.subscribe(() => {
    if (localOnly) {
      sent = rememberedOf(store.get());
      clearTimeout(timer);
      timer = undefined;
      return;
    }
    const now = rememberedOf(store.get());
    if (same(now, sent)) return;
    // Opening or closing an audience goes at once; edits wait for a pause.
    const onlyEdited = now !== null && sent != null && now.id === sent.id && now.version === sent.version;
    clearTimeout(timer);
    timer = setTimeout(() => send(false), onlyEdited ? debounceMs : 0);
  });
  const onPageHide = () => {
    if (timer !== undefined) send(true);
  };
  if (typeof window !== "undefined") window.addEventListener("pagehide", onPageHide);

  return () => {
    unsubscribe();
    clearTimeout(timer);
    if (typeof window !== "undefined") window.removeEventListener("pagehide", onPageHide);
  };
}

export type ReopenDecision =
  /** The tree in this tab is that audience's (its saved version, or the edits last made with it). */
  | { kind: "reopen"; open: OpenAudience }
  /** Nothing is being built here: the audience is opened with the version's tree. */
  | { kind: "load"; open: OpenAudience; tree: GroupNode }
  /** Another audience is being built here: it is not replaced. */
  | { kind: "none" };

/** What a tab with no audience open does with what the server remembers for the person. */
export function reopenDecision(remembered: OpenAudienceAnswer["open"], tree: GroupNode): ReopenDecision {
  if (!remembered) return { kind: "none" };
  const { audience, opened, workingKey } = remembered;
  // The audience as it was at the version the person's edits start from (a later Save meets any
  // newer one as a conflict): its saved key is that version's filter.
  const atOpened = openAudienceOf({
    ...audience,
    version: opened.version,
    filter: opened.filter,
    updatedBy: opened.savedBy,
    updatedAt: opened.savedAt,
  });
  const treeKey = canonicalKey(tree);
  if (treeKey === atOpened.savedKey || treeKey === workingKey)
    return { kind: "reopen", open: withWorkingTree(atOpened, tree) };
  if (isEmptyTree(tree)) return { kind: "load", open: atOpened, tree: opened.filter };
  return { kind: "none" };
}

/**
 * Once per page load, in a tab with no audience open: asks the server what the person had open and
 * reopens it (see `reopenDecision`). `getTree` reads the tree as it is when the answer comes;
 * `load` (the Builder's) puts a remembered audience's tree in place of an empty one; without it, an
 * empty tree stays as it is. True while the question is out (the Builder takes no sample of a tree
 * about to be replaced: a sample spends the day's budget).
 */
export function useReopenRemembered(getTree: () => GroupNode, load?: (tree: GroupNode) => void): boolean {
  const latest = useRef({ getTree, load });
  latest.current = { getTree, load };
  const [asking, setAsking] = useState(() => openAudienceStore().get() === null);
  useEffect(() => {
    const store = openAudienceStore();
    if (store.get() !== null) return setAsking(false);
    const controller = new AbortController();
    getOpenAudience({ signal: controller.signal })
      .then((remembered) => {
        // Something was opened meanwhile (a click, a link): that one stands.
        if (controller.signal.aborted || store.get() !== null) return;
        const decision = reopenDecision(remembered, latest.current.getTree());
        if (decision.kind === "reopen") store.set(decision.open);
        else if (decision.kind === "load" && latest.current.load) {
          store.set(decision.open);
          latest.current.load(decision.tree);
        }
      })
      // Not remembered, or not reachable: the tab starts with nothing open, as it always could.
      .catch(() => {})
      .finally(() => {
        if (!controller.signal.aborted) setAsking(false);
      });
    return () => controller.abort();
  }, []);
  return asking;
}
