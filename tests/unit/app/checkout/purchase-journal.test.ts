import { beforeEach, describe, expect, it } from "vitest";
import {
  beginPurchase,
  finishPurchase,
  hasBeenSent,
  JOURNAL_KEY,
  markAnswered,
  markSending,
  markUnknown,
  pendingPurchase,
  readJournal,
  resetJournalMemory,
} from "../../../../src/app/lib/spend-journal";
import { MemoryStorage } from "./memory-storage";

let storage: MemoryStorage;
let counter = 0;
const newKey = () => `key-${String(++counter).padStart(8, "0")}`;

beforeEach(() => {
  storage = new MemoryStorage();
  counter = 0;
  resetJournalMemory();
});

const body = (ids: string[]) => ({ personIds: ids, reveal: "email" });

describe("the purchase journal", () => {
  it("persists a purchase with one key per call BEFORE it is sent, and reads it back after a reload", () => {
    const begun = beginPurchase(
      storage,
      { kind: "enrich", bodies: [body(["a"]), body(["b"])], summary: "2 people" },
      { newKey, now: new Date("2026-11-21T10:00:00Z") },
    );
    expect(begun.outcome).toBe("new");
    if (begun.outcome !== "new") return;
    expect(begun.persisted).toBe(true);
    expect(begun.purchase.calls.map((c) => c.key)).toEqual(["key-00000002", "key-00000003"]);
    const raw = JSON.parse(storage.getItem(JOURNAL_KEY) ?? "null");
    expect(raw.purchases).toHaveLength(1);
    // A "reload": nothing in memory, read from storage only.
    resetJournalMemory();
    const again = pendingPurchase(storage, "enrich");
    expect(again).toEqual(begun.purchase);
    expect(again?.calls[1]?.body).toEqual(body(["b"]));
  });

  it("a second confirm of the same purchase reuses its keys (a double click cannot buy twice)", () => {
    const first = beginPurchase(
      storage,
      { kind: "export", bodies: [{ maxRows: 10 }], summary: "x" },
      { newKey },
    );
    const second = beginPurchase(
      storage,
      { kind: "export", bodies: [{ maxRows: 10 }], summary: "x" },
      { newKey },
    );
    expect(second.outcome).toBe("reused");
    expect(second.purchase.calls[0]?.key).toBe(first.purchase.calls[0]?.key);
    expect(readJournal(storage)).toHaveLength(1);
  });

  it("key order inside a body does not make it another purchase", () => {
    const first = beginPurchase(
      storage,
      { kind: "preview", bodies: [{ a: 1, b: 2 }], summary: "x" },
      { newKey },
    );
    const second = beginPurchase(
      storage,
      { kind: "preview", bodies: [{ b: 2, a: 1 }], summary: "x" },
      { newKey },
    );
    expect(second.outcome).toBe("reused");
    expect(second.purchase.purchaseId).toBe(first.purchase.purchaseId);
  });

  it("another purchase of the same kind while one is unfinished is a conflict, not a second spend", () => {
    const first = beginPurchase(storage, { kind: "enrich", bodies: [body(["a"])], summary: "x" }, { newKey });
    const other = beginPurchase(storage, { kind: "enrich", bodies: [body(["z"])], summary: "y" }, { newKey });
    expect(other.outcome).toBe("conflict");
    expect(other.purchase.purchaseId).toBe(first.purchase.purchaseId);
    // Other kinds are independent.
    expect(beginPurchase(storage, { kind: "export", bodies: [{}], summary: "e" }, { newKey }).outcome).toBe(
      "new",
    );
    expect(readJournal(storage)).toHaveLength(2);
  });

  it("is cleared when the answer is definite; the next purchase gets new keys", () => {
    const first = beginPurchase(storage, { kind: "enrich", bodies: [body(["a"])], summary: "x" }, { newKey });
    finishPurchase(storage, first.purchase.purchaseId);
    expect(pendingPurchase(storage, "enrich")).toBeNull();
    expect(storage.getItem(JOURNAL_KEY)).toBeNull();
    const next = beginPurchase(storage, { kind: "enrich", bodies: [body(["a"])], summary: "x" }, { newKey });
    expect(next.outcome).toBe("new");
    expect(next.purchase.calls[0]?.key).not.toBe(first.purchase.calls[0]?.key);
  });

  it("keeps the bodies as they were confirmed, even if the caller's objects change later", () => {
    const list = ["a"];
    const begun = beginPurchase(storage, { kind: "enrich", bodies: [body(list)], summary: "x" }, { newKey });
    list.push("b");
    expect(begun.purchase.calls[0]?.body).toEqual(body(["a"]));
  });

  it("lives in memory when storage refuses writes: a double click is still safe", () => {
    storage.refuseWrites = true;
    const first = beginPurchase(storage, { kind: "enrich", bodies: [body(["a"])], summary: "x" }, { newKey });
    expect(first.outcome === "new" && first.persisted).toBe(false);
    const second = beginPurchase(
      storage,
      { kind: "enrich", bodies: [body(["a"])], summary: "x" },
      { newKey },
    );
    expect(second.outcome).toBe("reused");
    finishPurchase(storage, first.purchase.purchaseId);
    expect(pendingPurchase(storage, "enrich")).toBeNull();
  });

  it("works without any storage at all", () => {
    const first = beginPurchase(null, { kind: "preview", bodies: [{}], summary: "x" }, { newKey });
    expect(pendingPurchase(null, "preview")?.purchaseId).toBe(first.purchase.purchaseId);
  });

  it("ignores what does not read as a journal", () => {
    storage.setItem(JOURNAL_KEY, "not json");
    expect(readJournal(storage)).toEqual([]);
    storage.setItem(JOURNAL_KEY, JSON.stringify({ v: 1, purchases: [{ kind: "enrich" }, 3] }));
    expect(readJournal(storage)).toEqual([]);
    expect(beginPurchase(storage, { kind: "enrich", bodies: [{}], summary: "x" }, { newKey }).outcome).toBe(
      "new",
    );
  });

  it("marks each call before it is sent, so a reload can tell a purchase that never left", () => {
    const begun = beginPurchase(
      storage,
      { kind: "enrich", bodies: [{ a: 1 }, { b: 2 }], summary: "x" },
      { newKey },
    );
    resetJournalMemory();
    expect(hasBeenSent(pendingPurchase(storage, "enrich")!)).toBe(false);
    expect(markSending(storage, begun.purchase.purchaseId, 0)).toBe(true);
    resetJournalMemory();
    const read = pendingPurchase(storage, "enrich")!;
    expect(hasBeenSent(read)).toBe(true);
    expect(read.calls[0]?.sentAt).toBeTypeOf("string");
    expect(read.calls[1]?.sentAt).toBeUndefined();
  });

  it("refuses to send when the mark cannot be written while storage still holds the purchase unmarked", () => {
    const begun = beginPurchase(storage, { kind: "export", bodies: [{}], summary: "x" }, { newKey });
    storage.refuseWrites = true;
    expect(markSending(storage, begun.purchase.purchaseId, 0)).toBe(false);
  });

  it("an unknown outcome is kept (a reload still shows it) with which calls were answered", () => {
    const begun = beginPurchase(
      storage,
      { kind: "enrich", bodies: [{ a: 1 }, { b: 2 }], summary: "x" },
      { newKey },
    );
    markAnswered(storage, begun.purchase.purchaseId, 0);
    markUnknown(storage, begun.purchase.purchaseId, new Date("2026-11-21T10:00:00Z"));
    resetJournalMemory();
    const read = pendingPurchase(storage, "enrich")!;
    expect(read.unknownAt).toBe("2026-11-21T10:00:00.000Z");
    expect(read.calls[0]?.answeredAt).toBeTypeOf("string");
    expect(read.calls[1]?.answeredAt).toBeUndefined();
  });
});
