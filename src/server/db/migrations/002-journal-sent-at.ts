import type { Kysely, Migration } from "kysely";

/**
 * When the latest attempt began: an export's lost start is judged by it, not by the first try.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("spend_journal").addColumn("sent_at", "timestamptz").execute();
  },
};
