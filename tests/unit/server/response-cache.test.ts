/**
 * The proxy's response cache keeps live answers only: expired ones leave as new ones arrive, so a
 * steady stream of new filters does not hold the cache at its cap of dead answers (the soak saw
 * the proxy's memory climb for minutes that way).
 */
import { describe, expect, it } from "vitest";
import type { BufferedAnswer } from "../../../src/server/http/answer";
import { ResponseCache } from "../../../src/server/upstream/response-cache";

const ok = (body: string): BufferedAnswer => ({ status: 200, headers: [], body });

describe("ResponseCache", () => {
  it("drops expired answers when new ones are stored, and keeps the live ones", async () => {
    let now = 0;
    const cache = new ResponseCache(60_000, 5000, () => now);
    for (let i = 0; i < 100; i++) {
      now = i * 1000; // one new filter a second
      await cache.get(`count ${i}`, async () => ok(String(i)));
    }
    // Answers stored in the last minute are live; the 40 before them have expired and left.
    expect(cache.size).toBe(60);
    expect((await cache.get("count 99", async () => ok("again"))).how).toBe("hit");
    expect((await cache.get("count 10", async () => ok("again"))).how).toBe("miss");
  });

  it("a refreshed answer moves to the back, so expiry from the front stays in order", async () => {
    let now = 0;
    const cache = new ResponseCache(10_000, 100, () => now);
    await cache.get("a", async () => ok("a"));
    now = 5_000;
    await cache.get("b", async () => ok("b"));
    now = 10_000; // "a" has expired: asked again, it is stored again, behind "b"
    expect((await cache.get("a", async () => ok("a2"))).how).toBe("miss");
    now = 15_000; // "b" expires; storing "c" drops it and keeps the fresh "a"
    await cache.get("c", async () => ok("c"));
    expect(cache.size).toBe(2);
    expect((await cache.get("a", async () => ok("a3"))).answer.body).toBe("a2");
  });

  it("still holds at most its cap of live answers", async () => {
    const cache = new ResponseCache(60_000, 10, () => 0);
    for (let i = 0; i < 25; i++) await cache.get(`k${i}`, async () => ok(String(i)));
    expect(cache.size).toBe(10);
    expect((await cache.get("k24", async () => ok("x"))).how).toBe("hit");
    expect((await cache.get("k0", async () => ok("x"))).how).toBe("miss");
  });
});
