/**
 * When the proxy's store fails, spending stops and nothing is charged: a database server that
 * stops mid-run (503 JOURNAL_UNAVAILABLE, reads go on, spending comes back with the server), a
 * data folder that cannot be written or does not exist at start (one line, exit 1, no stack
 * trace), and a second process on an embedded database already in use.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import { createProxy } from "../../../src/server/app";
import { configFromEnv } from "../../../src/server/config";
import { openDatabase } from "../../../src/server/db/database";
import { hashPassword } from "../../../src/server/team/passwords";
import { createDatabase, type PostgresServer, startPostgres } from "../../support/postgres";
import { nodeArgsOf } from "../../support/processes";
import { builtProduct } from "../../support/product-build";
import {
  browser,
  fakeUpstream,
  type ProxyServer,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const filter = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

/** A paid Preview of three rows under `key`. */
const preview = (api: ReturnType<typeof browser>, key: string) =>
  api.post("/api/v2/contact/preview", { filter, reveal: "email", limit: 3 }, { idempotencyKey: key });

/** The refusal of a spend that the proxy could not record (or whose person it could not check). */
function expectRefusedUnsent(refused: { status: number; body: unknown; headers: Headers }) {
  expect(refused.status).toBe(503);
  expect(refused.body).toMatchObject({
    code: "JOURNAL_UNAVAILABLE",
    detail: expect.stringContaining("nothing was sent and nothing charged"),
  });
  expect(refused.headers.get("retry-after")).toBe("30");
}

describe("the database server stops mid-run", () => {
  let postgres: PostgresServer;
  let sandbox: Sandbox;
  let proxy: ProxyServer;

  beforeAll(async () => {
    // A server of its own: stopping the run's shared one would fail other files' tests.
    postgres = await startPostgres();
    ({ sandbox } = await startSandbox());
    proxy = await startProxy((r) => sandbox.fetch(r), {
      env: { DATABASE_URL: await createDatabase(postgres.url) },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
    postgres?.remove();
  });

  it("a connection cut while a transaction holds it (between two statements) fails that transaction, never the process", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const database = await openDatabase({
      databaseUrl: await createDatabase(postgres.url),
      dataDir: "unused",
    });
    try {
      const held = database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // The server ends this very connection while the transaction waits between statements.
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(database.db);
        await new Promise((r) => setTimeout(r, 300));
        await sql`select 1`.execute(trx);
      });
      await expect(held).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      // The pool goes on with a new connection.
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off("uncaughtException", onUncaught);
      await database.close();
    }
  });

  it("refuses spending (503) and charges nothing; counts go on; spending resumes with the server", async () => {
    const api = browser(proxy.url);
    const credits = async () => (await api.get<{ credits: number }>("/api/v2/credits")).body.credits;
    const before = await credits();
    postgres.stop();
    expectRefusedUnsent(await preview(api, "database-down-1"));
    expect((await api.post("/api/v2/contact/count", { filter })).status).toBe(200);
    expect(await credits()).toBe(before);
    // Refused by the caller check (local mode asks whether people exist) or by the journal: logged.
    expect(proxy.logs.join("")).toMatch(/database unavailable: request refused|spend journal unavailable/);
    // The team's own routes say so in plain words too (503, never a 500).
    for (const answer of [
      await api.get<{ detail: string }>("/api/audiences"),
      await api.post<{ detail: string }>("/api/audiences", { name: "Germany", filter }),
    ]) {
      expect(answer.status).toBe(503);
      expect(answer.body.detail).toContain("cannot reach its database");
    }

    postgres.start();
    const after = await preview(api, "database-down-1");
    expect(after.status).toBe(200);
    expect(before - (await credits())).toBe((after.body as { creditsCharged: number }).creditsCharged);
  });

  it("with sign-in on: a spend whose session cannot be checked is refused (503), nothing sent", async () => {
    const usersFile = path.join(root, "users");
    writeFileSync(usersFile, `ada:${await hashPassword("ada-password-1")}\n`);
    const signedIn = await startProxy((r) => sandbox.fetch(r), {
      env: { DATABASE_URL: await createDatabase(postgres.url), USERS_FILE: usersFile },
    });
    try {
      const api = browser(signedIn.url);
      expect((await api.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
      const before = (await api.get<{ credits: number }>("/api/v2/credits")).body.credits;
      postgres.stop();
      expectRefusedUnsent(await preview(api, "database-down-signed-in"));
      postgres.start();
      expect((await api.get<{ credits: number }>("/api/v2/credits")).body.credits).toBe(before);
    } finally {
      await signedIn.close();
    }
  });
});

/**
 * `npm start` on the real service's settings (nothing is reached: it must refuse first).
 * `withoutWriteOverride`: run as root stripped of CAP_DAC_OVERRIDE (util-linux's setpriv), so
 * that folder permissions bind it as they bind an unprivileged user, while it still reads the
 * project wherever it was cloned (another user cannot enter a clone in a private folder, such as
 * one made by `mktemp -d`).
 */
function launch(dataDir: string, withoutWriteOverride = false) {
  const node = [process.execPath, ...nodeArgsOf("start", builtProduct())];
  const [command, ...args] = withoutWriteOverride
    ? ["setpriv", "--bounding-set", "-dac_override", "--", ...node]
    : node;
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(command!, args, {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        PORT: "0",
        DATA_DIR: dataDir,
        STATIC_DIR: staticDir,
        UPSTREAM_URL: "http://127.0.0.1:9",
        API_KEY: "sbx_payg_demo",
      },
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.on("close", (code) => resolve({ code, stderr, stdout }));
  });
}

const root = mkdtempSync(path.join(os.tmpdir(), "ab-store-"));
chmodSync(root, 0o755);
const staticDir = path.join(root, "static");
mkdirSync(staticDir);
writeFileSync(path.join(staticDir, "index.html"), "<!doctype html><title>x</title>");

describe("the data folder at start", () => {
  it("read-only: one line naming the folder, exit 1, nothing started", async () => {
    const readOnly = path.join(root, "read-only");
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(readOnly, 0o555);
    // root writes anywhere: it is run without that power then, as the proxy should be in production.
    const result = await launch(readOnly, process.getuid?.() === 0);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^refusing to start: the data folder ${readOnly} cannot be used \\(EACCES`),
      ),
    ]);
    expect(result.stdout).not.toContain("ready on");
  });

  it("missing and impossible to make: one line, exit 1", async () => {
    const file = path.join(root, "a-file");
    writeFileSync(file, "not a folder");
    const result = await launch(path.join(file, "data"));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^refusing to start: the data folder .* cannot be used \(ENOTDIR/),
    ]);
  });

  it("an embedded database in use by another proxy: refused, naming the process", async () => {
    const shared = path.join(root, "shared");
    mkdirSync(shared);
    writeFileSync(path.join(shared, "db.lock"), String(process.pid));
    const result = await launch(shared);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`in use by another proxy \\(process ${process.pid}\\).*DATABASE_URL`),
    );
  });

  it("a lock left by a process that is gone is taken over, and given back on close", async () => {
    const dataDir = path.join(root, "stale");
    mkdirSync(dataDir);
    const lock = path.join(dataDir, "db.lock");
    writeFileSync(lock, String(spawnSync("true").pid));
    const proxy = await createProxy(
      configFromEnv({ PORT: "0", LOG_LEVEL: "silent", DATA_DIR: dataDir }),
      fakeUpstream(),
    );
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    await proxy.close();
    expect(existsSync(lock)).toBe(false);
  });
});
