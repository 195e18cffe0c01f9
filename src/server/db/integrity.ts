import { type Kysely, sql } from "kysely";
import { ConfigError } from "../config";
import { MARKED_TABLES } from "./migrations/014-row-marks";
import type { Tables } from "./schema";

/**
 * The store's integrity at start: each table whose emptiness changes what the proxy does (people:
 * sign-in or the local admin; the spend journal and the ledger: whether a key is sent again) must
 * hold as many rows as its marks say were written (`row_marks`, kept apart by the database's own
 * triggers, migration 014). A table found short or empty after it held rows was damaged (a file
 * cut short, emptied, or put back from elsewhere): the proxy refuses to start, in one line with the
 * way out, instead of taking it for a fresh one. The only module with SQL for `row_marks`.
 */

const WHAT: Record<(typeof MARKED_TABLES)[number], string> = {
  users: "the team's people",
  spend_journal: "the spend journal",
  ledger: "the ledger of spends",
};

export interface Damage {
  table: (typeof MARKED_TABLES)[number];
  found: number;
  written: number;
}

/** The marked tables whose rows differ from their marks (read in one snapshot). */
export async function damagedTables(db: Kysely<Tables>): Promise<Damage[]> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const marks = await trx
        .selectFrom("row_marks")
        .select(["table_name", sql<string>`sum(delta)`.as("rows")])
        .groupBy("table_name")
        .execute();
      const damage: Damage[] = [];
      for (const table of MARKED_TABLES) {
        const counted = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(trx);
        const found = Number(counted.rows[0]?.n ?? 0);
        const written = Number(marks.find((m) => m.table_name === table)?.rows ?? 0);
        if (found !== written) damage.push({ table, found, written });
      }
      return damage;
    });
}

/**
 * Refuses a damaged store (ConfigError, one line), else folds the marks into two rows a table
 * (rows ever added, rows ever removed), so they stay small. Marks written meanwhile by another
 * instance are other rows, left as they are.
 */
export async function checkIntegrity(db: Kysely<Tables>, where: string): Promise<void> {
  const damage = await damagedTables(db);
  if (damage.length > 0) {
    const what = damage
      .map((d) => `${WHAT[d.table]} (table ${d.table}) holds ${d.found} rows where ${d.written} were written`)
      .join("; ");
    throw new ConfigError(
      `the team's store at ${where} is damaged: ${what}. It is left as it is: restore it from a backup, or move it aside to start with an empty one (that forgets people, sessions and the record of spends, so purchases in progress cannot be told apart from new ones).`,
    );
  }
  // Housekeeping only (the marks' sums are the same folded or not): two instances folding at once
  // may deadlock on a server, and that must not stop a start.
  await sql`with gone as (delete from row_marks returning table_name, delta)
    insert into row_marks (table_name, delta)
    select table_name, d from (
      select table_name, sum(delta) filter (where delta > 0) as d from gone group by table_name
      union all
      select table_name, sum(delta) filter (where delta < 0) as d from gone group by table_name
    ) folded where d is not null`
    .execute(db)
    .catch(() => {});
}

/** Whether anyone was ever on the team (even if all were removed since): never local mode again. */
export async function everHadPeople(db: Kysely<Tables>): Promise<boolean> {
  const row = await db
    .selectFrom("row_marks")
    .select("id")
    .where("table_name", "=", "users")
    .where(sql<boolean>`delta > 0`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
