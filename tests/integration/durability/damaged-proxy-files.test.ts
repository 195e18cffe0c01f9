/**
 * Every file the proxy keeps, damaged three ways (empty, cut short, garbage): the proxy refuses to
 * start with a message that names the file and the way out, and leaves the file as it was (it is
 * the copy of what could not be read). Never a silent fall back to the configured key, to no
 * users, or to an empty database.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, inject, it } from "vitest";
import { createProxy } from "../../../src/server/app";
import { ConfigError, configFromEnv } from "../../../src/server/config";
import { openDatabase } from "../../../src/server/db/database";
import { hashPassword } from "../../../src/server/team/passwords";
import { seedDatabaseFolder } from "../../support/database-image";
import { fakeUpstream } from "../../support/proxy-server";

const DAMAGE = {
  empty: () => "",
  "cut short": (whole: string) => whole.slice(0, Math.min(64, Math.floor(whole.length / 2))),
  garbage: () => "\u0000\u0007\ufffd\u0001garbage\u0000",
} as const;

const upstream = fakeUpstream();

async function refusal(env: Record<string, string>): Promise<string> {
  try {
    const proxy = await createProxy(configFromEnv({ PORT: "0", LOG_LEVEL: "silent", ...env }), upstream);
    await proxy.close();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the proxy started on a damaged file");
}

/** A data folder whose embedded database is already made (from the run's image): the damage is elsewhere. */
function fresh() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "damaged-proxy-"));
  seedDatabaseFolder(dataDir, inject("databaseImage"));
  return dataDir;
}

describe("damaged files of the proxy", () => {
  for (const [how, damage] of Object.entries(DAMAGE)) {
    it(`DATA_DIR/api-key (the rotated key), ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "api-key");
      const whole = `${JSON.stringify({ upstream: "sandbox", key: "sbx_rotated_key_123456", rotatedAt: "2026-11-25T00:00:00Z" })}\n`;
      writeFileSync(file, damage(whole));
      const before = readFileSync(file);
      const message = await refusal({ DATA_DIR: dataDir });
      expect(message).toContain(file);
      expect(message).toMatch(/damaged.*restore it from a backup/);
      expect(readFileSync(file)).toEqual(before);
    });

    // A plain key cut short still looks like a key: only the service can tell (its 401 is shown).
    it.skipIf(how === "cut short")(`API_KEY_FILE, ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "key");
      writeFileSync(file, damage("sbx_live_key_abcdef\n"));
      const before = readFileSync(file);
      const message = await refusal({
        DATA_DIR: dataDir,
        UPSTREAM_URL: "http://127.0.0.1:9",
        API_KEY_FILE: file,
      });
      expect(message).toContain(file);
      expect(readFileSync(file)).toEqual(before);
    });

    it(`USERS_FILE, ${how}`, async () => {
      const dataDir = fresh();
      const file = path.join(dataDir, "users");
      writeFileSync(file, damage(`ada:${await hashPassword("ada-password-1")}\n`));
      const before = readFileSync(file);
      const message = await refusal({ DATA_DIR: dataDir, USERS_FILE: file });
      expect(message).toContain(file);
      expect(readFileSync(file)).toEqual(before);
    });

    it(`the embedded database (its control file), ${how}`, async () => {
      const dataDir = fresh();
      // A database made by a proxy that ran once.
      const first = await createProxy(
        configFromEnv({ PORT: "0", LOG_LEVEL: "silent", DATA_DIR: dataDir }),
        upstream,
      );
      await first.close();
      const file = path.join(dataDir, "db", "global", "pg_control");
      writeFileSync(file, damage(readFileSync(file, "latin1")), "latin1");
      const message = await refusal({ DATA_DIR: dataDir });
      expect(message).toContain(path.join(dataDir, "db"));
      expect(message).toMatch(/cannot be opened.*left as it is.*restore the folder from a backup/);
    });
  }
});

/**
 * A table whose emptiness changes what the proxy does, its file emptied or cut short while the
 * proxy was stopped: the database opens (nothing in its own files says so), but the table holds
 * fewer rows than the marks kept apart from it say were written (migration 014). Refused in one
 * line, never local mode (anyone an admin) and never a journalled key taken for a new one.
 */
