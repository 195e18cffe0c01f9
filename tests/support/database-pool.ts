import type { PGlite } from "@electric-sql/pglite";
import { inject } from "vitest";
import { databaseImageBlob } from "./database-image";

/**
 * Embedded databases in memory for test proxies, lent and taken back: opening PGlite from the
 * run's image costs about one CPU-second (its WebAssembly instance, the image unpacked, the
 * server's start), and a run starts a few hundred test proxies. A database given back is put back
 * exactly as the image had it (every table's rows and every sequence) and lent again; one whose
 * schema a test changed (a trigger dropped, a table altered) is closed instead.
 */

interface Pristine {
  /** The schema's shape (tables, columns, indexes, triggers, functions), to compare on return. */
  shape: string;
  /** The image's rows, per table that has any (the migrations' own records, the row marks). */
  rows: Map<string, unknown[]>;
  /** Every table of the schema, in one TRUNCATE. */
  tables: string[];
  sequences: { name: string; last: string | null; called: boolean }[];
}

const SHAPE = `
  select md5(string_agg(item, ',' order by item)) as shape from (
    select 'c:' || c.relname || ':' || c.relkind::text as item
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
    union all
    select 'a:' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
    union all
    select 't:' || t.tgname || ':' || t.tgenabled::text from pg_trigger t where not t.tgisinternal
    union all
    select 'f:' || p.proname || ':' || md5(p.prosrc)
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
  ) items`;

const idle: PGlite[] = [];
let pristine: Promise<Pristine> | null = null;

async function shapeOf(pglite: PGlite): Promise<string> {
  return (await pglite.query<{ shape: string }>(SHAPE)).rows[0]!.shape;
}

async function readPristine(pglite: PGlite): Promise<Pristine> {
  const tables = (
    await pglite.query<{ name: string }>(
      `select quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`,
    )
  ).rows.map((row) => row.name);
  const rows = new Map<string, unknown[]>();
  for (const table of tables) {
    const found = (
      await pglite.query<{ rows: unknown[] | null }>(`select json_agg(t) as rows from ${table} t`)
    ).rows[0]!.rows;
    if (found) rows.set(table, found);
  }
  const sequences = (
    await pglite.query<{ name: string; last: string | null; called: boolean }>(
      `select quote_ident(sequencename) as name, last_value::text as last, last_value is not null as called
         from pg_sequences where schemaname = 'public'`,
    )
  ).rows;
  return { shape: await shapeOf(pglite), rows, tables, sequences };
}

async function open(): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create({ loadDataDir: databaseImageBlob(inject("databaseImage")) });
  pristine ??= readPristine(pglite);
  await pristine;
  return pglite;
}

/** Whether each table still holds as many rows as the image's (nothing wrote after the reset). */
async function untouched(pglite: PGlite, image: Pristine): Promise<boolean> {
  const counts = image.tables
    .map((table) => `select ${(image.rows.get(table) ?? []).length} - count(*) as off from ${table}`)
    .join(" union all ");
  const off = await pglite.query<{ off: string }>(
    `select count(*) filter (where off <> 0) as off from (${counts}) t`,
  );
  return Number(off.rows[0]!.off) === 0;
}

/** A database as the image has it: one given back before (and not written since), or a new one. */
export async function borrowDatabase(): Promise<PGlite> {
  for (let pglite = idle.pop(); pglite; pglite = idle.pop()) {
    if (await untouched(pglite, await pristine!).catch(() => false)) return pglite;
    if (!pglite.closed) await pglite.close();
  }
  return open();
}

/** Takes a database back: reset to the image and kept for the next proxy, or closed. */
export async function giveBackDatabase(pglite: PGlite): Promise<void> {
  try {
    const image = await pristine!;
    // A transaction left open by a test, and whatever the session set, end here.
    await pglite.exec("rollback; reset all; select pg_advisory_unlock_all();");
    if ((await shapeOf(pglite)) !== image.shape) throw new Error("schema changed");
    await pglite.transaction(async (tx) => {
      // Triggers off while resetting (the row marks would count the emptied tables).
      await tx.exec("set local session_replication_role = replica");
      await tx.exec(`truncate ${image.tables.join(", ")}`);
      for (const [table, rows] of image.rows)
        await tx.query(`insert into ${table} select * from json_populate_recordset(null::${table}, $1)`, [
          JSON.stringify(rows),
        ]);
      for (const sequence of image.sequences)
        await tx.query(`select setval('${sequence.name}', $1, $2)`, [sequence.last ?? 1, sequence.called]);
    });
    idle.push(pglite);
  } catch {
    if (!pglite.closed) await pglite.close();
  }
}
