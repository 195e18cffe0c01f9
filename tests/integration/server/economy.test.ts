/**
 * Upstream economy: the cache with single-flight (counted at the upstream), TTL expiry, and the rate
 * shaper that queues instead of tripping the upstream's limit, interactive calls first, with a 429
 * of our own (and Retry-After) for calls that wait too long.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import type { Upstream } from "../../../src/server/upstream/upstream";
import {
  browser,
  json,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const started: ProxyServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function proxyOver(upstream: Upstream, env: Record<string, string> = {}) {
  const server = await startProxy(upstream, { env });
  started.push(server);
  return { server, api: browser(server.url) };
}

const cond = (column: string, operator: string, extra: Record<string, unknown>) => ({
  type: "condition",
  column,
  operator,
  ...extra,
});
const germany = {
  type: "group",
  op: "AND",
  children: [
    cond("COUNTRY_NAME_PER", "eq", { value: "Germany", id: "a" }),
    cond("FOUNDED_ORG", "gte", { value: 1990 }),
  ],
};
/** The same filter as the service reads it: other ids, other key order, defaults spelled out. */
const germanyAgain = {
  children: [
    cond("COUNTRY_NAME_PER", "eq", { id: "zz", value: "Germany" }),
    { value: 1990, operator: "gte", column: "FOUNDED_ORG", type: "condition" },
  ],
  negate: false,
  type: "group",
};

/**
 * A stand-in with a rolling-window limit like the service's: refuses with 429 RATE_LIMITED beyond
 * `limit` calls per window and reports X-RateLimit-* on every answer. Records arrival order.
 */
function limitedUpstream(limit: number, windowMs: number, delayMs = 0) {
  const times: number[] = [];
  const order: string[] = [];
  let refused = 0;
  const upstream = recording(async (request) => {
    const now = Date.now();
    while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
    const reset = String(Math.ceil(((times[0] ?? now) + windowMs) / 1000));
    if (times.length >= limit) {
      refused++;
      return json({ detail: "Rate limit exceeded", code: "RATE_LIMITED" }, 429, {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": reset,
        "retry-after": "1",
      });
    }
    times.push(now);
    const body =
      request.method === "POST"
        ? ((await request.clone().json()) as { tag?: unknown; section?: unknown })
        : {};
    order.push(String(body.section ?? new URL(request.url).pathname));
    if (delayMs) await sleep(delayMs);
    return json({ count: 1, mode: "exact" }, 200, {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(limit - times.length),
      "x-ratelimit-reset": reset,
    });
  });
  return Object.assign(upstream, { order, refused: () => refused });
}

