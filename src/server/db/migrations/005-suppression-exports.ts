import { type Kysely, type Migration, sql } from "kysely";

/**
 * Exports in the ledger (a pending row at start, settled when the proxy sees the export end),
 * the exports the proxy started and has not settled yet, and the team's suppression lists.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table ledger drop constraint if exists ledger_outcome_check`.execute(db);
    await sql`alter table ledger add constraint ledger_outcome_check
      check (outcome in ('charged', 'free', 'refused', 'unknown', 'pending'))`.execute(db);
    await db.schema.createIndex("ledger_key_hash").on("ledger").columns(["key_hash", "operation"]).execute();
    await db.schema
      .createTable("export_purchases")
      .addColumn("export_id", "text", (c) => c.primaryKey())
      .addColumn("purchase_id", "text", (c) => c.notNull())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("reveal", "text", (c) => c.notNull())
      .addColumn("columns_key", "text", (c) => c.notNull())
      .addColumn("credits_estimated", "double precision", (c) => c.notNull())
      // add-free: the owned contacts of the audience added to the file for nothing.
      .addColumn("free_ids", "jsonb")
      .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('pending', 'settling', 'settled')`))
      .addColumn("started_at", "timestamptz", (c) => c.notNull())
      .addColumn("claimed_at", "timestamptz")
      .addColumn("settled_at", "timestamptz")
      .execute();
    await db.schema.createIndex("export_purchases_state").on("export_purchases").column("state").execute();
    await db.schema
      .createTable("suppression_lists")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("suppression_entries")
      .addColumn("list_id", "text", (c) => c.notNull().references("suppression_lists.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) =>
        c.notNull().check(sql`kind in ('domain', 'companyId', 'personId', 'linkedin', 'email')`),
      )
      .addColumn("value", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("suppression_entries_pk", ["list_id", "kind", "value"])
      .execute();
    await db.schema
      .createIndex("suppression_entries_kind")
      .on("suppression_entries")
      .columns(["kind", "value"])
      .execute();
  },
};
