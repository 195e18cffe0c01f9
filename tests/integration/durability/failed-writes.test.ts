/**
 * The embedded database's disk fails under a running proxy (`npm start` as it ships, the bundle):
 * every write of the database fails with EIO, or ENOSPC as on a full disk, or every flush to disk
 * fails (the database waits for it before a commit is answered), injected by
 * `tests/support/failing-writes.mjs` into the database's worker thread. PostgreSQL takes a failed
 * log write as a PANIC; the proxy must answer the spend with a 503 within a second (nothing sent),
 * keep answering free requests, and spend again by itself once writes succeed, never twice.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedDatabaseFolder } from "../../support/database-image";
import { freePort, startProcess, stopProcess } from "../../support/processes";
import { builtProduct } from "../../support/product-build";
import { type SandboxServer, startSandboxServer } from "../../support/sandbox-server";

const KEY = "sbx_payg_demo";
const FAULT = fileURLToPath(new URL("../../support/failing-writes.mjs", import.meta.url));
const filter = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

const root = mkdtempSync(path.join(os.tmpdir(), "ab-failed-writes-"));
const trigger = path.join(root, "fail-writes");
let sandbox: SandboxServer;
let proxy: { child: ChildProcess; url: string; logFile: string };

async function call(pathname: string, body?: unknown, key?: string) {
  const started = performance.now();
  const response = await fetch(`${proxy.url}/api${pathname}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "x-csrf": "1",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key ? { "idempotency-key": key } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  return {
    status: response.status,
    body: answer,
    ms: performance.now() - started,
    headers: response.headers,
  };
}

const log = () => readFileSync(proxy.logFile, "utf8");
/** How many times the proxy has said that it opened its database again. */
const reopenings = () => log().split("the embedded database was opened again: spending goes on").length - 1;

const preview = (key: string) => call("/v2/contact/preview", { filter, reveal: "email", limit: 3 }, key);

/** The service's own balance, past the proxy. */
async function balance(): Promise<number> {
  const response = await fetch(`${sandbox.url}/v2/credits`, { headers: { "x-key": KEY } });
  return ((await response.json()) as { credits: number }).credits;
}

beforeAll(async () => {
  sandbox = await startSandboxServer();
  const dataDir = path.join(root, "proxy");
  seedDatabaseFolder(dataDir, inject("databaseImage"));
  const staticDir = path.join(root, "static");
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(path.join(staticDir, "index.html"), "<!doctype html><title>failed writes</title>");
  const port = await freePort();
  const started = await startProcess(
    "start",
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      STATIC_DIR: staticDir,
      UPSTREAM_URL: sandbox.url,
      API_KEY: KEY,
      UPSTREAM_RATE_PER_MIN: "100000",
      LOG_LEVEL: "warn",
      FAIL_WRITES_FILE: trigger,
    },
    /ready on/,
    120_000,
    builtProduct(),
    ["--import", FAULT],
  );
  proxy = { child: started.child, url: `http://127.0.0.1:${port}`, logFile: started.logFile };
}, 180_000);

afterAll(async () => {
  if (proxy) await stopProcess(proxy.child);
  await sandbox?.close();
  rmSync(root, { recursive: true, force: true });
});

describe.each([
  ["every write fails with EIO", "EIO"],
  ["every write fails with ENOSPC", "ENOSPC"],
  // A commit is answered once its log is on disk: a flush that fails is a failed commit.
  ["every flush to disk (fsync) fails with EIO", "EIO fsync"],
])("the embedded database's disk: %s", (_, code) => {
  const tag = code.replace(" ", "-");
  it("a spend is refused within a second, nothing sent; a count is answered; spending comes back by itself, charged once", async () => {
    const bought = await preview(`${tag}-before`);
    expect(bought.status).toBe(200);
    const start = await balance();

    const reopenedBefore = reopenings();
    writeFileSync(trigger, code);
    try {
      const refused = await preview(`${tag}-during`);
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe("JOURNAL_UNAVAILABLE");
      expect(refused.ms).toBeLessThan(1_000);
      // Free work goes on meanwhile: the proxy's thread is not the one that failed.
      const [count, again] = await Promise.all([
        call("/v2/contact/count", { filter }),
        preview(`${tag}-during-2`),
      ]);
      expect(count.status).toBe(200);
      expect(again.status).toBe(503);
      expect(await balance()).toBe(start);
    } finally {
      rmSync(trigger, { force: true });
    }

    // Back by itself once writes succeed (the database opened again from its folder).
    let after = await preview(`${tag}-during`);
    for (let tries = 0; after.status === 503 && tries < 600; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await preview(`${tag}-during`);
    }
    expect(after.status).toBe(200);
    const charged = after.body.creditsCharged as number;
    expect(charged).toBeGreaterThan(0);
    // The same key again, and the purchase before the fault again: answered from the journal.
    const replay = await preview(`${tag}-during`);
    expect(replay.status).toBe(200);
    expect((await preview(`${tag}-before`)).status).toBe(200);
    expect(start - (await balance())).toBe(charged);

    // The log is written apart from the answers: read it until this fault's lines are there.
    await expect
      .poll(log)
      .toMatch(
        /the embedded database failed \(.*(I\/O error|No space left|could not write|could not fsync)/i,
      );
    await expect.poll(reopenings).toBe(reopenedBefore + 1);
  }, 120_000);
});
