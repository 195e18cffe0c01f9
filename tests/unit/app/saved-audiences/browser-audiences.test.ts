import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import {
  BROWSER_AUDIENCES_BACKUP_KEY,
  BROWSER_AUDIENCES_KEY,
  BROWSER_AUDIENCES_MOVED_KEY,
  leftBehind,
  leftBehindText,
  type MoveDeps,
  moveBrowserAudiences,
  moveReportText,
  needsMove,
  readBrowserAudiences,
} from "../../../../src/app/lib/browser-audiences";
import { memoryStorage } from "../../../../src/app/lib/store";
import type { GroupNode } from "../../../../src/contract/filter";

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

/** Entries as the earlier versions wrote them. */
const entry = (id: string, name: string, tree: unknown = GERMANY) => ({
  id,
  name,
  tree,
  lastCount: 12,
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-20T10:00:00.000Z",
});
const UNREADABLE = { id: "bad", name: "Broken", tree: { type: "nonsense" }, lastCount: null };

/** A server that dedupes by clientId, as the proxy does; `failAt` makes that call fail with `error`. */
function fakeServer(options: { failAt?: number; error?: unknown } = {}) {
  const created = new Map<string, { name: string; shared: boolean }>();
  let calls = 0;
  const deps: MoveDeps = {
    async create(body) {
      calls++;
      if (options.failAt === calls) throw options.error;
      if (!created.has(body.clientId)) created.set(body.clientId, { name: body.name, shared: body.shared });
      return {};
    },
    retryLater: (error) => !(error instanceof ApiError && error.kind === "validation"),
    reason: (error) => (error instanceof Error ? error.message : String(error)),
    person: "ana",
    now: () => new Date("2026-11-25T12:00:00.000Z"),
  };
  return { deps, created, calls: () => calls };
}

function storageWith(value: unknown): Storage {
  const storage = memoryStorage();
  storage.setItem(BROWSER_AUDIENCES_KEY, typeof value === "string" ? value : JSON.stringify(value));
  return storage;
}

