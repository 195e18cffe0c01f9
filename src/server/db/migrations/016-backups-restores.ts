import { type Kysely, type Migration, sql } from "kysely";

/**
 * The store's backups and restores (../backup.ts). A backup writes its row first, so the copy holds
 * its own moment; a restore writes one, so the journal knows which keys it may have lost.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table store_backups (
      id bigserial primary key,
      taken_at timestamptz not null default now()
    )`.execute(db);
    await sql`create table store_restores (
      id bigserial primary key,
      restored_at timestamptz not null default now(),
      backup_taken_at timestamptz
    )`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table store_restores`.execute(db);
    await sql`drop table store_backups`.execute(db);
  },
};
