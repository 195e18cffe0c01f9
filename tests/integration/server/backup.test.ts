/**
 * Backups and restores of the team's store (src/server/db/backup.ts), on the embedded database and
 * (in the `postgres` project) on a server: a backup taken while purchases go on, restored into a
 * fresh store, holds the people and the ledger as they were at its moment; a key journalled after
 * the backup is answered OUTCOME_UNKNOWN by the restored store and never sent again; a restore is
 * refused while a proxy runs on the store; `npm run backup` asks the running proxy.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newIdempotencyKey } from "../../../src/app/api/client";
import type { Sandbox } from "../../../src/sandbox/app";
import { restoreBackup, type StoreLocation, takeBackup } from "../../../src/server/db/backup";
import type { Database } from "../../../src/server/db/database";
import { addPerson } from "../../../src/server/team/people";
import {
  type Browser,
  inject,
  type ProxyServer,
  recording,
  sandboxCall,
  startProxy,
  startSandbox,
  testDatabaseFor,
} from "../../support/proxy-server";
import { PASSWORD, signIn } from "../../support/team";

const PAYG = "sbx_payg_demo";
let sandbox: Sandbox;
/** While set, purchases wait at the service's door: a backup is taken with them under way. */
let gate: Promise<void> | null = null;
const upstream = recording(async (request) => {
  if (gate && new URL(request.url).pathname === "/v2/contact/enrich") await gate;
  return sandbox.fetch(request);
});
const enrichCalls = () => upstream.seen.filter((s) => s.path === "/v2/contact/enrich").length;
const credits = async () =>
  (await sandboxCall<{ credits: number }>(sandbox, PAYG, "GET", "/v2/credits")).credits;

let source: ProxyServer;
let restored: ProxyServer | undefined;
let ids: string[];
const backups = await mkdtemp(path.join(os.tmpdir(), "backups-"));

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  source = await startProxy(upstream, {
    env: { DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "backup-src-")) },
  });
  const view = await sandboxCall<{ rows: { RBID_PAO: string }[] }>(
    sandbox,
    PAYG,
    "POST",
    "/v2/contact/view",
    {
      filter: {
        type: "group",
        children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
      },
      limit: 12,
    },
  );
  ids = view.rows.map((r) => r.RBID_PAO);
  expect(ids).toHaveLength(12);
  const { db } = source.proxy.database;
  await addPerson(db, "test", { name: "ada", role: "admin", password: PASSWORD("ada") });
  await addPerson(db, "test", { name: "bob", role: "buyer", password: PASSWORD("bob") });
});
afterAll(async () => {
  await restored?.close();
  await source?.close();
  await sandbox?.close();
});

const storeOf = (server: ProxyServer): StoreLocation => ({
  databaseUrl: server.config.databaseUrl,
  dataDir: server.dataDir,
});

function enrich(api: Browser, id: string, key: string) {
  return api.post<{ creditsCharged: number }>(
    "/api/v2/contact/enrich",
    { personIds: [id], reveal: "email" },
    { idempotencyKey: key },
  );
}

async function snapshot(database: Database) {
  const { db } = database;
  return {
    people: await db.selectFrom("users").select(["name", "role", "password_hash"]).orderBy("name").execute(),
    ledger: await db.selectFrom("ledger").selectAll().orderBy("id").execute(),
  };
}

