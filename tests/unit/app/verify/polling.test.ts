import { describe, expect, it } from "vitest";
import {
  ChangeTracker,
  POLL_MAX_MS,
  POLL_MIN_MS,
  pollDelay,
  pollInterval,
} from "../../../../src/app/features/verify/polling";

describe("pollDelay / pollInterval", () => {
  it("starts at 5 s and backs off by half per unchanged answer, never beyond 10 s", () => {
    expect([0, 1, 2, 3, 10, 1000].map(pollDelay)).toEqual([5000, 7500, 10_000, 10_000, 10_000, 10_000]);
    for (let n = 0; n < 50; n += 1) {
      expect(pollDelay(n)).toBeGreaterThanOrEqual(POLL_MIN_MS);
      expect(pollDelay(n)).toBeLessThanOrEqual(POLL_MAX_MS);
      expect(pollDelay(n + 1)).toBeGreaterThanOrEqual(pollDelay(n));
    }
    expect(pollDelay(-3)).toBe(5000);
    expect(pollDelay(1.7)).toBe(7500);
  });

  it("stops when nothing runs", () => {
    expect(pollInterval(false, 0)).toBe(false);
    expect(pollInterval(false, 5)).toBe(false);
    expect(pollInterval(true, 0)).toBe(5000);
    expect(pollInterval(true, 1)).toBe(7500);
  });
});

describe("ChangeTracker", () => {
  it("counts fetches in a row that kept the same data object, once per fetch", () => {
    const tracker = new ChangeTracker();
    const a = { message: "1 of 10" };
    expect(tracker.observe(1, a)).toBe(0);
    // React Query asks several times for one fetch: counted once.
    expect(tracker.observe(1, a)).toBe(0);
    expect(tracker.observe(2, a)).toBe(1);
    expect(tracker.observe(2, a)).toBe(1);
    expect(tracker.observe(3, a)).toBe(2);
    // New data: back to the fast pace.
    const b = { message: "5 of 10" };
    expect(tracker.observe(4, b)).toBe(0);
    expect(tracker.observe(5, b)).toBe(1);
  });

  it("no data yet counts as a change", () => {
    const tracker = new ChangeTracker();
    expect(tracker.observe(0, undefined)).toBe(0);
    expect(tracker.observe(7, [])).toBe(0);
  });
});
