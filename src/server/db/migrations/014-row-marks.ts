import { type Kysely, type Migration, sql } from "kysely";

/** The tables whose emptiness changes what the proxy does: nobody to sign in, keys never sent. */
export const MARKED_TABLES = ["users", "spend_journal", "ledger"] as const;

/**
 * A record of each marked table's rows kept apart from it (`row_marks`, written by the database's
 * own triggers on every insert, delete and truncate, whoever writes): a table found at start with
 * another count than its marks say was damaged (a file cut short or emptied), and the proxy
 * refuses to start rather than take it for a fresh one (db/integrity.ts). Deltas are appended, never
 * updated in place, so concurrent writers never wait on each other for them.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table row_marks (
      id bigserial primary key,
      table_name text not null,
      delta bigint not null,
      at timestamptz not null default now()
    )`.execute(db);
    await sql`create index row_marks_table on row_marks (table_name)`.execute(db);
    await sql`create function row_marks_added() returns trigger language plpgsql as $$
      begin
        insert into row_marks (table_name, delta) select tg_table_name, count(*) from added having count(*) > 0;
        return null;
      end $$`.execute(db);
    await sql`create function row_marks_removed() returns trigger language plpgsql as $$
      begin
        insert into row_marks (table_name, delta) select tg_table_name, -count(*) from removed having count(*) > 0;
        return null;
      end $$`.execute(db);
    await sql`create function row_marks_truncated() returns trigger language plpgsql as $$
      declare n bigint;
      begin
        execute format('select count(*) from %I', tg_table_name) into n;
        if n > 0 then insert into row_marks (table_name, delta) values (tg_table_name, -n); end if;
        return null;
      end $$`.execute(db);
    for (const table of MARKED_TABLES) {
      const t = sql.table(table);
      await sql`create trigger ${sql.raw(`${table}_rows_added`)} after insert on ${t}
        referencing new table as added for each statement execute function row_marks_added()`.execute(db);
      await sql`create trigger ${sql.raw(`${table}_rows_removed`)} after delete on ${t}
        referencing old table as removed for each statement execute function row_marks_removed()`.execute(db);
      await sql`create trigger ${sql.raw(`${table}_truncated`)} before truncate on ${t}
        for each statement execute function row_marks_truncated()`.execute(db);
      await sql`insert into row_marks (table_name, delta) select ${table}, count(*) from ${t}`.execute(db);
    }
  },
  async down(db: Kysely<unknown>) {
    for (const table of MARKED_TABLES) {
      const t = sql.table(table);
      await sql`drop trigger ${sql.raw(`${table}_rows_added`)} on ${t}`.execute(db);
      await sql`drop trigger ${sql.raw(`${table}_rows_removed`)} on ${t}`.execute(db);
      await sql`drop trigger ${sql.raw(`${table}_truncated`)} on ${t}`.execute(db);
    }
    await sql`drop function row_marks_added, row_marks_removed, row_marks_truncated`.execute(db);
    await sql`drop table row_marks`.execute(db);
  },
};