describe("cache and single-flight over the sandbox", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    ({ sandbox } = await startSandbox());
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it("sends 300 identical concurrent counts upstream once, and all 300 get the same answer", async () => {
    const upstream = recording(sandbox.fetch);
    const { api, server } = await proxyOver(upstream, { CACHE_TTL_MS: "60000" });
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => api.post("/api/v2/contact/count", { filter: germany })),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect((answers[0]!.body as { count: number }).count).toBeGreaterThan(0);
    expect(upstream.seen.filter((s) => s.path === "/v2/contact/count")).toHaveLength(1);
    const stats = server.proxy.stats;
    expect(stats.upstreamCalls.count).toBe(1);
    expect(stats.cacheMisses).toBe(1);
    expect(stats.cacheHits + stats.singleFlightJoins).toBe(299);

    // The canonical form keys the cache: ids, key order and spelled-out defaults do not matter.
    const again = await api.post("/api/v2/contact/count", { filter: germanyAgain });
    expect(again.text).toBe(answers[0]!.text);
    expect(upstream.seen).toHaveLength(1);
    // A different filter or another operation is another entry.
    await api.post("/api/v2/contact/count", { filter: germany, mode: "fast" });
    await api.post("/api/v2/contact/company/count", { filter: germany });
    expect(upstream.seen).toHaveLength(3);
  });

  it("a body validated once is taken as valid again only for the same operation's schema", async () => {
    const upstream = recording(sandbox.fetch);
    const { api } = await proxyOver(upstream, { CACHE_TTL_MS: "60000" });
    const body = { filter: germany, limit: 5 };
    // A View takes a limit, a Count does not: the same text validated for one is not valid for the other.
    for (let i = 0; i < 2; i++) {
      expect((await api.post("/api/v2/contact/view", body)).status).toBe(200);
      const count = await api.post("/api/v2/contact/count", body);
      expect(count.status).toBe(422);
      expect(JSON.stringify(count.body)).toMatch(/limit/);
    }
    // An answer built from a body seen before is the same answer, and leaves that body as it was.
    const first = await api.post("/api/v2/contact/count", { filter: germany });
    const second = await api.post("/api/v2/contact/count", { filter: germany });
    expect(second.text).toBe(first.text);
    expect(upstream.seen.filter((s) => s.path === "/v2/contact/count")).toHaveLength(1);
  });

  it("calls again once the TTL has passed", async () => {
    const upstream = recording(sandbox.fetch);
    const { api } = await proxyOver(upstream, { CACHE_TTL_MS: "300" });
    await api.post("/api/v2/contact/count", { filter: germany });
    await api.post("/api/v2/contact/count", { filter: germany });
    expect(upstream.seen).toHaveLength(1);
    await sleep(350);
    await api.post("/api/v2/contact/count", { filter: germany });
    expect(upstream.seen).toHaveLength(2);
  });

  it("caches insights and column values too, and never View", async () => {
    const upstream = recording(sandbox.fetch);
    const { api } = await proxyOver(upstream, { CACHE_TTL_MS: "60000" });
    for (let i = 0; i < 3; i++) {
      expect(
        (await api.post("/api/v2/contact/insights", { section: "summary", filter: germany })).status,
      ).toBe(200);
      expect((await api.get("/api/v2/contact/company/columns/INDUSTRY_LINKEDIN_ORG/values")).status).toBe(
        200,
      );
      expect((await api.post("/api/v2/contact/view", { filter: germany, limit: 1 })).status).toBe(200);
    }
    const paths = upstream.seen.map((s) => s.path);
    expect(paths.filter((p) => p.endsWith("/insights"))).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith("/values"))).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith("/view"))).toHaveLength(3);
  });

  it("keeps only 200 answers", async () => {
    let status = 400;
    const upstream = recording(async () =>
      json(status === 200 ? { count: 5, mode: "exact" } : { detail: "no" }, status),
    );
    const { api } = await proxyOver(upstream, { CACHE_TTL_MS: "60000" });
    expect((await api.post("/api/v2/contact/count", { filter: null })).status).toBe(400);
    expect((await api.post("/api/v2/contact/count", { filter: null })).status).toBe(400);
    status = 200;
    expect((await api.post("/api/v2/contact/count", { filter: null })).status).toBe(200);
    expect((await api.post("/api/v2/contact/count", { filter: null })).status).toBe(200);
    expect(upstream.seen).toHaveLength(3);
  });

  it("queues against a sandbox limited to 5 per minute: the 6th call gets the proxy's 429, never the sandbox's", async () => {
    const limited = await startSandbox({ ratePerMinute: 5 });
    try {
      const upstream = recording(limited.sandbox.fetch);
      // The proxy believes 60/min until the sandbox's headers say 5.
      const { api, server } = await proxyOver(upstream, { QUEUE_TIMEOUT_MS: "400", CACHE_TTL_MS: "60000" });
      for (let i = 0; i < 5; i++) {
        const answer = await api.post("/api/v2/contact/count", {
          filter: { type: "group", children: [cond("FOUNDED_ORG", "gte", { value: 1900 + i })] },
        });
        expect(answer.status).toBe(200);
      }
      const t0 = Date.now();
      const sixth = await api.post("/api/v2/contact/count", { filter: null });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
      expect(sixth.status).toBe(429);
      expect(sixth.body).toEqual({ detail: expect.any(String), code: "RATE_LIMITED" });
      expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(upstream.seen).toHaveLength(5); // the sandbox never had to refuse anything
      // Cache hits take no slot: the five counts still answer at once.
      const hit = await api.post("/api/v2/contact/count", {
        filter: { type: "group", children: [cond("FOUNDED_ORG", "gte", { value: 1900 })] },
      });
      expect(hit.status).toBe(200);
      expect(server.proxy.stats.queueTimeouts).toBe(1);
    } finally {
      await limited.sandbox.close();
    }
  });
});

