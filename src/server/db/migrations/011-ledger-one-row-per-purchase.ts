import { type Kysely, type Migration, sql } from "kysely";

/**
 * One ledger row per purchase (its journal entry's id, `key_hash`), so that no path can write two.
 * Rows already doubled (written before this rule) are kept, never deleted: a second row may be a
 * second charge under the same key, so it stays, under a key of its own (`…#2`), and says so in its
 * detail; the ledger's total is unchanged.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`update ledger l
      set key_hash = l.key_hash || '#' || d.n,
          detail = coalesce(l.detail || ' · ', '') || 'A second row under the same purchase key (kept: it may be a second charge).'
      from (
        select id, row_number() over (partition by key_hash order by id) as n from ledger
      ) d
      where d.id = l.id and d.n > 1`.execute(db);
    await db.schema
      .createIndex("ledger_one_row_per_purchase")
      .on("ledger")
      .column("key_hash")
      .unique()
      .execute();
  },
};
