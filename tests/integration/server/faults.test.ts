/**
 * Every fault kind between the proxy and the upstream, injected: slow answers (504), refused and
 * reset connections through the live fetch path (502), 5xx (502; reads retried, spends not), HTML
 * where JSON was expected (502). No answer or log line carries the key or the upstream's address.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { liveUpstream, type Upstream } from "../../../src/server/upstream/upstream";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  recording,
  startProxy,
} from "../../support/proxy-server";

const KEY = "sbx_fault_key_Zq81";
const started: ProxyServer[] = [];
const servers: Server[] = [];

async function proxyOver(upstream: Upstream, timeoutMs = 10_000) {
  const server = await startProxy(upstream, {
    env: {
      SANDBOX_KEY: KEY,
      CACHE_TTL_MS: "0",
      UPSTREAM_TIMEOUT_MS: String(timeoutMs),
      UPSTREAM_RETRY_BASE_MS: "5",
    },
  });
  started.push(server);
  return { server, api: browser(server.url) };
}

/** A raw HTTP server standing in for the real service. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function expectClean(answer: { text: string; headers: Headers }, ...secrets: string[]) {
  for (const secret of [KEY, "upstream.invalid", ...secrets]) expect(answer.text).not.toContain(secret);
  expect(answer.text).not.toMatch(/at .*\(.*:\d+:\d+\)|Error:|ECONN|stack/i);
}

const count = { filter: null };

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

describe("slow upstream", () => {
  it("answers 504 in plain words when the upstream takes longer than the operation's timeout", async () => {
    const slow = fakeUpstream(
      (request) =>
        new Promise<Response>((resolve) => {
          const timer = setTimeout(() => resolve(json({ count: 1, mode: "exact" })), 3000);
          request.signal.addEventListener("abort", () => clearTimeout(timer));
        }),
    );
    const { api } = await proxyOver(slow, 300);
    const t0 = Date.now();
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({
      detail: "The data service did not answer in time. Your filter is safe; try again.",
    });
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(slow.seen).toHaveLength(1); // a timeout is not retried
    expectClean(answer);
  });

  it("honours per-operation timeouts from UPSTREAM_TIMEOUTS", async () => {
    const slow = fakeUpstream(
      () => new Promise<Response>((r) => setTimeout(() => r(json({ count: 2, mode: "exact" })), 400)),
    );
    const server = await startProxy(slow, {
      env: { SANDBOX_KEY: KEY, UPSTREAM_TIMEOUT_MS: "100", UPSTREAM_TIMEOUTS: "count=2000" },
    });
    started.push(server);
    const api = browser(server.url);
    expect((await api.post("/api/v2/contact/count", count)).status).toBe(200);
    expect((await api.post("/api/v2/contact/company/count", count)).status).toBe(504);
  });
});

describe("connections through the live fetch path", () => {
  it("answers 502 when the connection is refused (a closed port), after retrying the read", async () => {
    const { url, server } = await listen(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const upstream = recording(liveUpstream(url));
    const { api, server: proxy } = await proxyOver(upstream);
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(502);
    expect(answer.body).toEqual({ detail: expect.stringContaining("could not be reached") });
    expect(upstream.seen).toHaveLength(3); // 1 + 2 retries
    expectClean(answer, url, String(new URL(url).port));
    expect(proxy.proxy.stats.retries).toBe(2);
  });

  it("answers 502 when the upstream resets the connection", async () => {
    const { url } = await listen((req) => req.socket.destroy());
    const { api } = await proxyOver(liveUpstream(url));
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(502);
    expectClean(answer, url);
  });

  it("answers 502 when the socket dies halfway through the body", async () => {
    const { url } = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"count": 1');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { api } = await proxyOver(liveUpstream(url));
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(502);
    expectClean(answer, url);
  });

  it("recovers when a read fails once and then succeeds (retried with backoff)", async () => {
    let hits = 0;
    const { url } = await listen((req, res) => {
      hits++;
      if (hits === 1) return req.socket.destroy();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ count: 42, mode: "exact" }));
    });
    const { api } = await proxyOver(liveUpstream(url));
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ count: 42, mode: "exact" });
    expect(hits).toBe(2);
  });

  it("does not follow redirects (the key goes to the configured address only)", async () => {
    const elsewhere = await listen((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ got: req.headers["x-key"] ?? null }));
    });
    const { url } = await listen((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/v2/contact/count` });
      res.end();
    });
    let reached = false;
    elsewhere.server.on("request", () => {
      reached = true;
    });
    const { api } = await proxyOver(liveUpstream(url));
    const answer = await api.post("/api/v2/contact/count", count);
    expect(answer.status).toBe(502);
    expect(reached).toBe(false);
  });
});

describe("5xx and unreadable answers", () => {
  it("retries 503 for pure reads (then 502), never for spends or View", async () => {
    const down = fakeUpstream(() =>
      json({ detail: `Traceback (most recent call last): key=${KEY} at http://10.1.2.3/internal` }, 503),
    );
    const { api } = await proxyOver(down);

    const read = await api.post("/api/v2/contact/count", count);
    expect(read.status).toBe(502);
    expect(read.body).toEqual({ detail: expect.stringContaining("had a problem") });
    expectClean(read, "10.1.2.3", "Traceback");
    expect(down.seen).toHaveLength(3);

    down.seen.length = 0;
    const spend = await api.post(
      "/api/v2/contact/preview",
      { reveal: "none", limit: 1 },
      { idempotencyKey: "spend-503-0001" },
    );
    expect(spend.status).toBe(502);
    expect(down.seen).toHaveLength(1);

    down.seen.length = 0;
    const view = await api.post("/api/v2/contact/view", { limit: 1 });
    expect(view.status).toBe(502);
    expect(down.seen).toHaveLength(1);

    down.seen.length = 0;
    const status = await api.get("/api/v2/jobs/12");
    expect(status.status).toBe(502);
    expect(down.seen).toHaveLength(3);
  });

  it("answers 502 for HTML or broken JSON where JSON was expected", async () => {
    let body = "<html><body>502 Bad Gateway nginx/1.25 upstream.internal</body></html>";
    let type = "text/html";
    const weird = fakeUpstream(() => new Response(body, { status: 200, headers: { "content-type": type } }));
    const { api } = await proxyOver(weird);
    const html = await api.post("/api/v2/contact/count", count);
    expect(html.status).toBe(502);
    expect(html.body).toEqual({ detail: expect.stringContaining("could not read") });
    expectClean(html, "nginx", "upstream.internal");

    body = '{"count": 1,';
    type = "application/json";
    const broken = await api.post("/api/v2/contact/count", count);
    expect(broken.status).toBe(502);
  });

  it("keeps the status of a non-JSON 404, 405 or 410 (version fallback), not its body", async () => {
    let status = 404;
    const gateway = fakeUpstream(
      () =>
        new Response("<html>Not Found nginx upstream.internal</html>", {
          status,
          headers: { "content-type": "text/html" },
        }),
    );
    const { api } = await proxyOver(gateway);
    for (status of [404, 405, 410]) {
      const answer = await api.get("/api/v2/credits");
      expect(answer.status).toBe(status);
      expect(answer.body).toEqual({ detail: expect.any(String) });
      expectClean(answer, "nginx", "upstream.internal");
    }
  });

  it("turns a refused key into a 502 that names no key, and scrubs the key from passed-through bodies", async () => {
    let status = 401;
    const refusing = fakeUpstream(() => json({ detail: `Invalid or missing API key ${KEY}` }, status));
    const { api } = await proxyOver(refusing);
    const refused = await api.post("/api/v2/contact/count", count);
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ detail: expect.stringContaining("refused this proxy's API key") });
    expectClean(refused);

    status = 400;
    const echoed = await api.post("/api/v2/contact/count", count);
    expect(echoed.status).toBe(400);
    expect(echoed.text).not.toContain(KEY);
    expect(echoed.text).toContain("[redacted]");
  });
});

describe("logs", () => {
  it("never contain the key, whatever is logged", async () => {
    const upstream = fakeUpstream(() => json({ detail: `boom ${KEY}` }, 500));
    const { api, server } = await proxyOver(upstream);
    await api.post("/api/v2/contact/count", count);
    await api.post("/api/v2/contact/count", count, { headers: { "x-key": KEY } });
    // Even a careless log call cannot leak it: redacted paths plus a scrub of every line.
    server.proxy.logger.warn(
      { headers: { "x-key": KEY }, apiKey: KEY, nested: { note: `the key is ${KEY}` } },
      `msg ${KEY}`,
    );
    const logs = server.logs.join("");
    expect(server.logs.length).toBeGreaterThanOrEqual(3);
    expect(logs).not.toContain(KEY);
    expect(logs).toContain("[redacted]");
    const line = JSON.parse(server.logs[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      reqId: expect.any(String),
      op: "count",
      status: 502,
      ms: expect.any(Number),
    });
    expect(line.upstreamMs).toEqual(expect.any(Number));
  });
});
