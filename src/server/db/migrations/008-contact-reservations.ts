import type { Kysely, Migration } from "kysely";

/**
 * Contacts reserved by the purchase buying them, so that two purchases of the same new people
 * at once (two buyers, two tabs, two instances) pay for them once.
 */
export const migration: Migration = {
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
};
