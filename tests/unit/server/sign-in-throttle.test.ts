/**
 * Sign-in throttling (access.ts SignInThrottle), on a fake clock: tight per (name, address), a
 * growing delay per name across addresses that never locks, a high threshold per address (an
 * office behind one NAT), and a success that clears its pair.
 */
import { describe, expect, it } from "vitest";
import { SignInThrottle } from "../../../src/server/team/access";

const LIMITS = { pairMax: 5, nameMax: 10, addressMax: 100, windowMs: 15 * 60_000 };

function throttle() {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const t = new SignInThrottle(LIMITS, () => now);
  return { t, tick: (ms: number) => (now += ms) };
}

describe("SignInThrottle", () => {
  it("per (name, address): 5 free failures, then a minute that doubles with each further failure", () => {
    const { t, tick } = throttle();
    for (let i = 0; i < 5; i++) {
      expect(t.blockedFor("ann", "10.0.0.1")).toBe(0);
      t.fail("ann", "10.0.0.1");
    }
    expect(t.blockedFor("ann", "10.0.0.1")).toBe(60);
    expect(t.blockedFor("Ann", "10.0.0.1")).toBe(60); // names count without case
    // Another person at the same address, and ann elsewhere, are not held up.
    expect(t.blockedFor("bob", "10.0.0.1")).toBe(0);
    expect(t.blockedFor("ann", "10.0.0.2")).toBe(0);
    tick(60_000);
    expect(t.blockedFor("ann", "10.0.0.1")).toBe(0);
    t.fail("ann", "10.0.0.1");
    expect(t.blockedFor("ann", "10.0.0.1")).toBe(120);
    tick(120_000);
    t.fail("ann", "10.0.0.1");
    expect(t.blockedFor("ann", "10.0.0.1")).toBe(240);
  });

  it("a success clears its pair", () => {
    const { t } = throttle();
    for (let i = 0; i < 4; i++) t.fail("ann", "10.0.0.1");
    t.succeed("ann", "10.0.0.1");
    for (let i = 0; i < 4; i++) t.fail("ann", "10.0.0.1");
    expect(t.blockedFor("ann", "10.0.0.1")).toBe(0);
  });

  it("per name across addresses: a delay that grows to a minute at most, never a lock-out; known addresses are exempt", () => {
    const { t, tick } = throttle();
    t.succeed("ann", "192.0.2.7"); // ann's own office
    for (let i = 0; i < 10; i++) t.fail("ann", `203.0.113.${i}`);
    expect(t.blockedFor("ann", "198.51.100.1")).toBe(1);
    const waits: number[] = [];
    for (let i = 10; i < 20; i++) {
      tick(t.blockedFor("ann", "198.51.100.1") * 1000);
      t.fail("ann", `203.0.113.${i}`);
      waits.push(t.blockedFor("ann", "198.51.100.1"));
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60, 60]);
    // Where ann signed in before, she is not held up by guesses at her name elsewhere.
    expect(t.blockedFor("ann", "192.0.2.7")).toBe(0);
    // The window forgets.
    tick(LIMITS.windowMs + 1);
    expect(t.blockedFor("ann", "198.51.100.1")).toBe(0);
  });

  it("per address across names: an office of people mistyping is not stopped; a sweep of names is", () => {
    const { t, tick } = throttle();
    for (let i = 0; i < 99; i++) t.fail(`person${i}`, "10.0.0.1");
    expect(t.blockedFor("someone", "10.0.0.1")).toBe(0);
    t.fail("person99", "10.0.0.1");
    expect(t.blockedFor("someone", "10.0.0.1")).toBe(15 * 60);
    tick(LIMITS.windowMs);
    expect(t.blockedFor("someone", "10.0.0.1")).toBe(0);
    // Swept once nothing counts any more.
    t.sweep();
    expect((t as unknown as { failures: Map<string, number[]> }).failures.size).toBe(0);
  });
});
