/**
 * Migration 003 on a database made before it: the people already there (all from USERS_FILE, and
 * all allowed everything) become admins of source `file`, and their sessions survive.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Kysely, Migrator, sql } from "kysely";
import { expect, it } from "vitest";
import { openDatabase } from "../../../src/server/db/database";
import { provider } from "../../../src/server/db/migrations";
import { testDatabaseFor } from "../../support/proxy-server";

it("makes the people of a 002 database admins from the file, keeping their sessions", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "team-migration-"));
  const { url, database } = await testDatabaseFor(dir, false);
  // openDatabase migrates to the latest: go back to 002 first, as a database made before roles.
  const store = database ?? (await openDatabase({ databaseUrl: url ?? null, dataDir: dir }));
  try {
    const db = store.db as unknown as Kysely<unknown>;
    const migrator = new Migrator({ db, provider });
    // The migrations after 012 have a `down`; those before are taken back by hand.
    expect((await migrator.migrateTo("012-caps-belong-to-a-person")).error).toBeUndefined();
    await sql`drop table contact_reservations`.execute(db);
    await sql`alter table spend_journal drop column unknown_row`.execute(db);
    await sql`drop table verify_purchases`.execute(db);
    await sql`drop table team_caps, person_caps, approvals, spend_holds`.execute(db);
    await sql`drop table export_purchases, suppression_entries, suppression_lists`.execute(db);
    await sql`drop table ledger, owned_contacts`.execute(db);
    await sql`drop table team_jobs, audit_log, audience_versions, audiences`.execute(db);
    await sql`alter table users drop column role, drop column source, drop column created_by`.execute(db);
    await sql`delete from kysely_migration where name in ('003-team', '004-owned-ledger', '005-suppression-exports', '006-caps-approvals', '007-tool-spends', '008-contact-reservations', '009-journal-unknown-row', '010-settlement-attempts', '011-ledger-one-row-per-purchase', '012-caps-belong-to-a-person')`.execute(
      db,
    );
    await sql`insert into users (name, password_hash) values ('ann', 'x'), ('ben', 'y')`.execute(db);
    await sql`insert into sessions (id_hash, user_name, last_seen) values ('h1', 'ben', now())`.execute(db);

    const { error } = await migrator.migrateToLatest();
    expect(error).toBeUndefined();
    const people = await store.db
      .selectFrom("users")
      .select(["name", "role", "source"])
      .orderBy("name")
      .execute();
    expect(people).toEqual([
      { name: "ann", role: "admin", source: "file" },
      { name: "ben", role: "admin", source: "file" },
    ]);
    expect(await store.db.selectFrom("sessions").select("user_name").execute()).toEqual([
      { user_name: "ben" },
    ]);
    // A role outside the three is refused by the table itself.
    await expect(
      store.db
        .updateTable("users")
        .set({ role: "owner" as "admin" })
        .where("name", "=", "ann")
        .execute(),
    ).rejects.toThrow();
  } finally {
    await store.close();
  }
});
