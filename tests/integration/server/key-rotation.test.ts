/**
 * Key rotation through the proxy: the new key is stored (atomically, 0600) before the browser
 * hears `{ rotated: true, last4 }`, it is used from the next call on, it survives a restart, and
 * it never appears in an answer.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
});
afterAll(async () => {
  await sandbox?.close();
});

describe("rotation with the embedded sandbox (key from SANDBOX_KEY)", () => {
  let server: ProxyServer;
  afterAll(async () => {
    await server?.close();
  });

  it("rotates, stores the key in DATA_DIR/api-key (0600), uses it next, and survives a restart", async () => {
    server = await startProxy(upstream);
    let api = browser(server.url);
    expect((await api.get<{ keyLast4: string }>("/api/session")).body.keyLast4).toBe("demo");

    const answer = await api.post("/api/v2/account/api-keys/rotate", undefined, {
      idempotencyKey: "rotate-key-0001",
    });
    expect(answer.status).toBe(200);
    const { last4 } = answer.body as { rotated: boolean; last4: string };
    expect(answer.body).toEqual({ rotated: true, last4: expect.stringMatching(/^.{4}$/) });

    const file = path.join(server.dataDir, "api-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8")) as { key: string; upstream: string };
    expect(stored.key.endsWith(last4)).toBe(true);
    expect(stored.key).not.toBe("sbx_payg_demo");
    expect(answer.text).not.toContain(stored.key);

    // The next call carries the new key (the old one is dead at the sandbox).
    upstream.seen.length = 0;
    const credits = await api.get("/api/v2/credits");
    expect(credits.status).toBe(200);
    expect(upstream.seen[0]!.headers["x-key"]).toBe(stored.key);
    expect((await api.get<{ keyLast4: string }>("/api/session")).body.keyLast4).toBe(last4);

    // A repeat of the rotation replays the answer; it does not rotate again.
    const repeat = await api.post("/api/v2/account/api-keys/rotate", undefined, {
      idempotencyKey: "rotate-key-0001",
    });
    expect(repeat.body).toEqual({ rotated: true, last4 });
    expect(upstream.seen.filter((s) => s.path.endsWith("/rotate"))).toHaveLength(0);
    expect(server.logs.join("")).not.toContain(stored.key);

    // Restart on the same DATA_DIR: the stored key wins over SANDBOX_KEY.
    await server.close();
    server = await startProxy(upstream, { env: { DATA_DIR: server.dataDir } });
    api = browser(server.url);
    upstream.seen.length = 0;
    expect((await api.get("/api/v2/credits")).status).toBe(200);
    expect(upstream.seen[0]!.headers["x-key"]).toBe(stored.key);

    // v1's GET rotation works the same way.
    const v1 = await api.get("/api/v1/new-api-key", { idempotencyKey: "rotate-key-0002" });
    expect(v1.status).toBe(200);
    const again = JSON.parse(readFileSync(file, "utf8")) as { key: string };
    expect(again.key).not.toBe(stored.key);
    expect(v1.body).toEqual({ rotated: true, last4: again.key.slice(-4) });
    expect((await api.get("/api/v2/credits")).status).toBe(200);
  });
});

describe("rotation with a live-style key file", () => {
  it("rewrites API_KEY_FILE atomically with mode 0600 and uses the new key", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "proxy-keyfile-"));
    const keyFile = path.join(dir, "key.txt");
    writeFileSync(keyFile, "live_old_key_AAAA\n", { mode: 0o644 });
    let next = 0;
    const live = recording(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/v2/account/api-keys/rotate")
        return json({ api_key: `live_new_key_${++next}XYZ` });
      return json({ credits: 5, plan: "PAYG" });
    });
    const server = await startProxy(live, {
      env: { UPSTREAM_URL: "https://api.example.test", API_KEY_FILE: keyFile },
    });
    try {
      const api = browser(server.url);
      const session = await api.get("/api/session");
      expect(session.body).toEqual({
        mode: "live",
        plan: "PAYG",
        user: null,
        role: "admin",
        keyLast4: "AAAA",
      });
      expect(live.seen[0]!.headers["x-key"]).toBe("live_old_key_AAAA");

      const rotated = await api.post("/api/v2/account/api-keys/rotate", undefined, {
        idempotencyKey: "live-rotate-01",
      });
      expect(rotated.body).toEqual({ rotated: true, last4: "1XYZ" });
      expect(readFileSync(keyFile, "utf8").trim()).toBe("live_new_key_1XYZ");
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      await api.get("/api/v2/credits");
      expect(live.seen.at(-1)!.headers["x-key"]).toBe("live_new_key_1XYZ");
    } finally {
      await server.close();
    }
  });

  it("never carries a key stored for one upstream over to another", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "proxy-keycross-"));
    writeFileSync(
      path.join(dir, "api-key"),
      JSON.stringify({ upstream: "sandbox", key: "sbx_rotated_1234" }),
    );
    const live = recording(async () => json({ credits: 5, plan: "AYCE" }));
    const server = await startProxy(live, {
      env: { DATA_DIR: dir, UPSTREAM_URL: "https://api.example.test", API_KEY: "live_env_key_9999" },
    });
    try {
      await browser(server.url).get("/api/v2/credits");
      expect(live.seen[0]!.headers["x-key"]).toBe("live_env_key_9999");
    } finally {
      await server.close();
    }
  });
});

describe("a rotation that cannot lock the team out", () => {
  it("is not sent when the new key could not be stored (503); the old key keeps working", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "key-store-"));
    const keyDir = path.join(dir, "keys");
    const keyFile = path.join(keyDir, "api-key");
    mkdirSync(keyDir);
    writeFileSync(keyFile, "sbx_payg_demo\n");
    // The live service's settings, answered by a sandbox of its own (the others rotated the demo
    // keys of the shared one): the key lives in API_KEY_FILE.
    const own = await startSandbox();
    const seen = recording((request) => own.sandbox.fetch(request));
    const server = await startProxy(seen, {
      env: { UPSTREAM_URL: "http://127.0.0.1:9", API_KEY_FILE: keyFile },
    });
    try {
      // The key's folder goes away and a file takes its place: nothing can be written there now.
      rmSync(keyDir, { recursive: true });
      writeFileSync(keyDir, "in the way");
      const api = browser(server.url);
      const refused = await api.post("/api/v2/account/api-keys/rotate", undefined, {
        idempotencyKey: "rotate-unwritable-1",
      });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        code: "KEY_STORE_UNWRITABLE",
        detail: expect.stringContaining("not rotated"),
      });
      expect(seen.seen.some((s) => s.path.includes("api-key"))).toBe(false);
      expect((await api.get("/api/v2/credits")).status).toBe(200);
    } finally {
      await server.close();
      await own.sandbox.close();
      rmSync(keyDir, { force: true });
    }
  });

  it("one cut off between the service and the key store is reported at the next start, with the way out", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "key-cut-"));
    // The service rotates (the old key dies) and its answer never reaches the proxy.
    let hold = true;
    const held = recording(async (request) => {
      const answer = await sandbox.fetch(request);
      if (hold && new URL(request.url).pathname === "/v2/account/api-keys/rotate")
        await new Promise(() => {});
      return answer;
    });
    const first = await startProxy(held, { env: { DATA_DIR: dataDir, SANDBOX_KEY: "sbx_ayce_demo" } });
    void browser(first.url)
      .post("/api/v2/account/api-keys/rotate", undefined, { idempotencyKey: "rotate-cut-off-1" })
      .catch(() => {});
    while (!held.seen.some((s) => s.path === "/v2/account/api-keys/rotate")) await sleep(20);
    await first.proxy.close();
    hold = false;

    const second = await startProxy(held, { env: { DATA_DIR: dataDir, SANDBOX_KEY: "sbx_ayce_demo" } });
    try {
      expect(second.logs.join("")).toContain("A key rotation was cut off");
      const refused = await browser(second.url).post<{ detail: string }>("/api/v2/contact/count", {
        filter: null,
      });
      expect(refused.status).toBe(502);
      expect(refused.body.detail).toMatch(
        /key rotation was cut off.*create a key in the service's dashboard/,
      );
    } finally {
      await second.close();
    }
  });

  it("one whose answer never comes is said at once, without waiting for a restart", async () => {
    const own = await startSandbox();
    const held = recording(async (request) => {
      const answer = await own.sandbox.fetch(request);
      if (new URL(request.url).pathname === "/v2/account/api-keys/rotate") await new Promise(() => {});
      return answer;
    });
    const server = await startProxy(held, { env: { UPSTREAM_TIMEOUTS: "rotateV2=300" } });
    try {
      const api = browser(server.url);
      const lost = await api.post("/api/v2/account/api-keys/rotate", undefined, {
        idempotencyKey: "rotate-timeout-1",
      });
      expect(lost.status).toBe(504);
      expect(lost.body).toMatchObject({ code: "OUTCOME_UNKNOWN" });
      const refused = await api.post<{ detail: string }>("/api/v2/contact/count", { filter: null });
      expect(refused.status).toBe(502);
      expect(refused.body.detail).toMatch(/key rotation was cut off.*api-key/);
    } finally {
      await server.close();
      await own.sandbox.close();
    }
  });
});
