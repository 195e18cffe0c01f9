import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newIdempotencyKey } from "../../../src/app/api/client";
import { IDEMPOTENCY_KEY, keyMadeBefore } from "../../../src/server/spend/spend-journal";

describe("the app's Idempotency-Keys carry the time they were made (UUIDv7)", () => {
  it("are keys the proxy takes, and tell a moment before them from one after", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), (ms) => {
        const key = newIdempotencyKey(ms);
        expect(key).toMatch(IDEMPOTENCY_KEY);
        expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(keyMadeBefore(key, new Date(ms + 1))).toBe(true);
        expect(keyMadeBefore(key, new Date(ms))).toBe(false);
      }),
    );
  });

  it("two keys made at the same moment differ", () => {
    const now = Date.now();
    expect(newIdempotencyKey(now)).not.toBe(newIdempotencyKey(now));
  });

  it("a key of another kind has no age to tell: never taken as made before", () => {
    for (const key of ["checkout-enrich-0001", "0b7c8a8e-4f6a-4c1e-9d2a-1f2e3d4c5b6a", "x".repeat(128)])
      expect(keyMadeBefore(key, new Date(8.64e15))).toBe(false);
  });
});
