/**
 * Audiences saved in this browser before they lived on the server (`ab.savedAudiences.v1`, a JSON
 * array in localStorage), moved to the server once, nothing lost:
 * - each readable entry is POSTed with `clientId` = its local id: the server creates it once per
 *   person, so a crash half-way and the retry on the next load create nothing twice;
 * - only when every readable entry has a definite answer is the browser's list marked as moved:
 *   the old value is copied to `ab.savedAudiences.v1.backup` (never deleted silently), the moved
 *   marker written, and the list replaced by the entries that did not move (unreadable ones
 *   untouched, and any the server refused), so nothing is moved twice and nothing is dropped;
 * - a failure with no definite answer (no connection, a 5xx) stops the move: it is tried again on
 *   the next load.
 * Plain functions, without React; `create` is the api module's (injected).
 */
import { z } from "zod";
import type { GroupNode } from "../../contract/filter";
import { checkFilterTree } from "./filter/check";

export const BROWSER_AUDIENCES_KEY = "ab.savedAudiences.v1";
export const BROWSER_AUDIENCES_BACKUP_KEY = `${BROWSER_AUDIENCES_KEY}.backup`;
export const BROWSER_AUDIENCES_MOVED_KEY = `${BROWSER_AUDIENCES_KEY}.moved`;

/** One audience as the browser kept it. */
export interface BrowserAudience {
  id: string;
  name: string;
  tree: GroupNode;
  lastCount: number | null;
}

const entrySchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string(),
  tree: z.unknown(),
  lastCount: z.number().finite().nullable().optional(),
});

export interface BrowserAudiencesRead {
  /** The raw stored value (null when there is none). */
  raw: string | null;
  items: BrowserAudience[];
  /** Entries this version cannot read, kept as they were. */
  unreadable: unknown[];
  /** The whole value is not a JSON array: nothing can be read from it; it is left untouched. */
  wholeValueUnreadable: boolean;
}

/** Reads the browser's list. Never throws. */
export function readBrowserAudiences(storage: Storage): BrowserAudiencesRead {
  let raw: string | null;
  try {
    raw = storage.getItem(BROWSER_AUDIENCES_KEY);
  } catch {
    raw = null;
  }
  const empty = { raw, items: [], unreadable: [], wholeValueUnreadable: false };
  if (raw === null) return empty;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ...empty, wholeValueUnreadable: true };
  }
  if (!Array.isArray(value)) return { ...empty, wholeValueUnreadable: true };
  const items: BrowserAudience[] = [];
  const unreadable: unknown[] = [];
  for (const entry of value) {
    const parsed = entrySchema.safeParse(entry);
    const checked = parsed.success ? checkFilterTree(parsed.data.tree) : null;
    const name = parsed.success ? parsed.data.name.trim().slice(0, 120).trim() : "";
    if (
      parsed.success &&
      checked &&
      "tree" in checked &&
      name !== "" &&
      !items.some((item) => item.id === parsed.data.id)
    ) {
      const count = parsed.data.lastCount ?? null;
      items.push({
        id: parsed.data.id,
        name,
        tree: checked.tree,
        lastCount: count !== null && Number.isInteger(count) && count >= 0 ? count : null,
      });
    } else unreadable.push(entry);
  }
  return { raw, items, unreadable, wholeValueUnreadable: false };
}

export interface MoveReport {
  /** Created on the server (or found there from an earlier, interrupted move). */
  moved: number;
  /** Entries the server refused, with the reason; kept in the browser. */
  refused: { name: string; reason: string }[];
  /** Entries this version cannot read; kept in the browser, untouched. */
  unreadable: number;
  /** The move stopped without a definite answer for every entry; it is tried again on the next load. */
  interrupted: string | null;
}

export interface MoveDeps {
  create(body: {
    name: string;
    filter: GroupNode;
    shared: false;
    lastCount: number | null;
    clientId: string;
  }): Promise<unknown>;
  /**
   * Whether a failure stops the move until the next load: anything but a definite refusal of the
   * entry itself (no answer, a 5xx, the session ended, a proxy without the route).
   */
  retryLater(error: unknown): boolean;
  /** A sentence for a failure. */
  reason(error: unknown): string;
  /** Who the audiences went to (recorded in the marker); null in local mode. */
  person: string | null;
  now?: () => Date;
}

