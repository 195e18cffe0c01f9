import { type Kysely, type Migration, sql } from "kysely";

/**
 * Contacts the team bought (served again free within the retention) and the ledger of spends:
 * both written in the transaction that commits the journal's answer.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("owned_contacts")
      .addColumn("id", "bigserial", (c) => c.primaryKey())
      .addColumn("rbid_pao", "text", (c) => c.notNull())
      .addColumn("rbid_per", "text")
      .addColumn("revealed_email", "boolean", (c) => c.notNull())
      .addColumn("revealed_mobile", "boolean", (c) => c.notNull())
      .addColumn("columns_key", "text", (c) => c.notNull())
      .addColumn("row", "jsonb", (c) => c.notNull())
      .addColumn("bought_at", "timestamptz", (c) => c.notNull())
      .addColumn("bought_by", "text", (c) => c.notNull())
      .addColumn("purchase_id", "text", (c) => c.notNull())
      .addColumn("operation", "text", (c) => c.notNull())
      .addUniqueConstraint("owned_contacts_purchase_row", ["purchase_id", "rbid_pao"])
      .execute();
    await db.schema
      .createIndex("owned_contacts_pao")
      .on("owned_contacts")
      .columns(["rbid_pao", "bought_at"])
      .execute();
    await db.schema
      .createIndex("owned_contacts_bought_at")
      .on("owned_contacts")
      .column("bought_at")
      .execute();
    await db.schema
      .createTable("ledger")
      .addColumn("id", "bigserial", (c) => c.primaryKey())
      .addColumn("at", "timestamptz", (c) => c.notNull())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("operation", "text", (c) => c.notNull())
      .addColumn("audience_name", "text")
      .addColumn("filter", "jsonb")
      .addColumn("rows", "integer", (c) => c.notNull())
      .addColumn("rows_free", "integer", (c) => c.notNull())
      .addColumn("credits_estimated", "double precision")
      .addColumn("credits_charged", "double precision")
      .addColumn("outcome", "text", (c) =>
        c.notNull().check(sql`outcome in ('charged', 'free', 'refused', 'unknown')`),
      )
      .addColumn("key_hash", "text", (c) => c.notNull())
      .addColumn("key_last4", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("ledger_at").on("ledger").column("at").execute();
    await db.schema.createIndex("ledger_person_at").on("ledger").columns(["person", "at"]).execute();
  },
};
