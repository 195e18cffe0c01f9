/**
 * The fault suite's injector (tests/support/fault-upstream.ts), checked on its own, then the proxy
 * over the real sandbox with each fault in between: what the browser is answered, how many calls
 * reached the sandbox, and what was charged (read from the sandbox itself). The browser's side of
 * the same faults is tests/e2e/faults.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import { MESSAGES } from "../../../src/server/upstream/faults";
import { type FaultUpstream, faultUpstream, SPENDS, sandboxBalance } from "../../support/fault-upstream";
import { browser, json, type ProxyServer, startProxy, startSandbox } from "../../support/proxy-server";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the fault injector on its own", () => {
  const answers = () => {
    let n = 0;
    const inner = async (request: Request) => {
      n++;
      return json({ path: new URL(request.url).pathname, n });
    };
    return { inner, calls: () => n };
  };
  const req = (path: string, init: RequestInit = {}) => new Request(`http://upstream.invalid${path}`, init);

  it("passes everything through when no fault is set, and counts what reached the inner upstream", async () => {
    const { inner } = answers();
    const faults = faultUpstream(inner);
    const response = await faults(req("/v2/contact/count", { method: "POST", body: "{}" }));
    expect(await response.json()).toEqual({ path: "/v2/contact/count", n: 1 });
    expect(faults.reachedCount()).toBe(1);
    expect(faults.reachedCount("/v2/contact/count")).toBe(1);
    expect(faults.reached[0]).toMatchObject({ method: "POST", status: 200, cut: false });
    expect(faults.active).toBeNull();
  });

  it("latency delays, and gives up with the request's signal", async () => {
    const { inner, calls } = answers();
    const faults = faultUpstream(inner).latency(150);
    const t0 = Date.now();
    await faults(req("/v2/credits"));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    const controller = new AbortController();
    const pending = faults(req("/v2/credits", { signal: controller.signal }));
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(calls()).toBe(1);
  });

  it("reset throws fetch's TypeError before the upstream sees it, or after with `after`", async () => {
    const { inner, calls } = answers();
    const faults = faultUpstream(inner).reset();
    await expect(faults(req("/v2/credits"))).rejects.toThrow(TypeError);
    expect(calls()).toBe(0);
    faults.reset({ after: true });
    await expect(faults(req("/v2/credits"))).rejects.toThrow(TypeError);
    expect(calls()).toBe(1);
    expect(faults.reached[0]?.cut).toBe(true);
    expect(faults.caughtCount()).toBe(2);
  });

  it("truncate cuts the body: the stream errors, or ends early (mid-JSON)", async () => {
    const { inner } = answers();
    const faults = faultUpstream(inner).truncate();
    const broken = await faults(req("/v2/credits"));
    expect(broken.status).toBe(200);
    await expect(broken.text()).rejects.toThrow();
    faults.truncate({ mode: "end", fraction: 0.5 });
    const short = await faults(req("/v2/credits"));
    const text = await short.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();
  });

  it("burst5xx answers n gateway pages (502, 503, 500), then passes again", async () => {
    const { inner, calls } = answers();
    const faults = faultUpstream(inner).burst5xx(3);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await faults(req("/v2/credits"));
      statuses.push(response.status);
      if (i < 3) {
        expect(response.headers.get("content-type")).toBe("text/html");
        expect(await response.text()).toContain("nginx");
      }
    }
    expect(statuses).toEqual([502, 503, 500, 200]);
    expect(calls()).toBe(1);
    expect(faults.active).toBeNull();
  });

  it("hang never answers until the signal aborts; releaseHung ends the rest", async () => {
    const { inner, calls } = answers();
    const faults = faultUpstream(inner).hang();
    const controller = new AbortController();
    const first = faults(req("/v2/credits", { signal: controller.signal }));
    const second = faults(req("/v2/credits"));
    const raced = await Promise.race([first.then(() => "answered"), sleep(100).then(() => "still waiting")]);
    expect(raced).toBe("still waiting");
    controller.abort();
    await expect(first).rejects.toThrow();
    faults.releaseHung();
    await expect(second).rejects.toThrow(TypeError);
    expect(calls()).toBe(0);
  });

  it("storm429 answers RATE_LIMITED with X-RateLimit-* and no Retry-After, by count or for a while", async () => {
    const { inner } = answers();
    const faults = faultUpstream(inner).storm429(2);
    for (let i = 0; i < 2; i++) {
      const response = await faults(req("/v2/credits"));
      expect(response.status).toBe(429);
      expect(await response.json()).toEqual({ detail: expect.any(String), code: "RATE_LIMITED" });
      expect(response.headers.get("retry-after")).toBeNull();
      expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
    expect((await faults(req("/v2/credits"))).status).toBe(200);

    faults.storm429({ ms: 120 }, { bare: true });
    const bare = await faults(req("/v2/credits"));
    expect(bare.status).toBe(429);
    expect(await bare.json()).toEqual({ detail: expect.any(String) });
    await sleep(150);
    expect((await faults(req("/v2/credits"))).status).toBe(200);
  });

  it("targets some requests only: a path, a RegExp, or the spends", async () => {
    const { inner } = answers();
    const faults = faultUpstream(inner).burst5xx(10, { only: "/v2/contact/count" });
    expect((await faults(req("/v2/credits"))).status).toBe(200);
    expect((await faults(req("/v2/contact/count", { method: "POST", body: "{}" }))).status).toBe(502);
    faults.burst5xx(10, { only: SPENDS });
    expect((await faults(req("/v2/contact/count", { method: "POST", body: "{}" }))).status).toBe(200);
    expect((await faults(req("/v2/contact/enrich", { method: "POST", body: "{}" }))).status).toBe(502);
    expect((await faults(req("/v2/contact/preview", { method: "POST", body: "{}" }))).status).toBe(503);
    expect((await faults(req("/v2/contact/export", { method: "POST", body: "{}" }))).status).toBe(500);
    expect(SPENDS({ method: "GET", path: "/v1/new-api-key" })).toBe(true);
    expect(SPENDS({ method: "POST", path: "/v2/contact/export/estimate" })).toBe(false);
    expect(faults.caughtCount(SPENDS)).toBe(3);
    faults.clear();
    expect(faults.active).toBeNull();
  });
});

describe("the proxy over the sandbox, with each fault in between", () => {
  let sandbox: Sandbox;
  let faults: FaultUpstream;
  let proxy: ProxyServer;
  let api: ReturnType<typeof browser>;
  let keys = 0;
  const newKey = () => `fault-it-${Date.now()}-${keys++}`;
  const COUNT = { filter: null };
  const PREVIEW = { limit: 3, reveal: "none" };
  const balance = () => sandboxBalance(sandbox);

  beforeAll(async () => {
    sandbox = (await startSandbox()).sandbox;
    faults = faultUpstream(sandbox.fetch);
    proxy = await startProxy(faults, {
      env: {
        SANDBOX_KEY: "sbx_payg_demo",
        CACHE_TTL_MS: "0",
        UPSTREAM_TIMEOUT_MS: "800",
        UPSTREAM_RATE_PER_MIN: "100000",
        QUEUE_TIMEOUT_MS: "3000",
        // The shaper's rolling window, a minute in production: after a 429 it holds the window full.
        UPSTREAM_RATE_WINDOW_MS: "1500",
      },
    });
    api = browser(proxy.url);
  });
  afterEach(() => {
    faults.clear();
    faults.releaseHung();
    faults.resetCounts();
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
  });

  /** A preview (3 rows, 3 credits) during the fault, then again with the same key once it is over. */
  async function spendThrough(fault: () => void) {
    const key = newKey();
    const before = await balance();
    fault();
    const during = await api.post<{ detail?: string; code?: string }>("/api/v2/contact/preview", PREVIEW, {
      idempotencyKey: key,
    });
    const chargedDuring = before - (await balance());
    faults.clear();
    const after = await api.post<{ creditsCharged?: number; detail?: string }>(
      "/api/v2/contact/preview",
      PREVIEW,
      { idempotencyKey: key },
    );
    const charged = before - (await balance());
    /** A new purchase (new key), as a person chooses after "outcome unknown". */
    const buyAgain = async () => {
      const fresh = await api.post("/api/v2/contact/preview", PREVIEW, { idempotencyKey: newKey() });
      return { fresh, total: before - (await balance()) };
    };
    return { during, after, chargedDuring, charged, buyAgain };
  }

  /** Sent, no answer: the proxy cannot know, says so, and never sends it again under that key. */
  function expectUnknown(
    during: { status: number; body: { code?: string } },
    after: { status: number; body: unknown },
  ) {
    expect(during.body.code).toBe("OUTCOME_UNKNOWN");
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ code: "OUTCOME_UNKNOWN", detail: expect.stringContaining("balance") });
  }

  it("latency under the timeout: answered, just later", async () => {
    faults.latency(300);
    const t0 = Date.now();
    const answer = await api.post("/api/v2/contact/count", COUNT);
    expect(answer.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("latency over the timeout: 504 in plain words; a spend's outcome is unknown, never resent; a new purchase charges once", async () => {
    faults.latency(2000);
    const count = await api.post("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(504);
    expect(count.body).toEqual({ detail: MESSAGES.timeout });
    faults.resetCounts();
    const { during, after, chargedDuring, charged, buyAgain } = await spendThrough(() =>
      faults.latency(2000),
    );
    expect(during.status).toBe(504);
    expect(chargedDuring).toBe(0);
    expectUnknown(during, after);
    expect(charged).toBe(0);
    const { fresh, total } = await buyAgain();
    expect(fresh.status).toBe(200);
    expect(total).toBe(3);
  });

  it("reset before the sandbox: reads retried then 502 'could not be reached'; a spend charged once", async () => {
    faults.reset();
    const count = await api.post("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(502);
    expect(count.body).toEqual({ detail: MESSAGES.network });
    expect(faults.caughtCount("/v2/contact/count")).toBe(3); // 1 + 2 retries
    expect(faults.reachedCount()).toBe(0);
    // A reset on an open connection cannot be told from one after the work: unknown, not resent.
    const { during, after, charged, buyAgain } = await spendThrough(() => faults.reset({ only: SPENDS }));
    expect(during.status).toBe(502);
    expectUnknown(during, after);
    expect(charged).toBe(0);
    expect((await buyAgain()).total).toBe(3);
  });

  it("a reset AFTER the sandbox charged: the retry hears 'outcome unknown' and nothing is charged twice", async () => {
    // The upstream has no idempotency of its own and no answer came back: the proxy cannot know
    // the spend happened, so it says so instead of sending it again.
    const { during, after, chargedDuring, charged } = await spendThrough(() =>
      faults.reset({ only: SPENDS, after: true }),
    );
    expect(during.status).toBe(502);
    expect(chargedDuring).toBe(3);
    expectUnknown(during, after);
    expect(charged).toBe(3);
  });

  it("truncated reads (the body errors or ends mid-JSON): retried, then 502; a count after the fault is fine", async () => {
    faults.truncate({ only: "/v2/contact/count" });
    const broken = await api.post("/api/v2/contact/count", COUNT);
    expect(broken.status).toBe(502);
    expect(broken.body).toEqual({ detail: MESSAGES.cutOff });
    expect(faults.reachedCount("/v2/contact/count")).toBe(3);
    faults.truncate({ only: "/v2/contact/count", mode: "end" });
    const short = await api.post<{ detail: string }>("/api/v2/contact/count", COUNT);
    expect(short.status).toBe(502);
    expect(short.body.detail).toBe(MESSAGES.unreadable);
    faults.clear();
    expect((await api.post("/api/v2/contact/count", COUNT)).status).toBe(200);
  });

  for (const mode of ["error", "end"] as const) {
    it(`a spend whose answer is cut (${mode}): charged once, and the same key never charges again`, async () => {
      const { during, after, chargedDuring, charged } = await spendThrough(() =>
        faults.truncate({ only: SPENDS, mode }),
      );
      expect(chargedDuring).toBe(3);
      expect(during.status).toBe(502);
      expect(during.body.code).toBe("UPSTREAM_ANSWER_CUT_OFF");
      expect(during.body.detail).toMatch(/cut off/);
      // The same key: the proxy answers from its journal, the sandbox is not asked again.
      expect(after.status).toBe(502);
      expect(after.headers.get("idempotent-replayed")).toBe("true");
      expect(charged).toBe(3);
    });
  }

  it("a 5xx burst: reads retried through it; a spend hit by a gateway page is not charged, and is final", async () => {
    faults.burst5xx(2);
    const count = await api.post("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(200); // 502, 503, then the sandbox
    expect(faults.caughtCount()).toBe(2);
    faults.burst5xx(5);
    const down = await api.post<{ detail: string }>("/api/v2/contact/count", COUNT);
    expect(down.status).toBe(502);
    expect(down.body.detail).toBe(MESSAGES.serverError);
    expect(down.text).not.toMatch(/nginx|10\.0\.3\.7|<html/);
  });

  it("a spend answered 503 (not done, by definition): not journaled, the same key goes through after", async () => {
    const { during, after, chargedDuring, charged } = await spendThrough(() =>
      faults.burst5xx(1, { only: SPENDS, statuses: [503] }),
    );
    expect(during.status).toBe(502);
    expect(chargedDuring).toBe(0);
    expect(after.status).toBe(200);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(charged).toBe(3);
  });

  it("a spend answered 500/502/504 (it may have been done): final, the same key replays it, never charges", async () => {
    for (const status of [500, 502, 504]) {
      const { during, after, charged } = await spendThrough(() =>
        faults.burst5xx(1, { only: SPENDS, statuses: [status] }),
      );
      expect(during.status).toBe(502);
      expect(during.body).toEqual({ detail: MESSAGES.serverError, code: "UPSTREAM_FAILED" });
      expect(after.status).toBe(502);
      expect(after.headers.get("idempotent-replayed")).toBe("true");
      expect(charged).toBe(0);
    }
  });

  it("hang: 504 after the timeout (not retried); a spend's outcome is unknown, and a new purchase charges once", async () => {
    faults.hang();
    const t0 = Date.now();
    const count = await api.post("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(504);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(faults.caughtCount()).toBe(1);
    const { during, after, chargedDuring, buyAgain } = await spendThrough(() =>
      faults.hang({ only: SPENDS }),
    );
    expect(during.status).toBe(504);
    expect(chargedDuring).toBe(0);
    expectUnknown(during, after);
    expect((await buyAgain()).total).toBe(3);
  });

  it("a short 429 storm is absorbed: the proxy waits for the reset and asks again", async () => {
    faults.storm429(1, { resetSeconds: 1 });
    const t0 = Date.now();
    const count = await api.post("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(200);
    expect(faults.caughtCount()).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it("a long 429 storm reaches the browser as 429 with a wait; a spend during it is not charged and goes through after", async () => {
    faults.storm429({ ms: 60_000 }, { resetSeconds: 1 });
    const count = await api.post<{ detail: string; code: string }>("/api/v2/contact/count", COUNT);
    expect(count.status).toBe(429);
    expect(count.body.code).toBe("RATE_LIMITED");
    // The live service sends no Retry-After: the proxy works it out from X-RateLimit-Reset.
    expect(Number(count.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const { during, after, chargedDuring, charged } = await spendThrough(() =>
      faults.storm429({ ms: 60_000 }, { resetSeconds: 1 }),
    );
    expect(during.status).toBe(429);
    expect(chargedDuring).toBe(0);
    expect(after.status).toBe(200);
    expect(charged).toBe(3);
  });

  it("a download cut mid-CSV never arrives as a shorter file that looks whole", async () => {
    const started = await api.post<{ exportId: string }>(
      "/api/v2/contact/export",
      { filter: null, maxRows: 400, reveal: "none" },
      { idempotencyKey: newKey() },
    );
    expect(started.status).toBe(202);
    const { exportId } = started.body;
    for (let i = 0; i < 100; i++) {
      const status = await api.get<{ status: string }>(`/api/v2/contact/export/${exportId}`);
      if (status.body.status === "COMPLETED") break;
      await sleep(100);
    }
    const path = `/api/v2/contact/export/${exportId}/download`;
    /** Status, declared length and what arrived (or that the body failed). */
    const fetchFile = async () => {
      const response = await fetch(`${proxy.url}${path}`, {
        headers: { "x-csrf": "1" },
        signal: AbortSignal.timeout(5000),
      });
      const declared = response.headers.get("content-length");
      try {
        const text = await response.text();
        return { status: response.status, declared, bytes: Buffer.byteLength(text), failed: false };
      } catch (error) {
        return {
          status: response.status,
          declared,
          bytes: -1,
          failed: (error as Error).name !== "TimeoutError",
        };
      }
    };
    const whole = await fetchFile();
    expect(whole.status).toBe(200);
    expect(whole.bytes).toBe(Number(whole.declared));

    // The body errors part-way: the browser's read fails (the app offers "Download again").
    faults.truncate({ only: /\/download$/ });
    const broken = await fetchFile();
    expect(broken.status).toBe(200);
    expect(broken.failed).toBe(true);

    // The body ends early but cleanly, short of its declared length.
    faults.truncate({ only: /\/download$/, mode: "end" });
    const t0 = Date.now();
    const short = await fetchFile();
    // Refused (when it ends before the answer has started) or failed, and at once: not a hang
    // waiting for bytes that never come.
    expect(short.status !== 200 || short.failed).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2000);
    faults.clear();
    expect((await fetchFile()).bytes).toBe(whole.bytes);
  });

  it("a 429 without a code (the live service's published body) on a spend: not journaled, goes through after", async () => {
    const { during, after, charged } = await spendThrough(() =>
      faults.storm429({ ms: 60_000 }, { bare: true, resetSeconds: 1, only: SPENDS }),
    );
    expect(during.status).toBe(429);
    expect(after.status).toBe(200);
    expect(charged).toBe(3);
  });
});