/** Whether there is anything to move (not moved yet, and something stored). */
export function needsMove(storage: Storage): boolean {
  try {
    return (
      storage.getItem(BROWSER_AUDIENCES_MOVED_KEY) === null && storage.getItem(BROWSER_AUDIENCES_KEY) !== null
    );
  } catch {
    return false;
  }
}

/**
 * Moves the browser's audiences to the server (see the module's comment). Returns null when there
 * was nothing to do. Never throws.
 */
export async function moveBrowserAudiences(storage: Storage, deps: MoveDeps): Promise<MoveReport | null> {
  if (!needsMove(storage)) return null;
  const read = readBrowserAudiences(storage);
  if (read.wholeValueUnreadable)
    // Nothing to send, and nothing to rewrite: the value stays as it is; said once.
    return finish(storage, read, deps, { moved: 0, refused: [], unreadable: 1, interrupted: null }, []);

  const refused: { entry: BrowserAudience; reason: string }[] = [];
  let moved = 0;
  for (const entry of read.items) {
    try {
      await deps.create({
        name: entry.name,
        filter: entry.tree,
        shared: false,
        lastCount: entry.lastCount,
        clientId: entry.id,
      });
      moved++;
    } catch (error) {
      if (deps.retryLater(error))
        return {
          moved,
          refused: refused.map(({ entry: e, reason }) => ({ name: e.name, reason })),
          unreadable: read.unreadable.length,
          interrupted: deps.reason(error),
        };
      refused.push({ entry, reason: deps.reason(error) });
    }
  }
  return finish(
    storage,
    read,
    deps,
    {
      moved,
      refused: refused.map(({ entry, reason }) => ({ name: entry.name, reason })),
      unreadable: read.unreadable.length,
      interrupted: null,
    },
    refused,
  );
}

function finish(
  storage: Storage,
  read: BrowserAudiencesRead,
  deps: MoveDeps,
  report: MoveReport,
  refused: { entry: BrowserAudience; reason: string }[],
): MoveReport {
  const kept = refused.map(({ entry }) => entry);
  const now = (deps.now ?? (() => new Date()))();
  try {
    if (read.raw !== null) storage.setItem(BROWSER_AUDIENCES_BACKUP_KEY, read.raw);
    if (!read.wholeValueUnreadable) {
      // What did not move stays where it was, as it was: refused entries in the old format,
      // unreadable ones untouched.
      const remaining = [
        ...kept.map((entry) => ({
          id: entry.id,
          name: entry.name,
          tree: entry.tree,
          lastCount: entry.lastCount,
          createdAt: now.toISOString(),
          updatedAt: now.toISOString(),
        })),
        ...read.unreadable,
      ];
      storage.setItem(BROWSER_AUDIENCES_KEY, JSON.stringify(remaining));
    }
    storage.setItem(
      BROWSER_AUDIENCES_MOVED_KEY,
      JSON.stringify({
        at: now.toISOString(),
        moved: report.moved,
        to: deps.person,
        // Why each entry left behind was refused, for the panel that keeps showing them.
        refused: refused.map(({ entry, reason }) => ({ id: entry.id, reason })),
      }),
    );
  } catch (error) {
    // The server has them (created once, by clientId); the next load tries to mark them again.
    const reason = error instanceof Error ? error.message : String(error);
    return { ...report, interrupted: `this browser's storage could not be written (${reason})` };
  }
  return report;
}

/**
 * What the person reads after a move; null when there is nothing to say. Once the move is over,
 * what stayed behind (refused or unreadable) is not in it: the panel lists that (see `leftBehind`),
 * on this load and every later one. An interrupted move still says what it could not read.
 */
