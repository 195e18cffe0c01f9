/**
 * The Account screen's operations through the proxy, with the app's own client code (ky, the
 * contract's schemas) sending them: the balance (v2, and v1 when v2 is absent; a v1 410 means v2),
 * the View budget the proxy remembers from the last View answer (and forgets at UTC midnight), and
 * key rotation (the old key dead at the sandbox, nothing of any key in any answer).
 * Rotation's storage, restart and replay are key-rotation.test.ts's; the guard's rules access.test.ts's.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../src/app/api/api-error";
import { getCredits, NO_BALANCE_OPERATION } from "../../../src/app/api/credits";
import { forgetGenerations } from "../../../src/app/api/generations";
import { getSession } from "../../../src/app/api/session";
import { getLimits } from "../../../src/app/features/account/limits";
import { rotateKey, rotationError } from "../../../src/app/features/account/rotate-key";
import type { Sandbox } from "../../../src/sandbox/app";
import { hashPassword } from "../../../src/server/team/passwords";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  recording,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

/** Every answer the app's client received: status, headers and body, for the leak search. */
interface Received {
  url: string;
  status: number;
  headers: string;
  body: string;
}

const received: Received[] = [];

/**
 * Points the app's client (ky with prefix `/api`) at a proxy: its relative URLs resolve against the
 * proxy's address, as in a page, and every answer is recorded. Called after the proxy listens (the
 * Node adapter replaces the global Request when a server starts).
 */
function pointClientAt(server: ProxyServer) {
  const RealRequest = globalThis.Request;
  const realFetch = globalThis.fetch;
  class PageRequest extends RealRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" && input.startsWith("/") ? `${server.url}${input}` : input, init);
    }
  }
  vi.stubGlobal("Request", PageRequest);
  vi.stubGlobal("fetch", async (input: Request, init?: RequestInit) => {
    const response = await realFetch(input, init);
    const copy = response.clone();
    received.push({
      url: input.url,
      status: response.status,
      headers: [...copy.headers].map(([n, v]) => `${n}: ${v}`).join("\n"),
      body: await copy.text(),
    });
    return response;
  });
}

beforeEach(() => {
  received.length = 0;
  forgetGenerations();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

let sandbox: Sandbox;
const upstream = recording((request) => sandbox.fetch(request));

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
});
afterAll(async () => {
  await sandbox?.close();
});

const VIEW = { limit: 7 };

