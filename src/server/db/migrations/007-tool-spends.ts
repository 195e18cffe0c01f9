import { type Kysely, type Migration, sql } from "kysely";

/**
 * Verification and the company tools in the ledger and under the caps: a ledger row says what
 * was bought (an address, a file, a name); a batch verification is a pending row settled when
 * the proxy sees its job end; an approval request keeps its query and uploaded file.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("ledger").addColumn("detail", "text").execute();
    await db.schema.alterTable("approvals").addColumn("query", "text").execute();
    await db.schema.alterTable("approvals").addColumn("file_name", "text").execute();
    await db.schema.alterTable("approvals").addColumn("file_type", "text").execute();
    // Base64: the upload as it was sent (at most the proxy's body limit).
    await db.schema.alterTable("approvals").addColumn("file", "text").execute();
    await db.schema
      .createTable("verify_purchases")
      .addColumn("generation", "text", (c) => c.notNull().check(sql`generation in ('v1', 'v2')`))
      .addColumn("process_id", "text", (c) => c.notNull())
      .addColumn("purchase_id", "text", (c) => c.notNull())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("credits_estimated", "double precision", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('pending', 'settling', 'settled')`))
      .addColumn("started_at", "timestamptz", (c) => c.notNull())
      .addColumn("claimed_at", "timestamptz")
      .addColumn("settled_at", "timestamptz")
      .addPrimaryKeyConstraint("verify_purchases_pk", ["generation", "process_id"])
      .execute();
    await db.schema.createIndex("verify_purchases_state").on("verify_purchases").column("state").execute();
  },
};
