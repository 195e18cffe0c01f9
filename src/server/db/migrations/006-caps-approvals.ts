import { type Kysely, type Migration, sql } from "kysely";

/**
 * Monthly caps (the team's, each person's) and approval thresholds; requests above a threshold
 * waiting for an admin, stored whole so the proxy can run them itself once approved; and holds
 * on purchases under way, counted against the caps until the journal commits their outcome.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("team_caps")
      .addColumn("id", "text", (c) => c.primaryKey().check(sql`id = 'team'`))
      .addColumn("monthly_cap", "integer")
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addColumn("updated_by", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("person_caps")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("monthly_cap", "integer")
      .addColumn("approval_threshold", "integer")
      .addColumn("updated_at", "timestamptz", (c) => c.notNull())
      .addColumn("updated_by", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("approvals")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("entry_id", "text", (c) => c.notNull().unique())
      .addColumn("requested_by", "text", (c) => c.notNull())
      .addColumn("requested_at", "timestamptz", (c) => c.notNull())
      .addColumn("operation", "text", (c) => c.notNull())
      .addColumn("idempotency_key", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      // JSON text, not jsonb: kept exactly as validated (jsonb refuses a \u0000 in a string).
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("headers", "text", (c) => c.notNull())
      .addColumn("credits_estimated", "double precision", (c) => c.notNull())
      .addColumn("summary", "text", (c) => c.notNull())
      .addColumn("audience_name", "text")
      .addColumn("state", "text", (c) =>
        c.notNull().check(sql`state in ('waiting', 'approved', 'denied', 'ran')`),
      )
      .addColumn("decided_by", "text")
      .addColumn("decided_at", "timestamptz")
      .addColumn("outcome", "text")
      .execute();
    await db.schema.createIndex("approvals_requested_at").on("approvals").column("requested_at").execute();
    await db.schema
      .createTable("spend_holds")
      .addColumn("entry_id", "text", (c) => c.primaryKey())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("credits", "double precision", (c) => c.notNull())
      .addColumn("at", "timestamptz", (c) => c.notNull())
      .execute();
  },
};