export function moveReportText(report: MoveReport): string | null {
  const parts: string[] = [];
  if (report.moved > 0)
    parts.push(
      report.moved === 1
        ? "Moved 1 audience saved in this browser to your team's list (private)."
        : `Moved ${report.moved} audiences saved in this browser to your team's list (private).`,
    );
  if (report.unreadable > 0 && report.interrupted)
    parts.push(
      report.unreadable === 1
        ? "One audience saved in this browser could not be read; it is kept in this browser, unchanged."
        : `${report.unreadable} audiences saved in this browser could not be read; they are kept in this browser, unchanged.`,
    );
  if (report.interrupted)
    parts.push(
      `The move of the audiences saved in this browser stopped (${report.interrupted}); it continues the next time the app opens, and nothing is created twice.`,
    );
  return parts.length > 0 ? parts.join(" ") : null;
}

// ---------------------------------------------------------------------------------------------
// What stayed behind
// ---------------------------------------------------------------------------------------------

const markerSchema = z.object({
  refused: z.array(z.object({ id: z.string(), reason: z.string() })).optional(),
});

/** What the move left in this browser, once it is over: still there, and still to be shown. */
export interface LeftBehind {
  /** Readable entries the server refused, with its reason (null when an earlier version did not keep it). */
  refused: { entry: BrowserAudience; reason: string | null }[];
  /** Entries (or a whole value) this version cannot read. */
  unreadable: number;
  /** The stored value as it is: all of it can be downloaded. */
  raw: string;
}

/**
 * The audiences that are still in this browser after the move was marked (refused by the server, or
 * unreadable): nothing in the team's list shows them, so the panel does, with ways to get them
 * out. Null when the move has not run yet (it reports itself) or nothing stayed. Never throws.
 */
export function leftBehind(storage: Storage): LeftBehind | null {
  let marker: string | null;
  try {
    marker = storage.getItem(BROWSER_AUDIENCES_MOVED_KEY);
  } catch {
    return null;
  }
  if (marker === null) return null;
  const read = readBrowserAudiences(storage);
  if (read.raw === null) return null;
  if (read.wholeValueUnreadable) return { refused: [], unreadable: 1, raw: read.raw };
  if (read.items.length === 0 && read.unreadable.length === 0) return null;
  let reasons = new Map<string, string>();
  try {
    const parsed = markerSchema.safeParse(JSON.parse(marker));
    if (parsed.success) reasons = new Map((parsed.data.refused ?? []).map((r) => [r.id, r.reason]));
  } catch {
    // A marker this version cannot read: the entries are shown without their reason.
  }
  return {
    refused: read.items.map((entry) => ({ entry, reason: reasons.get(entry.id) ?? null })),
    unreadable: read.unreadable.length,
    raw: read.raw,
  };
}

/**
 * The first sentence about what stayed behind: "2 audiences from this browser could not be moved:
 * <reason>", the reason said once when it is the same for all (else each entry says its own).
 */
export function leftBehindText(left: LeftBehind): string {
  const parts: string[] = [];
  const n = left.refused.length;
  if (n > 0) {
    const reasons = new Set(left.refused.map((r) => r.reason ?? "the server refused it"));
    const what = n === 1 ? "1 audience from this browser" : `${n} audiences from this browser`;
    parts.push(
      reasons.size === 1
        ? `${what} could not be moved: ${[...reasons][0]}`
        : `${what} could not be moved, each for the reason below.`,
    );
  }
  if (left.unreadable > 0)
    parts.push(
      left.unreadable === 1
        ? `${n > 0 ? "One more" : "One audience"} saved in this browser cannot be read by this version.`
        : `${left.unreadable} ${n > 0 ? "more" : "audiences"} saved in this browser cannot be read by this version.`,
    );
  const one = n + left.unreadable === 1;
  parts.push(
    `${one ? "It is" : "They are"} kept in this browser only: download ${one ? "it" : "them"} as JSON${
      n > 0 ? `, or open ${one ? "it" : "one"} in the Builder and save it` : ""
    }.`,
  );
  return parts.map((part) => (/[.!?]$/.test(part) ? part : `${part}.`)).join(" ");
}
