import { type Kysely, type Migration, sql } from "kysely";

/**
 * Settlement as a durable job: attempts counted, the next one after a backoff, and a visible
 * give-up instead of a try every minute forever.
 */
export const migration: Migration = {
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
};
