/**
 * Spend safety over the sandbox: every credit-spending call needs an Idempotency-Key; repeats,
 * concurrent or later, even after a proxy restart, get the first answer and never reach the
 * upstream twice (the sandbox's balance proves it); a key reused with other details is a 409.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  browser,
  json,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

let sandbox: Sandbox;
const upstream = recording((request) => sandbox.fetch(request));
const previewCalls = () => upstream.seen.filter((s) => s.path === "/v2/contact/preview").length;
const filter = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

async function balance(api: ReturnType<typeof browser>): Promise<number> {
  const answer = await api.get<{ credits: number }>("/api/v2/credits");
  expect(answer.status).toBe(200);
  return answer.body.credits;
}

let server: ProxyServer;
let api: ReturnType<typeof browser>;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  server = await startProxy(upstream);
  api = browser(server.url);
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

describe("Idempotency-Key on spends", () => {
  it("is required on every spending operation (428 { detail }), and the upstream is not called", async () => {
    const missing = await api.post("/api/v2/contact/preview", { filter, reveal: "none", limit: 2 });
    expect(missing.status).toBe(428);
    expect(missing.body).toEqual({ detail: expect.stringContaining("Idempotency-Key") });
    for (const bad of ["short", "has space in it", "x".repeat(129), "bad/slash/key"]) {
      const answer = await api.post(
        "/api/v2/contact/preview",
        { filter, reveal: "none" },
        { idempotencyKey: bad },
      );
      expect(answer.status, bad).toBe(428);
    }
    expect((await api.post("/api/v2/contact/enrich", { personIds: ["x"], reveal: "none" })).status).toBe(428);
    expect((await api.post("/api/v2/account/api-keys/rotate")).status).toBe(428);
    expect((await api.get("/api/v1/new-api-key")).status).toBe(428);
    expect(upstream.seen).toHaveLength(0);
  });

  it("sends 20 concurrent duplicates upstream once; all 20 get the same answer; credits are spent once", async () => {
    const before = await balance(api);
    const key = "dup-preview-0001";
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post("/api/v2/contact/preview", { filter, reveal: "email", limit: 5 }, { idempotencyKey: key }),
      ),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(previewCalls()).toBe(1);
    const first = answers[0]!.body as { creditsCharged: number; creditsRemaining: number; rows: unknown[] };
    expect(first.rows).toHaveLength(5);
    expect(first.creditsCharged).toBeGreaterThan(0);
    const after = await balance(api);
    expect(before - after).toBe(first.creditsCharged);
    expect(after).toBe(first.creditsRemaining);

    // Later repeats too, marked as replays.
    const later = await api.post(
      "/api/v2/contact/preview",
      { filter, reveal: "email", limit: 5 },
      { idempotencyKey: key },
    );
    expect(later.text).toBe(answers[0]!.text);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(previewCalls()).toBe(1);
    expect(await balance(api)).toBe(after);
  });

  it("refuses the same key with different details (409), and keeps keys apart per operation", async () => {
    const key = "conflict-key-01";
    const first = await api.post(
      "/api/v2/contact/preview",
      { filter, reveal: "none", limit: 1 },
      { idempotencyKey: key },
    );
    expect(first.status).toBe(200);
    const other = await api.post(
      "/api/v2/contact/preview",
      { filter, reveal: "none", limit: 2 },
      { idempotencyKey: key },
    );
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ detail: expect.stringContaining("different") });
    // Same meaning in another key order is the same request.
    const reordered = await api.post(
      "/api/v2/contact/preview",
      { limit: 1, reveal: "none", filter },
      { idempotencyKey: key },
    );
    expect(reordered.status).toBe(200);
    expect(reordered.text).toBe(first.text);
    // The same key on another operation is another request.
    const enrich = await api.post(
      "/api/v2/contact/enrich",
      { personIds: ["nobody"], reveal: "none" },
      { idempotencyKey: key },
    );
    expect(enrich.status).toBe(200);
  });

  it("answers a repeat after a proxy restart from the journal in DATA_DIR", async () => {
    const key = "restart-key-0001";
    const body = { filter, reveal: "none", limit: 3 };
    const first = await api.post("/api/v2/contact/preview", body, { idempotencyKey: key });
    expect(first.status).toBe(200);
    const spent = await balance(api);
    const calls = previewCalls();

    // Journal entries are files of their own, private to the proxy's user.
    const dir = path.join(server.dataDir, "idempotency");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);

    await server.close();
    server = await startProxy(upstream, { env: { DATA_DIR: server.dataDir } });
    api = browser(server.url);
    const again = await api.post("/api/v2/contact/preview", body, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(previewCalls()).toBe(calls);
    expect(await balance(api)).toBe(spent);
    const conflict = await api.post(
      "/api/v2/contact/preview",
      { ...body, limit: 4 },
      { idempotencyKey: key },
    );
    expect(conflict.status).toBe(409);
  });

  it("stores business refusals as the answer (a 402 stays a 402 for that key)", async () => {
    // Every row with email and mobile revealed costs far more than the demo account holds.
    const body = { filter: null, maxRows: 50_000, reveal: "both" };
    const key = "refusal-key-001";
    const exportCalls = () => upstream.seen.filter((s) => s.path === "/v2/contact/export").length;
    const first = await api.post("/api/v2/contact/export", body, { idempotencyKey: key });
    expect(first.status).toBe(402);
    expect(first.body).toMatchObject({ code: "INSUFFICIENT_CREDITS" });
    const second = await api.post("/api/v2/contact/export", body, { idempotencyKey: key });
    expect(second.status).toBe(402);
    expect(second.text).toBe(first.text);
    expect(exportCalls()).toBe(1);
  });
});

describe("unknown outcomes", () => {
  it("stores nothing on a network failure, so the same key can be retried; then replays", async () => {
    let fail = true;
    const flaky = recording(async () => {
      if (fail) throw new TypeError("fetch failed");
      return json({ rows: [], matched: 0, notFound: ["x"], creditsCharged: 0, creditsRemaining: 10 });
    });
    const own = await startProxy(flaky);
    try {
      const client = browser(own.url);
      const body = { personIds: ["x"], reveal: "none" };
      const first = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0001" });
      expect(first.status).toBe(502);
      expect(flaky.seen).toHaveLength(1); // spends are never retried by the proxy
      fail = false;
      const retry = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0001" });
      expect(retry.status).toBe(200);
      const replay = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0001" });
      expect(replay.text).toBe(retry.text);
      expect(flaky.seen).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it("forgets entries after the TTL", async () => {
    const counting = recording(async () =>
      json({ rows: [], matched: 0, notFound: [], creditsCharged: 0, creditsRemaining: 1 }),
    );
    const own = await startProxy(counting, { env: { IDEMPOTENCY_TTL_MS: "1000" } });
    try {
      const client = browser(own.url);
      const body = { emails: ["a@b.co"], reveal: "none" };
      await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "ttl-key-00001" });
      await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "ttl-key-00001" });
      expect(counting.seen).toHaveLength(1);
      await sleep(1100);
      await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "ttl-key-00001" });
      expect(counting.seen).toHaveLength(2);
    } finally {
      await own.close();
    }
  });
});
