import { type Kysely, type Migration, sql } from "kysely";

/**
 * A settlement's claim names the instance that took it: one whose instance has stopped is taken
 * over at once (the journal's liveness rule), not only after the claim's 10 minutes.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table export_purchases add column claimed_by text`.execute(db);
    await sql`alter table verify_purchases add column claimed_by text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table export_purchases drop column claimed_by`.execute(db);
    await sql`alter table verify_purchases drop column claimed_by`.execute(db);
  },
};