describe("moving the browser's saved audiences to the server", () => {
  it("creates each readable entry once, private, with its local id as clientId; keeps a backup; says how many", async () => {
    const stored = [entry("a1", "One"), entry("a2", "Two"), UNREADABLE];
    const storage = storageWith(stored);
    const raw = storage.getItem(BROWSER_AUDIENCES_KEY);
    const server = fakeServer();
    const report = await moveBrowserAudiences(storage, server.deps);
    expect(report).toEqual({ moved: 2, refused: [], unreadable: 1, interrupted: null });
    expect([...server.created]).toEqual([
      ["a1", { name: "One", shared: false }],
      ["a2", { name: "Two", shared: false }],
    ]);
    // The old value is kept whole under the backup key; the list keeps the unreadable entry, untouched.
    expect(storage.getItem(BROWSER_AUDIENCES_BACKUP_KEY)).toBe(raw);
    expect(JSON.parse(storage.getItem(BROWSER_AUDIENCES_KEY)!)).toEqual([UNREADABLE]);
    expect(JSON.parse(storage.getItem(BROWSER_AUDIENCES_MOVED_KEY)!)).toMatchObject({ moved: 2, to: "ana" });
    // What stayed behind is the panel's to show (leftBehind), not the one-off report's.
    expect(moveReportText(report!)).toBe(
      "Moved 2 audiences saved in this browser to your team's list (private).",
    );
  });

  it("runs once: a second load sends nothing", async () => {
    const storage = storageWith([entry("a1", "One")]);
    const server = fakeServer();
    await moveBrowserAudiences(storage, server.deps);
    expect(needsMove(storage)).toBe(false);
    expect(await moveBrowserAudiences(storage, server.deps)).toBeNull();
    expect(server.calls()).toBe(1);
  });

  it("a failure with no definite answer stops the move; the retry creates nothing twice", async () => {
    const storage = storageWith([entry("a1", "One"), entry("a2", "Two"), entry("a3", "Three")]);
    const server = fakeServer({
      failAt: 2,
      error: new ApiError({ kind: "network", status: 0, message: "The server could not be reached." }),
    });
    const first = await moveBrowserAudiences(storage, server.deps);
    expect(first?.interrupted).toBe("The server could not be reached.");
    // Nothing marked: the list is as it was, and the next load tries again.
    expect(needsMove(storage)).toBe(true);
    expect(storage.getItem(BROWSER_AUDIENCES_BACKUP_KEY)).toBeNull();
    expect(moveReportText(first!)).toMatch(
      /continues the next time the app opens, and nothing is created twice/,
    );
    const second = await moveBrowserAudiences(storage, server.deps);
    expect(second).toMatchObject({ moved: 3, interrupted: null });
    expect([...server.created.keys()]).toEqual(["a1", "a2", "a3"]);
  });

  it("an entry the server refuses (422) stays in the browser and is reported; the rest move", async () => {
    const storage = storageWith([entry("a1", "One"), entry("a2", "Two")]);
    const server = fakeServer({
      failAt: 1,
      error: new ApiError({ kind: "validation", status: 422, message: "Give the audience a name." }),
    });
    const report = await moveBrowserAudiences(storage, server.deps);
    expect(report).toMatchObject({
      moved: 1,
      refused: [{ name: "One", reason: "Give the audience a name." }],
    });
    const left = JSON.parse(storage.getItem(BROWSER_AUDIENCES_KEY)!);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ id: "a1", name: "One", tree: GERMANY });
    expect(needsMove(storage)).toBe(false);
  });

  it("what the server refused stays in view after the move: every later load lists it with the server's reason", async () => {
    const storage = storageWith([entry("a1", "One"), entry("a2", "Two"), entry("a3", "Three"), UNREADABLE]);
    const refusal = new ApiError({ kind: "validation", status: 422, message: "The filter is too deep." });
    let calls = 0;
    const deps: MoveDeps = {
      async create() {
        calls++;
        if (calls !== 2) throw refusal;
        return {};
      },
      retryLater: () => false,
      reason: (error) => (error as Error).message,
      person: "ana",
    };
    // Before the move has run, the move reports itself: nothing is "left behind" yet.
    expect(leftBehind(storage)).toBeNull();
    const report = await moveBrowserAudiences(storage, deps);
    expect(report?.refused.map((r) => r.name)).toEqual(["One", "Three"]);
    // The move's own report no longer names them: the panel's list does, on this load and later ones.
    expect(moveReportText(report!)).toBe(
      "Moved 1 audience saved in this browser to your team's list (private).",
    );
    const left = leftBehind(storage)!;
    expect(left.refused.map(({ entry: e, reason }) => [e.id, e.name, reason])).toEqual([
      ["a1", "One", "The filter is too deep."],
      ["a3", "Three", "The filter is too deep."],
    ]);
    expect(left.refused[0]!.entry.tree).toEqual(GERMANY);
    expect(left.unreadable).toBe(1);
    expect(JSON.parse(left.raw)).toHaveLength(3);
    expect(leftBehindText(left)).toBe(
      "2 audiences from this browser could not be moved: The filter is too deep. One more saved in this browser cannot be read by this version. They are kept in this browser only: download them as JSON, or open one in the Builder and save it.",
    );
    // A later load: the same, read again from the browser.
    expect(leftBehind(storage)).toEqual(left);
  });

  it("says what stayed behind in the right words: one entry, several reasons, an earlier marker without reasons", () => {
    const one = { entry: { id: "a", name: "A", tree: GERMANY, lastCount: null }, reason: "Too deep." };
    expect(leftBehindText({ refused: [one], unreadable: 0, raw: "[]" })).toBe(
      "1 audience from this browser could not be moved: Too deep. It is kept in this browser only: download it as JSON, or open it in the Builder and save it.",
    );
    expect(
      leftBehindText({ refused: [one, { ...one, reason: "Bad column." }], unreadable: 0, raw: "[]" }),
    ).toMatch(/^2 audiences from this browser could not be moved, each for the reason below\. /);
    expect(leftBehindText({ refused: [], unreadable: 2, raw: "[]" })).toBe(
      "2 audiences saved in this browser cannot be read by this version. They are kept in this browser only: download them as JSON.",
    );
    // A marker written before reasons were kept: the entries are still shown, without a reason.
    const storage = storageWith([entry("a1", "One")]);
    storage.setItem(BROWSER_AUDIENCES_MOVED_KEY, JSON.stringify({ at: "x", moved: 0, to: null }));
    expect(leftBehind(storage)?.refused).toEqual([
      { entry: { id: "a1", name: "One", tree: GERMANY, lastCount: 12 }, reason: null },
    ]);
    // Nothing left: nothing to show.
    storage.setItem(BROWSER_AUDIENCES_KEY, "[]");
    expect(leftBehind(storage)).toBeNull();
  });

  it("a value that is not a list is left untouched, backed up and reported once", async () => {
    const storage = storageWith("{not json");
    const server = fakeServer();
    const report = await moveBrowserAudiences(storage, server.deps);
    expect(report).toEqual({ moved: 0, refused: [], unreadable: 1, interrupted: null });
    expect(storage.getItem(BROWSER_AUDIENCES_KEY)).toBe("{not json");
    expect(storage.getItem(BROWSER_AUDIENCES_BACKUP_KEY)).toBe("{not json");
    expect(server.calls()).toBe(0);
  });

  it("nothing stored: nothing to do", async () => {
    const storage = memoryStorage();
    expect(needsMove(storage)).toBe(false);
    expect(await moveBrowserAudiences(storage, fakeServer().deps)).toBeNull();
  });

  it("reads names trimmed, counts that are whole numbers, and the first of two entries with one id", () => {
    const read = readBrowserAudiences(
      storageWith([{ ...entry("a1", "  One  "), lastCount: 1.5 }, entry("a1", "Again"), entry("a2", "   ")]),
    );
    expect(read.items).toEqual([{ id: "a1", name: "One", tree: GERMANY, lastCount: null }]);
    expect(read.unreadable).toHaveLength(2);
  });
});
