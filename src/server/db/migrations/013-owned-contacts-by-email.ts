import { type Kysely, type Migration, sql } from "kysely";

/**
 * The team's contacts found by their delivered address, without case as the service matches it:
 * Enrich by email serves an address the team owns from the store instead of buying that person
 * again, and a do-not-contact address finds the owned contact it names, without reading the table.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index owned_contacts_email on owned_contacts (lower(row->>'EMAIL_ADDRESS_PER'))`.execute(
      db,
    );
  },
  // Tests go back to the schema before this one (to rebuild an older database's state).
  async down(db: Kysely<unknown>) {
    await sql`drop index owned_contacts_email`.execute(db);
  },
};
