/**
 * Spend safety over the sandbox: every credit-spending call needs an Idempotency-Key; repeats,
 * concurrent or later, even after a proxy restart, get the first answer and never reach the
 * upstream twice (the sandbox's balance proves it); a key reused with other details is a 409; an
 * outcome the proxy cannot know is said (409 OUTCOME_UNKNOWN), never sent again by itself; an
 * export cut off by a crash is found again; with no journal, nothing is sent (503).
 */
import { statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
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
  // A folder of its own: the restart test reopens the same database.
  server = await startProxy(upstream, {
    env: { DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "journal-")) },
  });
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

  it("refuses the same key with different details or for another operation (409)", async () => {
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
    // The same key on another operation is a mistake too (Stripe's rule): nothing is sent.
    const calls = upstream.seen.length;
    const enrich = await api.post(
      "/api/v2/contact/enrich",
      { personIds: ["nobody"], reveal: "none" },
      { idempotencyKey: key },
    );
    expect(enrich.status).toBe(409);
    expect(enrich.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    expect(upstream.seen.length).toBe(calls);
  });

  it("answers a repeat after a proxy restart from the journal in the database", async () => {
    const key = "restart-key-0001";
    const body = { filter, reveal: "none", limit: 3 };
    const first = await api.post("/api/v2/contact/preview", body, { idempotencyKey: key });
    expect(first.status).toBe(200);
    const spent = await balance(api);
    const calls = previewCalls();

    // The embedded database (paid answers inside) is private to the proxy's user.
    if (server.proxy.database.kind === "embedded")
      expect(statSync(path.join(server.dataDir, "db")).mode & 0o777).toBe(0o700);

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

const enrichAnswer = { rows: [], matched: 0, notFound: ["x"], creditsCharged: 0, creditsRemaining: 10 };

describe("unknown outcomes", () => {
  it("a request that may have arrived and got no answer is never sent again: OUTCOME_UNKNOWN", async () => {
    let fail = true;
    const flaky = recording(async () => {
      if (fail) throw new TypeError("fetch failed");
      return json(enrichAnswer);
    });
    const own = await startProxy(flaky);
    try {
      const client = browser(own.url);
      const body = { personIds: ["x"], reveal: "none" };
      const first = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0001" });
      expect(first.status).toBe(502);
      expect(first.body).toMatchObject({
        code: "OUTCOME_UNKNOWN",
        detail: expect.stringContaining("balance"),
      });
      fail = false;
      const retry = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0001" });
      expect(retry.status).toBe(409);
      expect(retry.body).toMatchObject({ code: "OUTCOME_UNKNOWN" });
      expect(flaky.seen).toHaveLength(1); // never sent again, by the proxy or by the retry
      // A new purchase is a new key, and goes through.
      const fresh = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "flaky-key-0002" });
      expect(fresh.status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it("a connection that was never made charged nothing: the same key may be sent again", async () => {
    let fail = true;
    const refused = recording(async () => {
      if (fail)
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
        });
      return json(enrichAnswer);
    });
    const own = await startProxy(refused);
    try {
      const client = browser(own.url);
      const body = { personIds: ["x"], reveal: "none" };
      const first = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "refused-key-01" });
      expect(first.status).toBe(502);
      expect(first.body).not.toMatchObject({ code: "OUTCOME_UNKNOWN" });
      fail = false;
      const retry = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "refused-key-01" });
      expect(retry.status).toBe(200);
      const replay = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "refused-key-01" });
      expect(replay.text).toBe(retry.text);
      expect(refused.seen).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it("forgets answers after the TTL, but never sends a key the ledger holds again", async () => {
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
      const late = await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "ttl-key-00001" });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ code: "PURCHASE_ALREADY_MADE" });
      // The answer (paid data) went with the entry; the key is refused from the ledger, in words.
      const journal = await own.proxy.database.db.selectFrom("spend_journal").select("id").execute();
      expect(journal).toEqual([]);
      expect(counting.seen).toHaveLength(1);
      // A new key is a new purchase.
      await client.post("/api/v2/contact/enrich", body, { idempotencyKey: "ttl-key-00002" });
      expect(counting.seen).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it("refuses to spend when the journal cannot be written (503), and sends nothing", async () => {
    const counting = recording(async () => json(enrichAnswer));
    const own = await startProxy(counting);
    try {
      const client = browser(own.url);
      await own.proxy.database.db.schema.dropTable("spend_journal").execute(); // as good as a dead database
      const answer = await client.post(
        "/api/v2/contact/enrich",
        { personIds: ["x"], reveal: "none" },
        { idempotencyKey: "no-journal-01" },
      );
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({
        code: "JOURNAL_UNAVAILABLE",
        detail: expect.stringContaining("nothing charged"),
      });
      expect(counting.seen).toHaveLength(0);
      // Reads need no journal.
      expect((await client.post("/api/v2/contact/count", { filter })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe("an export cut off by a crash", () => {
  it("is found again in the export list by the tag in its name, not bought twice", async () => {
    // The first proxy sends the export, the sandbox makes (and charges) it, and the answer never
    // comes back: the proxy is gone before it could record it.
    let hold = true;
    const held = recording(async (request) => {
      const answer = await sandbox.fetch(request);
      if (hold && new URL(request.url).pathname === "/v2/contact/export") await new Promise(() => {});
      return answer;
    });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "export-crash-"));
    const first = await startProxy(held, { env: { DATA_DIR: dataDir } });
    const body = { filter, maxRows: 20, reveal: "none", name: "Germany, first 20" };
    const key = "export-crash-key-1";
    const before = await balance(browser(first.url));
    void browser(first.url)
      .post("/api/v2/contact/export", body, { idempotencyKey: key })
      .catch(() => {});
    while (!held.seen.some((s) => s.path === "/v2/contact/export")) await sleep(20);
    await sleep(100);
    await first.proxy.close(); // the instance is gone; its pending entry stays
    hold = false;

    const second = await startProxy(held, { env: { DATA_DIR: dataDir } });
    try {
      const client = browser(second.url);
      const retry = await client.post<{ exportId: string; credits: number }>("/api/v2/contact/export", body, {
        idempotencyKey: key,
      });
      expect(retry.status).toBe(202);
      const list = await client.get<{ exports: { exportId: string; name: string }[] }>(
        "/api/v2/contact/exports",
      );
      const made = list.body.exports.filter((e) => e.name.startsWith("Germany, first 20"));
      expect(made).toHaveLength(1);
      expect(made[0]!.exportId).toBe(retry.body.exportId);
      expect(held.seen.filter((s) => s.path === "/v2/contact/export")).toHaveLength(1);
      expect(await balance(client)).toBe(before - retry.body.credits);
    } finally {
      await second.close();
    }
  });
});
