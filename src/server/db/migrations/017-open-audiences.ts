import { type Kysely, type Migration, sql } from "kysely";

/**
 * The audience each person has open (team/audiences.ts, `PUT /api/audiences/open`), so that it
 * reopens in any window after they sign in: one row per person, gone with the audience.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table open_audiences (
      person text primary key,
      audience_id text not null references audiences (id) on delete cascade,
      version integer not null,
      working_key text not null,
      opened_at timestamptz not null default now()
    )`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table open_audiences`.execute(db);
  },
};
