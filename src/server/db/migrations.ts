import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";

/**
 * The one set of migrations, for PGlite and PostgreSQL alike. Append, never edit: a database
 * records which ran. Kysely's migrator takes a PostgreSQL advisory lock around them, so two
 * instances starting together on one server run each migration once.
 */
const MIGRATIONS: Record<string, Migration> = {
  "001-journal-users-sessions": {
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
  },
  "002-journal-sent-at": {
    // When the latest attempt began: an export's lost start is judged by it, not by the first try.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("spend_journal").addColumn("sent_at", "timestamptz").execute();
    },
  },
  "003-team": {
    // People get a role and a source; audiences live here with every version; an audit list; who
    // started which job. People from 001 were all allowed everything: they become admins, from the file.
    async up(db: Kysely<unknown>) {
      await sql`alter table users
        add column role text not null default 'admin' check (role in ('admin', 'buyer', 'analyst')),
        add column source text not null default 'file' check (source in ('file', 'team')),
        add column created_by text`.execute(db);
      await sql`alter table users alter column role drop default, alter column source drop default`.execute(
        db,
      );
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
  },
  "004-owned-ledger": {
    // Contacts the team bought (served again free within the retention) and the ledger of spends:
    // both written in the transaction that commits the journal's answer.
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
  },
  "005-suppression-exports": {
    // Exports in the ledger (a pending row at start, settled when the proxy sees the export end),
    // the exports the proxy started and has not settled yet, and the team's suppression lists.
    async up(db: Kysely<unknown>) {
      await sql`alter table ledger drop constraint if exists ledger_outcome_check`.execute(db);
      await sql`alter table ledger add constraint ledger_outcome_check
        check (outcome in ('charged', 'free', 'refused', 'unknown', 'pending'))`.execute(db);
      await db.schema
        .createIndex("ledger_key_hash")
        .on("ledger")
        .columns(["key_hash", "operation"])
        .execute();
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
        .addColumn("state", "text", (c) =>
          c.notNull().check(sql`state in ('pending', 'settling', 'settled')`),
        )
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
        .addColumn("list_id", "text", (c) =>
          c.notNull().references("suppression_lists.id").onDelete("cascade"),
        )
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
  },
  "006-caps-approvals": {
    // Monthly caps (the team's, each person's) and approval thresholds; requests above a threshold
    // waiting for an admin, stored whole so the proxy can run them itself once approved; and holds
    // on purchases under way, counted against the caps until the journal commits their outcome.
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
  },
  "007-tool-spends": {
    // Verification and the company tools in the ledger and under the caps: a ledger row says what
    // was bought (an address, a file, a name); a batch verification is a pending row settled when
    // the proxy sees its job end; an approval request keeps its query and uploaded file.
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
        .addColumn("state", "text", (c) =>
          c.notNull().check(sql`state in ('pending', 'settling', 'settled')`),
        )
        .addColumn("started_at", "timestamptz", (c) => c.notNull())
        .addColumn("claimed_at", "timestamptz")
        .addColumn("settled_at", "timestamptz")
        .addPrimaryKeyConstraint("verify_purchases_pk", ["generation", "process_id"])
        .execute();
      await db.schema.createIndex("verify_purchases_state").on("verify_purchases").column("state").execute();
    },
  },
  "008-contact-reservations": {
    // Contacts reserved by the purchase buying them, so that two purchases of the same new people
    // at once (two buyers, two tabs, two instances) pay for them once.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("contact_reservations")
        .addColumn("person_key", "text", (c) => c.primaryKey())
        .addColumn("purchase_id", "text", (c) => c.notNull())
        .addColumn("at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("contact_reservations_purchase")
        .on("contact_reservations")
        .column("purchase_id")
        .execute();
    },
  },
  "009-journal-unknown-row": {
    // The ledger row a spend comes to if its outcome is never learned, kept with its pending entry:
    // a sweep records it (and lets the hold go) for a spend whose process is gone, with no retry.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("spend_journal").addColumn("unknown_row", "text").execute();
    },
  },
  "010-settlement-attempts": {
    // Settlement as a durable job: attempts counted, the next one after a backoff, and a visible
    // give-up instead of a try every minute forever.
    async up(db: Kysely<unknown>) {
      for (const table of ["export_purchases", "verify_purchases"]) {
        await db.schema
          .alterTable(table)
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.alterTable(table).addColumn("next_attempt_at", "timestamptz").execute();
        await db.schema.alterTable(table).addColumn("last_error", "text").execute();
        await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_state_check`)}`.execute(
          db,
        );
        await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_state_check`)}
          check (state in ('pending', 'settling', 'settled', 'given-up'))`.execute(db);
      }
    },
  },
};

/** The migrations, for Kysely's Migrator (tests migrate step by step with it). */
export const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; throws with the failing migration's name. */
export async function migrate(db: Kysely<unknown>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "(none)";
    throw new Error(
      `database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