describe("balance", () => {
  let server: ProxyServer;
  beforeAll(async () => {
    server = await startProxy(upstream);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("reads v2's credits and plan, with the rate limit its answer carried", async () => {
    pointClientAt(server);
    const before = Date.now();
    const credits = await getCredits();
    expect(credits).toMatchObject({ credits: 10_000, plan: "PAYG", source: "v2/credits" });
    expect(credits.rateLimit).not.toBeNull();
    const rate = credits.rateLimit!;
    expect(rate.limit).toBe(100_000); // the test sandbox's per-minute limit
    expect(rate.remaining).toBeGreaterThanOrEqual(0);
    expect(rate.remaining).toBeLessThan(rate.limit);
    // X-RateLimit-Reset is unix seconds: within the next minute.
    expect(rate.resetAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(rate.resetAt).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(received[0]!.url).toBe(`${server.url}/api/v2/credits`);
    expect(received[0]!.headers).toMatch(/x-ratelimit-remaining: \d+/);
    // The published v2 balance passes too.
    const balance = await browser(server.url).get("/api/v2/account/balance");
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({ credits: 10_000 });
  });
});

describe("balance when v2 is absent (a fake upstream)", () => {
  /** Answers each balance path with the status given (200 answers a balance), counting calls. */
  function upstreamWith(statuses: Record<string, number>, body: object = { credits: 42, plan: "AYCE" }) {
    return fakeUpstream((request) => {
      const status = statuses[new URL(request.url).pathname] ?? 404;
      const headers = { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "57", "x-ratelimit-reset": "1" };
      if (status === 200) return json(body, 200, headers);
      const detail = { 404: "Not Found", 405: "Method Not Allowed", 410: "Gone" }[status] ?? "No";
      return json({ detail }, status, headers);
    });
  }

  async function withProxy(fake: ReturnType<typeof fakeUpstream>, run: () => Promise<void>) {
    const server = await startProxy(fake, {
      env: { UPSTREAM_URL: "https://api.example.test", API_KEY: "live_test_key_0001" },
    });
    pointClientAt(server);
    try {
      await run();
    } finally {
      await server.close();
    }
  }

  it("falls back to v1 when v2 answers 404 and 405, and the proxy passes each status through", async () => {
    const fake = upstreamWith({ "/v2/credits": 404, "/v2/account/balance": 405, "/v1/credits": 200 });
    await withProxy(fake, async () => {
      const credits = await getCredits();
      expect(credits).toMatchObject({ credits: 42, plan: "AYCE", source: "v1/credits" });
      // A reset given as seconds from now is read as such.
      expect(credits.rateLimit).toMatchObject({ limit: 60, remaining: 57 });
      expect(credits.rateLimit!.resetAt - credits.rateLimit!.seenAt).toBe(1000);
      expect(received.map((r) => [new URL(r.url).pathname, r.status])).toEqual([
        ["/api/v2/credits", 404],
        ["/api/v2/account/balance", 405],
        ["/api/v1/credits", 200],
      ]);
      // Next time the answering path is asked first.
      const calls = fake.seen.length;
      expect((await getCredits()).source).toBe("v1/credits");
      expect(fake.seen.slice(calls).map((s) => s.path)).toEqual(["/v1/credits"]);
      // The session's plan (the proxy's own probe) falls back the same way.
      expect((await getSession()).plan).toBe("AYCE");
    });
  });

  it("reads the published v2 balance (credits without a plan) and never asks v1", async () => {
    const fake = upstreamWith(
      { "/v2/credits": 404, "/v2/account/balance": 200, "/v1/credits": 410 },
      { credits: 5 },
    );
    await withProxy(fake, async () => {
      expect(await getCredits()).toMatchObject({ credits: 5, plan: null, source: "v2/account/balance" });
      expect(fake.seen.some((s) => s.path.startsWith("/v1/"))).toBe(false);
    });
  });

  it("a v1 410 means v2: with no v2 balance either, a readable error, not a v1 answer", async () => {
    const fake = upstreamWith({ "/v1/credits": 410 });
    await withProxy(fake, async () => {
      const error = await getCredits().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(NO_BALANCE_OPERATION);
      expect((error as ApiError).message).toMatch(/no balance operation/);
      expect(received.map((r) => r.status)).toEqual([404, 404, 410]);
    });
  });

  it("after v1 retires (410), goes back to v2", async () => {
    const statuses: Record<string, number> = { "/v2/credits": 404, "/v1/credits": 200 };
    const fake = upstreamWith(statuses);
    await withProxy(fake, async () => {
      expect((await getCredits()).source).toBe("v1/credits");
      statuses["/v1/credits"] = 410;
      statuses["/v2/credits"] = 200;
      expect((await getCredits()).source).toBe("v2/credits");
      expect(fake.seen.slice(-2).map((s) => s.path)).toEqual(["/v1/credits", "/v2/credits"]);
    });
  });
});

describe("the day's View budget, as the proxy last saw it", () => {
  let server: ProxyServer;
  let offset = 0;
  beforeAll(async () => {
    server = await startProxy(upstream, { deps: { now: () => Date.now() + offset } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is unknown before any View, asking spends nothing, and it is behind the browser guard", async () => {
    pointClientAt(server);
    const calls = upstream.seen.length;
    expect((await getLimits()).viewBudget).toBeNull();
    expect(upstream.seen.length).toBe(calls);
    const refused = await browser(server.url).get("/api/limits", { noCsrf: true });
    expect(refused.status).toBe(403);
  });

  it("equals the X-FreePreview-Remaining of the latest View, and is forgotten at the next UTC midnight", async () => {
    pointClientAt(server);
    const api = browser(server.url);
    const first = await api.post("/api/v2/contact/view", VIEW);
    expect(first.status).toBe(200);
    const seen = Number(first.headers.get("x-freepreview-remaining"));
    expect(seen).toBeLessThan(100_000);
    const limits = await getLimits();
    expect(limits.viewBudget).toMatchObject({ remaining: seen });
    const seenAt = Date.parse(limits.viewBudget!.seenAt);
    expect(Math.abs(seenAt - Date.now())).toBeLessThan(5000);
    const midnight = new Date(seenAt);
    midnight.setUTCHours(24, 0, 0, 0);
    expect(limits.viewBudget!.resetAt).toBe(midnight.toISOString());

    // The latest View wins.
    const second = await api.post("/api/v2/contact/view", VIEW);
    const next = Number(second.headers.get("x-freepreview-remaining"));
    expect(next).toBe(seen - 7);
    expect((await getLimits()).viewBudget?.remaining).toBe(next);

    // A second before midnight it still stands; at midnight it is gone (the budget reset).
    offset = midnight.getTime() - 1000 - Date.now();
    expect((await getLimits()).viewBudget?.remaining).toBe(next);
    offset = midnight.getTime() - Date.now();
    expect((await getLimits()).viewBudget).toBeNull();
    offset = 0;
  });

  it("learns from the cap's 429 too (0 left), and ignores a missing or unreadable header", async () => {
    let header: string | null = "lots";
    let status = 200;
    const fake = fakeUpstream(() => {
      const headers: Record<string, string> = header === null ? {} : { "x-freepreview-remaining": header };
      return status === 200
        ? json({ rows: [], columns: [], columnLabels: {}, rowCount: 0, limit: 1 }, 200, headers)
        : json(
            { detail: "cap", code: "FREE_PREVIEW_CAP_REACHED", resetAt: "2030-01-01T00:00:00Z" },
            429,
            headers,
          );
    });
    const live = await startProxy(fake, {
      env: { UPSTREAM_URL: "https://api.example.test", API_KEY: "live_test_key_0002" },
    });
    try {
      const api = browser(live.url);
      const budget = async () =>
        (await api.get<{ viewBudget: { remaining: number } | null }>("/api/limits")).body;
      await api.post("/api/v2/contact/view", { limit: 1 });
      expect((await budget()).viewBudget).toBeNull();
      header = "12";
      await api.post("/api/v2/contact/view", { limit: 1 });
      expect((await budget()).viewBudget?.remaining).toBe(12);
      header = null;
      await api.post("/api/v2/contact/view", { limit: 1 });
      expect((await budget()).viewBudget?.remaining).toBe(12);
      header = "0";
      status = 429;
      expect((await api.post("/api/v2/contact/view", { limit: 1 })).status).toBe(429);
      expect((await budget()).viewBudget?.remaining).toBe(0);
    } finally {
      await live.close();
    }
  });

  it("asks sign-in of a deployment that requires it", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "account-users-"));
    const usersFile = path.join(dir, "users");
    writeFileSync(usersFile, `ada:${await hashPassword("ada-password-1")}\n`);
    const guarded = await startProxy(upstream, { env: { USERS_FILE: usersFile } });
    try {
      const api = browser(guarded.url);
      expect((await api.get("/api/limits")).status).toBe(401);
      expect((await api.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
      const limits = await api.get<{ viewBudget: unknown }>("/api/limits");
      expect(limits.status).toBe(200);
      expect(limits.body.viewBudget).toBeNull();
    } finally {
      await guarded.close();
    }
  });
});

describe("key rotation with the app's client", () => {
  it("rotates: { rotated, last4 }, the old key dead at the sandbox, the budget kept, no key in any answer", async () => {
    const server = await startProxy(upstream);
    pointClientAt(server);
    try {
      const api = browser(server.url);
      await api.post("/api/v2/contact/view", VIEW);
      const budget = (await getLimits()).viewBudget;
      expect(budget).not.toBeNull();
      expect((await getSession()).keyLast4).toBe("demo");

      const rotated = await rotateKey("account-rotate-0001");
      const stored = (
        JSON.parse(readFileSync(path.join(server.dataDir, "api-key"), "utf8")) as { key: string }
      ).key;
      expect(rotated).toEqual({ rotated: true, last4: stored.slice(-4) });
      expect(stored).not.toBe("sbx_payg_demo");

      // The old key is dead at the sandbox; the proxy goes on with the new one.
      const old = await sandbox.fetch(
        new Request("http://sandbox.test/v2/credits", { headers: { "x-key": "sbx_payg_demo" } }),
      );
      expect(old.status).toBe(401);
      expect((await getSession()).keyLast4).toBe(rotated.last4);
      expect(await getCredits()).toMatchObject({ credits: 10_000, plan: "PAYG" });
      // Same account: the remembered budget carries over, and a View with the new key agrees.
      expect((await getLimits()).viewBudget?.remaining).toBe(budget!.remaining);
      const view = await api.post("/api/v2/contact/view", VIEW);
      expect(Number(view.headers.get("x-freepreview-remaining"))).toBe(budget!.remaining - 7);

      // Nothing of either key (five characters or more of it) in any answer the client got.
      expect(received.length).toBeGreaterThanOrEqual(6);
      const everything = received.map((r) => `${r.headers}\n${r.body}`).join("\n");
      for (const key of [stored, "sbx_payg_demo"])
        for (let at = 0; at + 5 <= key.length; at++) expect(everything).not.toContain(key.slice(at, at + 5));
    } finally {
      await server.close();
    }
  });

  it("a view-only key gets 403, explained, and keeps working", async () => {
    const server = await startProxy(upstream, { env: { SANDBOX_KEY: "sbx_viewonly_demo" } });
    pointClientAt(server);
    try {
      const error = await rotateKey("account-rotate-0002").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(403);
      expect(rotationError(error)).toMatch(/not rotated.*view-only.*still works/);
      expect(await getCredits()).toMatchObject({ credits: expect.any(Number) });
      expect((await getSession()).keyLast4).toBe("demo");
    } finally {
      await server.close();
    }
  });

  it("falls back to v1's GET when v2 has no rotation (404), with an Idempotency-Key on both", async () => {
    let next = 0;
    const fake = fakeUpstream((request) => {
      const url = new URL(request.url);
      if (url.pathname === "/v2/account/api-keys/rotate") return json({ detail: "Not Found" }, 404);
      if (url.pathname === "/v1/new-api-key") return json({ api_key: `live_new_key_${++next}WXYZ` });
      return json({ credits: 1, plan: "PAYG" });
    });
    const server = await startProxy(fake, {
      env: { UPSTREAM_URL: "https://api.example.test", API_KEY: "live_old_key_AAAA" },
    });
    pointClientAt(server);
    try {
      expect(await rotateKey("account-rotate-0003")).toEqual({ rotated: true, last4: "WXYZ" });
      expect(fake.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
        "POST /v2/account/api-keys/rotate",
        "GET /v1/new-api-key",
      ]);
      expect(fake.seen[1]!.headers["x-key"]).toBe("live_old_key_AAAA");
      // A repeat with the same key (a lost answer, tried again) replays; it does not rotate twice.
      expect(await rotateKey("account-rotate-0003")).toEqual({ rotated: true, last4: "WXYZ" });
      expect(next).toBe(1);
      expect(received.map((r) => r.body).join("\n")).not.toContain("live_new_key_1WXYZ");
    } finally {
      await server.close();
    }
  });
});
