import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Kysely, sql } from "kysely";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  breaksInstance,
  EmbeddedDatabase,
  EmbeddedDatabaseDown,
} from "../../../src/server/db/embedded-database";
import { PGliteDialect } from "../../../src/server/db/pglite-dialect";
import { seedDatabaseFolder } from "../../support/database-image";

// The embedded database runs in a worker and is opened again after an error PostgreSQL would end
// its process for. Here the error is raised on purpose (an internal error, class XX); the disk
// faults themselves are in tests/integration/durability/failed-writes.test.ts.
const INTERNAL_ERROR = `do $$ begin raise exception 'broken on purpose' using errcode = 'XX000'; end $$`;

const folders: string[] = [];
const opened: EmbeddedDatabase[] = [];

async function open(lines: string[] = []) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ab-embedded-"));
  folders.push(dataDir);
  // The run's migrated image, laid out as a proxy's db/ (no initdb per test).
  seedDatabaseFolder(dataDir, inject("databaseImage"));
  const database = await EmbeddedDatabase.open(path.join(dataDir, "db"), {
    retryDelaysMs: [50],
    onTrouble: (line) => lines.push(line),
  });
  opened.push(database);
  await database.query("create table t (id int primary key)");
  return database;
}

async function reopened(database: EmbeddedDatabase) {
  for (;;) {
    try {
      return await database.query("select 1");
    } catch (error) {
      if (!(error instanceof EmbeddedDatabaseDown)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("the embedded database in its worker", () => {
  it("answers queries, and an ordinary SQL error leaves it as it is", async () => {
    const database = await open();
    await database.query("insert into t values ($1)", [1]);
    await expect(database.query("insert into t values (1)")).rejects.toMatchObject({ code: "23505" });
    expect((await database.query<{ id: number }>("select id from t")).rows).toEqual([{ id: 1 }]);
  });

  it("renewed (a fresh worker, as after a new store's migrations): the data kept, queries answered, nothing said", async () => {
    const lines: string[] = [];
    const database = await open(lines);
    await database.query("insert into t values ($1), ($2)", [1, 2]);
    await database.renew();
    expect((await database.query<{ id: number }>("select id from t order by id")).rows).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
    await database.query("insert into t values ($1)", [3]);
    expect((await database.query<{ n: number }>("select count(*)::int as n from t")).rows).toEqual([
      { n: 3 },
    ]);
    expect(lines).toEqual([]);
  });

  it("after an error that breaks the instance: refuses at once, opens again by itself, the data kept", async () => {
    const lines: string[] = [];
    const database = await open(lines);
    await database.query("insert into t values (1)");
    await expect(database.query(INTERNAL_ERROR)).rejects.toMatchObject({ code: "XX000" });
    const started = performance.now();
    await expect(database.query("select 1")).rejects.toBeInstanceOf(EmbeddedDatabaseDown);
    expect(performance.now() - started).toBeLessThan(100);
    await reopened(database);
    expect((await database.query<{ id: number }>("select id from t")).rows).toEqual([{ id: 1 }]);
    expect(lines[0]).toMatch(/^the embedded database failed \(broken on purpose\): spending is refused/);
    expect(lines.at(-1)).toBe("the embedded database was opened again: spending goes on");
  });

  it("a transaction begun before the break never goes on, statement by statement, on the instance opened after it", async () => {
    const database = await open();
    const connection = database.pinned();
    await connection.query("begin");
    await connection.query("insert into t values (1)");
    await expect(database.query(INTERNAL_ERROR)).rejects.toThrow();
    await reopened(database);
    await expect(connection.query("insert into t values (2)")).rejects.toBeInstanceOf(EmbeddedDatabaseDown);
    await expect(connection.query("commit")).rejects.toBeInstanceOf(EmbeddedDatabaseDown);
    expect((await database.query("select id from t")).rows).toEqual([]);
  });

  it("a transaction cut by the break fails with the error that broke it, not with the refused rollback", async () => {
    const database = await open();
    const db = new Kysely<{ t: { id: number } }>({ dialect: new PGliteDialect(database) });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ id: 1 }).execute();
        await sql.raw(INTERNAL_ERROR).execute(trx);
      }),
    ).rejects.toMatchObject({ code: "XX000" });
    await reopened(database);
    expect((await database.query("select id from t")).rows).toEqual([]);
  });

  it("knows which errors break an instance", () => {
    expect(breaksInstance({ code: "58030", severity: "PANIC" })).toBe(true); // a log write failed
    expect(breaksInstance({ code: "53100", severity: "ERROR" })).toBe(true); // disk full
    expect(breaksInstance({ name: "ErrnoError", errno: 29 })).toBe(true);
    expect(breaksInstance({ code: "23505", severity: "ERROR" })).toBe(false);
    expect(breaksInstance({ code: "40001", severity: "ERROR" })).toBe(false);
  });
});
