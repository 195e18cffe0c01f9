/**
 * `GET /api/health`: what the app asks, about once a second while a read failed for want of the
 * service, before it reads again (src/app/api/recovery.ts). Free while the service answers (nothing
 * is sent to learn it); while it does not, one probe of the balance a second at most, whoever asks,
 * given up on after two seconds, and never while the rate shaper holds calls back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RateShaper } from "../../../src/server/upstream/rate-shaper";
import { PROBE_EVERY_MS, PROBE_TIMEOUT_MS } from "../../../src/server/upstream/upstream-health";
import { browser, fakeUpstream, json, type ProxyServer, sleep, startProxy } from "../../support/proxy-server";

const started: ProxyServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

type Mode = "up" | "reset" | "5xx" | "hang";

/** A service that answers, resets every connection, answers 503, or never answers, as told. */
function service() {
  let mode: Mode = "up";
  const upstream = fakeUpstream((request) => {
    if (mode === "reset") throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    if (mode === "5xx") return new Response("<html>503</html>", { status: 503 });
    if (mode === "hang")
      return new Promise<Response>((_, reject) =>
        request.signal.addEventListener("abort", () => reject(request.signal.reason)),
      );
    return new URL(request.url).pathname === "/v2/credits"
      ? json({ credits: 10, plan: "PAYG" })
      : json({ count: 7, mode: "exact" });
  });
  return {
    upstream,
    set: (next: Mode) => {
      mode = next;
    },
    probes: () => upstream.seen.filter((r) => r.path === "/v2/credits").length,
  };
}

async function proxyOver(upstream: ReturnType<typeof service>["upstream"]) {
  const server = await startProxy(upstream, {
    env: { SANDBOX_KEY: "sbx_health_key", CACHE_TTL_MS: "0", UPSTREAM_TIMEOUT_MS: "5000" },
  });
  started.push(server);
  return browser(server.url);
}

const count = { filter: null };

describe("GET /api/health", () => {
  it("says up without calling the service while its calls are answered", async () => {
    const s = service();
    const api = await proxyOver(s.upstream);
    expect((await api.post("/api/v2/contact/count", count)).status).toBe(200);
    s.upstream.seen.length = 0;
    for (let i = 0; i < 5; i++) {
      const answer = await api.get("/api/health");
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ upstream: "up" });
    }
    expect(s.upstream.seen).toHaveLength(0);
  });

  it("sits behind the browser guard like the rest of /api", async () => {
    const api = await proxyOver(service().upstream);
    expect((await api.get("/api/health", { noCsrf: true })).status).toBe(403);
  });

  for (const fault of ["reset", "5xx"] as const) {
    it(`after a ${fault}: down, one probe a second at most whoever asks, up as soon as the service answers`, async () => {
      const s = service();
      const api = await proxyOver(s.upstream);
      s.set(fault);
      expect((await api.post("/api/v2/contact/count", count)).status).toBe(502);

      // Ten people asking at once, twice: one probe a second between them all.
      const t0 = Date.now();
      for (let round = 0; round < 2; round++) {
        const asked = await Promise.all(Array.from({ length: 10 }, () => api.get("/api/health")));
        for (const answer of asked) expect(answer.body).toEqual({ upstream: "down" });
      }
      const probed = s.probes();
      expect(probed).toBeGreaterThanOrEqual(2);
      expect(probed).toBeLessThanOrEqual(Math.floor((Date.now() - t0) / PROBE_EVERY_MS) + 1);

      // Back: whoever asks next hears it within a second (at the next probe).
      s.set("up");
      const t1 = Date.now();
      expect((await api.get("/api/health")).body).toEqual({ upstream: "up" });
      expect(Date.now() - t1).toBeLessThan(PROBE_EVERY_MS + 300);
      expect(s.probes()).toBe(probed + 1);
      // Up again: free once more.
      for (let i = 0; i < 3; i++) await api.get("/api/health");
      expect(s.probes()).toBe(probed + 1);
    });
  }

  it("answers within the probe's timeout when the service hangs, and up once a new probe is answered", async () => {
    const s = service();
    const api = await proxyOver(s.upstream);
    s.set("reset");
    await api.post("/api/v2/contact/count", count);
    s.set("hang");
    const t0 = Date.now();
    expect((await api.get("/api/health")).body).toEqual({ upstream: "down" });
    expect(Date.now() - t0).toBeLessThan(PROBE_TIMEOUT_MS + 1000);
    s.set("up");
    expect((await api.get("/api/health")).body).toEqual({ upstream: "up" });
  });

  it("does not let a hung probe hold back the comeback, nor undo it when it times out late", async () => {
    const s = service();
    const api = await proxyOver(s.upstream);
    s.set("reset");
    await api.post("/api/v2/contact/count", count);
    s.set("hang");
    const t0 = Date.now();
    const asked = api.get("/api/health");
    await sleep(300);
    s.set("up");
    // The first probe hangs; the next, a second after it, is answered.
    expect((await asked).body).toEqual({ upstream: "up" });
    expect(Date.now() - t0).toBeLessThan(PROBE_EVERY_MS + 700);
    await sleep(PROBE_TIMEOUT_MS);
    expect((await api.get("/api/health")).body).toEqual({ upstream: "up" });
    expect(s.probes()).toBe(2);
  });
});

describe("the rate shaper's slot for a probe", () => {
  const shaper = () => new RateShaper({ perWindow: 2, windowMs: 60_000, queueTimeoutMs: 1000 });

  it("is given only when one is free now", async () => {
    const s = shaper();
    const first = s.tryAcquire();
    const second = s.tryAcquire();
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    // Both slots taken for the window: no wait, no slot.
    expect(s.tryAcquire()).toBeNull();
    first?.release();
    second?.release();
    expect(s.tryAcquire()).toBeNull();
    s.close();
  });

  it("is never given while a 429 holds calls back, nor before anyone waiting", async () => {
    const s = shaper();
    s.learn(new Headers({ "retry-after": "30" }), 429);
    expect(s.tryAcquire()).toBeNull();
    s.close();

    const busy = new RateShaper({ perWindow: 1, windowMs: 60_000, queueTimeoutMs: 1000 });
    const held = await busy.acquire("interactive");
    const waiter = busy.acquire("background").catch(() => null);
    expect(busy.tryAcquire()).toBeNull();
    held.release();
    busy.close();
    await waiter;
  });
});