it("a backup taken during purchases, restored into a fresh store, holds the people and ledger of its moment; a purchase under way at that moment or after it is OUTCOME_UNKNOWN there", async () => {
  const api = await signIn(source.url, "ada");
  // Bought before the backup.
  for (const id of ids.slice(0, 3)) expect((await enrich(api, id, newIdempotencyKey())).status).toBe(200);
  const atStart = await snapshot(source.proxy.database);
  // Two purchases sent to the service, their answers held back while the backup is taken: the
  // copy has their journal entries pending and no ledger rows for them.
  let open!: () => void;
  gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const underWayKeys = [newIdempotencyKey(), newIdempotencyKey()];
  const underWay = Promise.all(ids.slice(3, 5).map((id, i) => enrich(api, id, underWayKeys[i]!)));
  await expect.poll(enrichCalls, { timeout: 10_000 }).toBe(5);
  const file = path.join(backups, "during.backup");
  const taken = await takeBackup(storeOf(source), file);
  gate = null;
  open();
  expect((await underWay).map((a) => a.status)).toEqual([200, 200]);
  const atBackup = await snapshot(source.proxy.database);
  expect(atBackup.ledger.length).toBe(atStart.ledger.length + 2);
  // Bought after it: this key is in the source's journal only.
  const afterKey = newIdempotencyKey();
  expect((await enrich(api, ids[5]!, afterKey)).status).toBe(200);

  // Restored into a fresh store (the postgres project: a new database on the server).
  const freshDir = await mkdtemp(path.join(os.tmpdir(), "backup-dst-"));
  const server = inject("postgresUrl") ? await testDatabaseFor(freshDir, true) : {};
  const result = await restoreBackup({ databaseUrl: server.url ?? null, dataDir: freshDir }, file);
  expect(result.backupTakenAt?.getTime()).toBe(taken.takenAt.getTime());
  restored = await startProxy(upstream, { env: { DATA_DIR: freshDir } });
  const back = await snapshot(restored.proxy.database);
  expect(back.people).toEqual(atBackup.people);
  // Every purchase committed before the backup's moment is there, as it was.
  expect(atStart.ledger.every((row) => row.at.getTime() <= taken.takenAt.getTime())).toBe(true);
  expect(back.ledger.slice(0, atStart.ledger.length)).toEqual(atStart.ledger);
  // The two under way: charged in the source, but the copy cannot know it. The restored proxy
  // writes each an "unknown" row at its estimate (counted against the caps), never a charge.
  const later = back.ledger.slice(atStart.ledger.length);
  expect(later.map((row) => row.outcome)).toEqual(["unknown", "unknown"]);
  expect(later.map((row) => row.credits_charged)).toEqual([null, null]);
  expect(later.map((row) => row.key_last4).sort()).toEqual(underWayKeys.map((key) => key.slice(-4)).sort());
  // The purchase after the backup is not in the copy at all.
  expect(back.ledger.map((row) => row.key_last4)).not.toContain(afterKey.slice(-4));

  // Those keys, sent again to the restored store: not sent to the service, not charged again.
  const again = await signIn(restored.url, "ada");
  const [callsBefore, creditsBefore] = [enrichCalls(), await credits()];
  for (const [i, key] of [...underWayKeys, afterKey].entries()) {
    const retry = await enrich(again, ids[3 + i]!, key);
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ code: "OUTCOME_UNKNOWN" });
  }
  expect(enrichCalls()).toBe(callsBefore);
  expect(await credits()).toBe(creditsBefore);
  // A key made now is a new purchase.
  expect((await enrich(again, ids[6]!, newIdempotencyKey())).status).toBe(200);
  expect(enrichCalls()).toBe(callsBefore + 1);
});

it("a restore is refused while a proxy runs on the store, and leaves it as it was", async () => {
  const file = path.join(backups, "refused.backup");
  await takeBackup(storeOf(source), file);
  const before = await snapshot(source.proxy.database);
  await expect(restoreBackup(storeOf(source), file)).rejects.toThrow(
    /a proxy (\(process \d+\) )?is running on/,
  );
  expect(await snapshot(source.proxy.database)).toEqual(before);
});

it("a file that is not a backup of this kind of store is refused in one line", async () => {
  const junk = path.join(backups, "notes.txt");
  await writeFile(junk, "not a backup");
  await expect(restoreBackup(storeOf(source), junk)).rejects.toThrow(/is not a backup of/);
});

it("npm run backup, while the proxy runs: one line with the file and its moment", async () => {
  const file = path.join(backups, "cli.backup");
  const env = {
    ...process.env,
    DATA_DIR: source.dataDir,
    ...(source.config.databaseUrl ? { DATABASE_URL: source.config.databaseUrl } : {}),
  };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "src/server/db/backup-cli.ts", "backup", file],
    { env },
  );
  expect(stdout).toMatch(
    new RegExp(`^backup written to ${file} \\(\\d+ bytes, .+\\): the store as of \\d{4}-`),
  );
  expect(stdout).not.toContain(PAYG);
});

it("a restore over a store no proxy runs on keeps the replaced store aside (embedded) and starts", async () => {
  const file = path.join(backups, "over.backup");
  await takeBackup(storeOf(source), file);
  const before = await snapshot(source.proxy.database);
  await source.close();
  const result = await restoreBackup(storeOf(source), file);
  if (!source.config.databaseUrl) {
    expect(result.setAside).toMatch(/db\.before-restore-/);
    expect(existsSync(path.join(result.setAside!, "PG_VERSION"))).toBe(true);
  }
  source = await startProxy(upstream, { env: { DATA_DIR: source.dataDir } });
  expect(await snapshot(source.proxy.database)).toEqual(before);
});
