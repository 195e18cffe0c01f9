import { type Kysely, type Migration, sql } from "kysely";

/**
 * People get a role and a source; audiences live here with every version; an audit list; who
 * started which job. People from 001 were all allowed everything: they become admins, from the file.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table users
      add column role text not null default 'admin' check (role in ('admin', 'buyer', 'analyst')),
      add column source text not null default 'file' check (source in ('file', 'team')),
      add column created_by text`.execute(db);
    await sql`alter table users alter column role drop default, alter column source drop default`.execute(db);
    await db.schema
      .createTable("audiences")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("shared", "boolean", (c) => c.notNull())
      .addColumn("filter", "jsonb", (c) => c.notNull())
      .addColumn("last_count", "bigint")
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addColumn("updated_by", "text", (c) => c.notNull())
      .addColumn("deleted_at", "timestamptz")
      .addColumn("client_id", "text")
      .addUniqueConstraint("audiences_owner_client_id", ["owner", "client_id"])
      .execute();
    await db.schema.createIndex("audiences_updated_at").on("audiences").column("updated_at").execute();
    await db.schema
      .createTable("audience_versions")
      .addColumn("audience_id", "text", (c) => c.notNull().references("audiences.id").onDelete("cascade"))
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("filter", "jsonb", (c) => c.notNull())
      .addColumn("shared", "boolean", (c) => c.notNull())
      .addColumn("last_count", "bigint")
      .addColumn("saved_at", "timestamptz", (c) => c.notNull())
      .addColumn("saved_by", "text", (c) => c.notNull())
      .addColumn("restored_from", "integer")
      .addPrimaryKeyConstraint("audience_versions_pk", ["audience_id", "version"])
      .execute();
    await db.schema
      .createTable("audit_log")
      .addColumn("id", "bigserial", (c) => c.primaryKey())
      .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("target", "text")
      .addColumn("summary", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("team_jobs")
      .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('export', 'verification')`))
      .addColumn("job_id", "text", (c) => c.notNull())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("team_jobs_pk", ["kind", "job_id"])
      .execute();
    await db.schema.createIndex("team_jobs_at").on("team_jobs").column("at").execute();
  },
};
