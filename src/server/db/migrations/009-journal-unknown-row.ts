import type { Kysely, Migration } from "kysely";

/**
 * The ledger row a spend comes to if its outcome is never learned, kept with its pending entry:
 * a sweep records it (and lets the hold go) for a spend whose process is gone, with no retry.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("spend_journal").addColumn("unknown_row", "text").execute();
  },
};