describe("a marked table of the embedded database found short", () => {
  const HOLDS = {
    users: `insert into users (name, password_hash, role, source, created_at)
      select 'person' || n, 'x', 'admin', 'team', now() from generate_series(1, 300) n`,
    spend_journal: `insert into spend_journal (id, caller, operation, fingerprint, state, owner, created_at)
      select 'key' || n, 'ada', 'enrich', 'f', 'done', 'gone', now() from generate_series(1, 300) n`,
    ledger: `insert into ledger (at, person, operation, rows, rows_free, credits_estimated, credits_charged,
        outcome, key_hash, key_last4)
      select now(), 'ada', 'enrich', 1, 0, 2, 2, 'charged', 'k' || n, 'abcd' from generate_series(1, 300) n`,
  } as const;

  for (const [table, fill] of Object.entries(HOLDS))
    for (const how of ["emptied", "cut short"] as const)
      it(`${table}, ${how}`, async () => {
        const dataDir = fresh();
        const store = await openDatabase({ databaseUrl: null, dataDir });
        let file: string;
        try {
          await sql.raw(fill).execute(store.db);
          const where = await sql<{ file: string }>`select pg_relation_filepath(${table}) as file`.execute(
            store.db,
          );
          file = path.join(dataDir, "db", where.rows[0]!.file);
          await sql`checkpoint`.execute(store.db);
        } finally {
          await store.close();
        }
        // 300 rows take several 8 kB pages: cut short keeps the first one.
        truncateSync(file, how === "emptied" ? 0 : 8192);
        const message = await refusal({ DATA_DIR: dataDir });
        expect(message).toContain(path.join(dataDir, "db"));
        expect(message).toMatch(new RegExp(`\\(table ${table}\\) holds \\d+ rows where 300 were written`));
        expect(message).toMatch(/left as it is: restore it from a backup/);
        expect(message.split("\n")).toHaveLength(1);
      });

  it("people all removed: sign-in stays required (local mode is for a store that never had people)", async () => {
    const dataDir = fresh();
    const store = await openDatabase({ databaseUrl: null, dataDir });
    try {
      await sql.raw(HOLDS.users).execute(store.db);
      await sql`delete from users`.execute(store.db);
    } finally {
      await store.close();
    }
    const proxy = await createProxy(
      configFromEnv({ PORT: "0", LOG_LEVEL: "silent", DATA_DIR: dataDir }),
      upstream,
    );
    try {
      proxy.listening(80);
      const answer = await proxy.app.request("http://127.0.0.1/api/v2/credits", {
        headers: { host: "127.0.0.1", "x-csrf": "1" },
      });
      expect(answer.status, await answer.clone().text()).toBe(401);
    } finally {
      await proxy.close();
    }
  });
});

describe("a used data folder without its database", () => {
  const start = (dataDir: string) =>
    createProxy(configFromEnv({ PORT: "0", LOG_LEVEL: "silent", DATA_DIR: dataDir }), upstream);

  it("db/ gone or emptied after the proxy ran: refused in one line with what to restore; without the marker, on purpose, it begins again", async () => {
    const dataDir = fresh();
    await (await start(dataDir)).close();
    const db = path.join(dataDir, "db");
    rmSync(db, { recursive: true });
    const message = await refusal({ DATA_DIR: dataDir });
    expect(message).toContain(`${db} is missing, but this data folder was used (store-used)`);
    expect(message).toMatch(/Restore .* from a backup; to begin again .* remove .*store-used/);
    expect(message.split("\n")).toHaveLength(1);
    // A new, empty volume mounted at db/ is no different.
    mkdirSync(db);
    expect(await refusal({ DATA_DIR: dataDir })).toContain(`${db} is empty, but this data folder was used`);
    rmSync(path.join(dataDir, "store-used"));
    await (await start(dataDir)).close();
    expect(existsSync(path.join(dataDir, "store-used"))).toBe(true);
  });

  it("db/ gone beside a rotated key (a folder from before the marker): refused, the key never used on an empty store", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "damaged-proxy-"));
    writeFileSync(
      path.join(dataDir, "api-key"),
      `${JSON.stringify({ upstream: "sandbox", key: "sbx_rotated_key_123456", rotatedAt: "2026-11-25T00:00:00Z" })}\n`,
    );
    const message = await refusal({ DATA_DIR: dataDir });
    expect(message).toContain("is missing, but this data folder was used (api-key)");
    expect(message).toMatch(/to begin again .* create the empty folder/);
    expect(existsSync(path.join(dataDir, "db"))).toBe(false);
    // On purpose: the empty db/ the message names begins an empty store, with the rotated key.
    mkdirSync(path.join(dataDir, "db"));
    await (await start(dataDir)).close();
  });

  it("a new data folder begins an empty store, and marks itself used", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "damaged-proxy-"));
    await (await start(dataDir)).close();
    expect(existsSync(path.join(dataDir, "store-used"))).toBe(true);
  });
});

describe("a disk too small for the embedded database", () => {
  // An 8 MB tmpfs; mounting needs root (and a machine that allows it): skipped, said so, elsewhere.
  it("is refused in one line that names ENOSPC and the way out", async (context) => {
    const mountPoint = mkdtempSync(path.join(os.tmpdir(), "small-disk-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint], { stdio: "ignore" });
    } catch {
      context.skip("no tmpfs can be mounted here (needs root)");
    }
    try {
      const message = await refusal({ DATA_DIR: path.join(mountPoint, "data") });
      expect(message).toMatch(
        /cannot be opened \(ENOSPC: no space left on device\)\. .*free space on its disk/,
      );
      expect(message).not.toContain("[object Object]");
    } finally {
      // Lazily: the failed open may still hold a file there until it is collected.
      execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
    }
  });
});
