import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("proxy_instances")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("started_at", "timestamptz", (c) => c.notNull())
      .addColumn("seen_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("spend_journal")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("caller", "text", (c) => c.notNull())
      .addColumn("operation", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('pending', 'done', 'unknown')`))
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("export_tag", "text")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("finished_at", "timestamptz")
      .addColumn("status", "integer")
      .addColumn("headers", "jsonb")
      .addColumn("body", "text")
      .execute();
    await db.schema
      .createIndex("spend_journal_created_at")
      .on("spend_journal")
      .column("created_at")
      .execute();
    await db.schema
      .createTable("users")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("password_hash", "text", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createTable("sessions")
      .addColumn("id_hash", "text", (c) => c.primaryKey())
      .addColumn("user_name", "text", (c) => c.notNull().references("users.name").onDelete("cascade"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("last_seen", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("proxy_settings")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "jsonb", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .execute();
  },
};
