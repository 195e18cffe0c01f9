import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../../src/contract/routes";
import {
  POLICED_OPERATIONS,
  PURCHASE_KINDS,
  purchaseKindOf,
  SETTLEMENTS,
} from "../../../src/server/spend/purchase-kinds";

/**
 * The one spend pipeline runs every kind of purchase the same way: each operation that spends is
 * exactly one entry of the table, with every part; the pipeline itself names no operation (a new
 * kind of purchase is a new entry, not a branch).
 */
describe("the table of purchase kinds", () => {
  const spending = OPERATIONS.filter((op) => op.spends).map((op) => op.id);

  it("has exactly one entry for every operation that spends, and none for one that does not", () => {
    const listed = PURCHASE_KINDS.flatMap((k) => k.operations);
    expect([...listed].sort()).toEqual([...spending].sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const op of OPERATIONS.filter((o) => !o.spends)) expect(purchaseKindOf(op.id)).toBeUndefined();
  });

  it("gives every entry the same parts", () => {
    for (const kind of PURCHASE_KINDS) {
      expect(kind.label).not.toBe("");
      for (const part of ["price", "describe", "exclude", "record", "unknownRow"] as const)
        expect(typeof kind[part], `${kind.label}: ${part}`).toBe("function");
    }
  });

  it("polices every spend but key rotation, and keeps the ledger for every policed one", () => {
    expect([...POLICED_OPERATIONS].sort()).toEqual(
      spending.filter((id) => id !== "rotateV1" && id !== "rotateV2").sort(),
    );
    const order = {
      operation: "",
      person: "ana",
      keyHash: "k",
      keyLast4: "abcd",
      tag: "ab-0123456789abcdef",
      body: { filter: null, reveal: "none", personIds: ["p1"], limit: 5, email: "a@b.co", name: "x" },
      headers: {},
      estimate: 3,
    };
    const deps = {} as Parameters<(typeof PURCHASE_KINDS)[number]["describe"]>[1];
    for (const kind of PURCHASE_KINDS.filter((k) => k.policed)) {
      const row = kind.unknownRow(kind.describe({ ...order, operation: kind.operations[0]! }, deps));
      expect(row, kind.label).toMatchObject({
        outcome: "unknown",
        keyHash: "k",
        person: "ana",
        charged: null,
      });
    }
  });

  it("settles exports and batch verifications, each from status answers of its own", () => {
    expect(SETTLEMENTS.map((s) => s.what).sort()).toEqual(["batch verification", "export"]);
    const statuses = SETTLEMENTS.flatMap((s) => [...s.statusOperations]);
    expect(new Set(statuses).size).toBe(statuses.length);
    for (const id of statuses) expect(OPERATIONS.some((op) => op.id === id && !op.spends)).toBe(true);
  });

  it("an export's owned-contacts choice makes another request; a header it does not take is refused", () => {
    const exportKind = purchaseKindOf("exportStart")!;
    expect(exportKind.variant?.({})).toEqual({});
    expect(exportKind.variant?.({ "x-owned-contacts": "buy-again" })).toEqual({ owned: "buy-again" });
    expect(() => exportKind.variant?.({ "x-owned-contacts": "steal" })).toThrow();
  });

  it("the pipeline names no operation: it runs every kind the same way", () => {
    const pipeline = readFileSync(new URL("../../../src/server/spend/pipeline.ts", import.meta.url), "utf8");
    for (const id of spending) expect(pipeline, id).not.toMatch(new RegExp(`["'\`]${id}["'\`]`));
  });
});