describe("rate shaper", () => {
  it("queues a burst of 8 against an upstream limited to 5 per window: no 429 reaches anyone", async () => {
    const upstream = limitedUpstream(5, 1200);
    const { api, server } = await proxyOver(upstream, {
      UPSTREAM_RATE_PER_MIN: "5",
      UPSTREAM_RATE_WINDOW_MS: "1200",
      CACHE_TTL_MS: "0",
    });
    const t0 = Date.now();
    let peakQueue = 0;
    const watcher = setInterval(() => {
      peakQueue = Math.max(peakQueue, server.proxy.stats.queueLength);
    }, 10);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.post("/api/v2/contact/count", {
          filter: { type: "group", children: [cond("FOUNDED_ORG", "gte", { value: 1900 + i })] },
        }),
      ),
    );
    clearInterval(watcher);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(upstream.refused()).toBe(0);
    expect(upstream.seen).toHaveLength(8);
    expect(peakQueue).toBeGreaterThanOrEqual(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1100);
  });

  it("learns a lower limit from X-RateLimit-* and keeps under it", async () => {
    const upstream = limitedUpstream(3, 1000);
    const { api } = await proxyOver(upstream, {
      UPSTREAM_RATE_PER_MIN: "60",
      UPSTREAM_RATE_WINDOW_MS: "1000",
      CACHE_TTL_MS: "0",
    });
    expect((await api.get("/api/v2/credits")).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.get("/api/v2/credits")));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(upstream.refused()).toBe(0);
  });

  it("re-queues a call the upstream refused for its rate limit instead of failing it", async () => {
    const upstream = limitedUpstream(2, 600);
    // The proxy thinks it may send 50; the upstream allows 2 per 600 ms and says so only on answers.
    const { api } = await proxyOver(upstream, {
      UPSTREAM_RATE_PER_MIN: "50",
      UPSTREAM_RATE_WINDOW_MS: "600",
      CACHE_TTL_MS: "0",
    });
    const answers = await Promise.all(Array.from({ length: 4 }, () => api.get("/api/v2/credits")));
    expect(answers.map((a) => a.status)).toEqual(Array(4).fill(200));
  });

  it("sends interactive calls before background ones", async () => {
    const upstream = limitedUpstream(1, 250, 20);
    const { api, server } = await proxyOver(upstream, {
      UPSTREAM_RATE_PER_MIN: "1",
      UPSTREAM_RATE_WINDOW_MS: "250",
      CACHE_TTL_MS: "0",
    });
    const waitForQueue = async (n: number) => {
      while (server.proxy.stats.queueLength < n) await sleep(5);
    };
    const first = api.post("/api/v2/contact/insights", { section: "summary" }); // background, takes the slot
    await sleep(30);
    const background = [
      api.post("/api/v2/contact/insights", { section: "breakdown", groupField: "COUNTRY_NAME_PER" }),
      api.post("/api/v2/contact/insights", { section: "fields", fields: ["COUNTRY_NAME_PER"] }),
    ];
    await waitForQueue(2);
    const interactive = api.post("/api/v2/contact/count", { filter: null });
    await waitForQueue(3);
    const all = await Promise.all([first, ...background, interactive]);
    expect(all.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(upstream.order[0]).toBe("summary");
    expect(upstream.order[1]).toBe("/v2/contact/count");
    expect(upstream.order.slice(2).sort()).toEqual(["breakdown", "fields"]);
  });
});
