/**
 * The money migrations. One ledger row per purchase (011): a second row under a purchase's key is
 * refused by the table itself; rows doubled before the rule are kept, each under a key of its own,
 * with the ledger's total unchanged. Caps belong to a person (012): they go with their person.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Kysely, Migrator, sql } from "kysely";
import { expect, it } from "vitest";
import { openDatabase } from "../../../src/server/db/database";
import { provider } from "../../../src/server/db/migrations";
import { type LedgerRowValues, writeLedgerRow } from "../../../src/server/spend/ledger-store";
import { testDatabaseFor } from "../../support/proxy-server";

const row = (keyHash: string, over: Partial<LedgerRowValues> = {}): LedgerRowValues => ({
  person: "ana",
  operation: "enrich",
  audienceName: null,
  filter: null,
  detail: null,
  rows: 3,
  rowsFree: 0,
  estimated: 6,
  charged: 6,
  outcome: "charged",
  keyHash,
  keyLast4: "abcd",
  ...over,
});

/** The schema 012 left: the migrations after it taken back (each has a `down`). */
async function backTo012(db: Kysely<unknown>) {
  const { error } = await new Migrator({ db, provider }).migrateTo("012-caps-belong-to-a-person");
  expect(error).toBeUndefined();
}

async function withStore(work: (store: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ledger-migration-"));
  const { url, database } = await testDatabaseFor(dir, false);
  const store = database ?? (await openDatabase({ databaseUrl: url ?? null, dataDir: dir }));
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

it("refuses a second row for one purchase, whichever path writes it", async () => {
  await withStore(async (store) => {
    await writeLedgerRow(store.db, row("purchase-1"));
    await expect(
      writeLedgerRow(store.db, row("purchase-1", { outcome: "unknown", charged: null })),
    ).rejects.toThrow();
    await writeLedgerRow(store.db, row("purchase-2"));
    expect(await store.db.selectFrom("ledger").select("key_hash").orderBy("id").execute()).toEqual([
      { key_hash: "purchase-1" },
      { key_hash: "purchase-2" },
    ]);
  });
});

it("keeps rows doubled before the rule, each under a key of its own, the total unchanged", async () => {
  await withStore(async (store) => {
    const db = store.db as unknown as Kysely<unknown>;
    // A database from before 011, holding the doubled rows the old paths could write.
    await backTo012(db);
    await sql`drop index ledger_one_row_per_purchase`.execute(db);
    await sql`alter table person_caps drop constraint person_caps_person`.execute(db);
    await sql`delete from kysely_migration where name in ('011-ledger-one-row-per-purchase', '012-caps-belong-to-a-person')`.execute(
      db,
    );
    await writeLedgerRow(store.db, row("twice"));
    await writeLedgerRow(store.db, row("twice", { detail: "resent after the replay window" }));
    await writeLedgerRow(store.db, row("twice", { outcome: "unknown", charged: null }));
    await writeLedgerRow(store.db, row("once", { charged: 2 }));

    const { error } = await new Migrator({ db, provider }).migrateToLatest();
    expect(error).toBeUndefined();
    const rows = await store.db
      .selectFrom("ledger")
      .select(["key_hash", "outcome", "credits_charged", "detail"])
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { key_hash: "twice", outcome: "charged", credits_charged: 6, detail: null },
      {
        key_hash: "twice#2",
        outcome: "charged",
        credits_charged: 6,
        detail: expect.stringMatching(
          /^resent after the replay window · A second row under the same purchase key/,
        ),
      },
      {
        key_hash: "twice#3",
        outcome: "unknown",
        credits_charged: null,
        detail: expect.stringMatching(/^A second row under the same purchase key/),
      },
      { key_hash: "once", outcome: "charged", credits_charged: 2, detail: null },
    ]);
    await expect(writeLedgerRow(store.db, row("twice"))).rejects.toThrow();
  });
});

it("012: caps left by people gone are dropped, and from then on caps go with their person", async () => {
  await withStore(async (store) => {
    const db = store.db as unknown as Kysely<unknown>;
    await backTo012(db);
    await sql`alter table person_caps drop constraint person_caps_person`.execute(db);
    await sql`delete from kysely_migration where name = '012-caps-belong-to-a-person'`.execute(db);
    await sql`insert into users (name, password_hash, role, source, created_at) values ('ana', 'x', 'buyer', 'team', now())`.execute(
      db,
    );
    await sql`insert into person_caps (name, monthly_cap, approval_threshold, updated_at, updated_by)
      values ('ana', 100, 10, now(), 'admin'), ('gone', 5, null, now(), 'admin')`.execute(db);

    const { error } = await new Migrator({ db, provider }).migrateToLatest();
    expect(error).toBeUndefined();
    expect(await store.db.selectFrom("person_caps").select("name").execute()).toEqual([{ name: "ana" }]);
    await store.db.deleteFrom("users").where("name", "=", "ana").execute();
    expect(await store.db.selectFrom("person_caps").select("name").execute()).toEqual([]);
  });
});
