import { type Kysely, sql } from "kysely";
import type { LedgerAnswer, LedgerQuery } from "../../contract/ledger";
import type { LedgerOutcome, Tables } from "../db/schema";
import { pgJson, pgText } from "../db/storable";

/**
 * The ledger's repository: the only module with SQL for the `ledger` table. One row per purchase
 * (`key_hash`, the journal entry's id; unique since migration 011), written inside the journal's
 * commit of its outcome, and changed after only by its settlement (pending → what it came to).
 */

type Db = Kysely<Tables>;

/** One spend's row, as every spend path writes it (inside the journal's commit of its outcome). */
export interface LedgerRowValues {
  person: string;
  operation: string;
  audienceName: string | null;
  /** The filter bought from (Preview, Export); null otherwise. */
  filter: unknown;
  /** What a verification or company search was for; null otherwise. */
  detail: string | null;
  rows: number;
  rowsFree: number;
  estimated: number | null;
  charged: number | null;
  outcome: LedgerOutcome;
  /** The journal entry's id, and the Idempotency-Key's last four characters. */
  keyHash: string;
  keyLast4: string;
}

/** Writes a purchase's row; a second row for the same purchase is refused by the table. */
export async function writeLedgerRow(trx: Db, v: LedgerRowValues): Promise<void> {
  await trx
    .insertInto("ledger")
    .values({
      at: sql<Date>`now()` as never,
      person: v.person,
      operation: v.operation,
      audience_name: pgText(v.audienceName),
      filter: v.filter === null || v.filter === undefined ? null : pgJson(v.filter),
      detail: pgText(v.detail),
      rows: v.rows,
      rows_free: v.rowsFree,
      credits_estimated: v.estimated,
      credits_charged: v.charged,
      outcome: v.outcome,
      key_hash: v.keyHash,
      key_last4: v.keyLast4,
    })
    .execute();
}

/** When the purchase's row was written, if it has one: a key the ledger holds is never sent again. */
export async function boughtAt(db: Db, keyHash: string): Promise<Date | null> {
  const row = await db.selectFrom("ledger").select("at").where("key_hash", "=", keyHash).executeTakeFirst();
  return row ? new Date(row.at) : null;
}

/** A condition for another owner's statement: the ledger has no row for this purchase. */
export function notBought(keyHash: string) {
  return sql<boolean>`not exists (select 1 from ledger where key_hash = ${keyHash})`;
}

/** The `unknown` row another instance wrote for this purchase gives way to what is now known of it. */
export async function dropUnknownRow(trx: Db, keyHash: string): Promise<void> {
  await trx.deleteFrom("ledger").where("key_hash", "=", keyHash).where("outcome", "=", "unknown").execute();
}

/**
 * A purchase learned to be under way after its row was written `unknown` (an export start found in
 * the export list): the row becomes `pending` at what the service now says. Whether the purchase
 * has a row at all afterwards.
 */
export async function recoverUnknownRow(
  trx: Db,
  keyHash: string,
  pending: { rows: number; estimated: number },
): Promise<boolean> {
  await trx
    .updateTable("ledger")
    .set({
      rows: pending.rows,
      credits_estimated: pending.estimated,
      credits_charged: null,
      outcome: "pending",
    })
    .where("key_hash", "=", keyHash)
    .where("outcome", "=", "unknown")
    .execute();
  return (await boughtAt(trx, keyHash)) !== null;
}

/** What a pending purchase came to, once settled (or given up: `unknown`, with what to check). */
export interface Settled {
  outcome: LedgerOutcome;
  charged: number | null;
  rows?: number;
  rowsFree?: number;
  /** Added after the row's own detail. */
  note?: string;
}

/** Settles a purchase's pending row; a row already settled is left as it is. */
export async function settleRow(trx: Db, keyHash: string, s: Settled): Promise<void> {
  await trx
    .updateTable("ledger")
    .set({
      outcome: s.outcome,
      credits_charged: s.charged,
      ...(s.rows !== undefined ? { rows: s.rows } : {}),
      ...(s.rowsFree !== undefined ? { rows_free: s.rowsFree } : {}),
      ...(s.note !== undefined ? { detail: sql<string>`coalesce(detail || ' · ', '') || ${s.note}` } : {}),
    })
    .where("key_hash", "=", keyHash)
    .where("outcome", "=", "pending")
    .execute();
}

/** A purchase's row as an approval tells what its run came to. */
export interface PurchaseRow {
  outcome: string;
  credits_charged: number | null;
  credits_estimated: number | null;
  rows: number;
  operation: string;
}

/** The rows of these purchases, by purchase (what a list of approvals says each came to). */
export async function rowsOfPurchases(
  db: Db,
  keyHashes: readonly string[],
): Promise<Map<string, PurchaseRow>> {
  if (keyHashes.length === 0) return new Map();
  const rows = await db
    .selectFrom("ledger")
    .select(["key_hash", "outcome", "credits_charged", "credits_estimated", "rows", "operation"])
    .where("key_hash", "in", keyHashes)
    .execute();
  return new Map(rows.map(({ key_hash, ...row }) => [key_hash, row]));
}

/** One purchase's row, if the ledger has it. */
export async function rowOfPurchase(db: Db, keyHash: string): Promise<PurchaseRow | undefined> {
  return (await rowsOfPurchases(db, [keyHash])).get(keyHash);
}

/** What these purchases were bought from: their filters and audience names, by purchase. */
export async function filtersOf(
  db: Db,
  keyHashes: readonly string[],
): Promise<{ keyHash: string; filter: unknown; name: string | null; at: Date }[]> {
  if (keyHashes.length === 0) return [];
  const rows = await db
    .selectFrom("ledger")
    .select(["key_hash", "filter", "audience_name", "at"])
    .where("key_hash", "in", [...keyHashes])
    .execute();
  return rows.map((r) => ({
    keyHash: r.key_hash,
    filter: r.filter,
    name: r.audience_name,
    at: new Date(r.at),
  }));
}

/** What a row counts against the caps: its charge, or its estimate while not known or pending. */
const counted = sql<number>`case when outcome in ('pending', 'unknown') then coalesce(credits_estimated, 0) else coalesce(credits_charged, 0) end`;

/** What the rows of [from, to) count against the caps, of `person` (null: the whole team). */
export async function countedBetween(db: Db, person: string | null, from: Date, to: Date): Promise<number> {
  let select = db
    .selectFrom("ledger")
    .select(sql<number | string>`coalesce(sum(${counted}), 0)`.as("spent"))
    .where("at", ">=", from)
    .where("at", "<", to);
  if (person !== null) select = select.where("person", "=", person);
  return Number((await select.executeTakeFirst())?.spent ?? 0);
}

/** Per person, what the rows of [from, to) count against the caps, and how many are `unknown`. */
export async function countedByPerson(
  db: Db,
  from: Date,
  to: Date,
): Promise<{ person: string; spent: number; unknown: number }[]> {
  const rows = await db
    .selectFrom("ledger")
    .select([
      "person",
      sql<number | string>`coalesce(sum(${counted}), 0)`.as("spent"),
      sql<number | string>`count(*) filter (where outcome = 'unknown')`.as("unknown"),
    ])
    .where("at", ">=", from)
    .where("at", "<", to)
    .groupBy("person")
    .execute();
  return rows.map((r) => ({ person: r.person, spent: Number(r.spent), unknown: Number(r.unknown) }));
}

/** The ledger's page: newest first, with totals. */
export async function readLedger(db: Db, query: LedgerQuery): Promise<LedgerAnswer> {
  let select = db.selectFrom("ledger").selectAll();
  if (query.person !== undefined) select = select.where("person", "=", query.person);
  if (query.month !== undefined) {
    const [year, month] = query.month.split("-").map(Number) as [number, number];
    const from = new Date(Date.UTC(year, month - 1, 1));
    const to = new Date(Date.UTC(year, month, 1));
    select = select.where("at", ">=", from).where("at", "<", to);
  }
  const rows = await select.orderBy("at", "desc").orderBy(sql`id`, "desc").execute();
  const entries = rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    person: r.person,
    operation: r.operation,
    audienceName: r.audience_name,
    filter: r.filter ?? null,
    rows: r.rows,
    rowsFree: r.rows_free,
    creditsEstimated: r.credits_estimated === null ? null : Number(r.credits_estimated),
    creditsCharged: r.credits_charged === null ? null : Number(r.credits_charged),
    outcome: r.outcome,
    keyLast4: r.key_last4,
    detail: r.detail ?? null,
  }));
  return {
    entries,
    totals: {
      entries: entries.length,
      rows: entries.reduce((n, e) => n + e.rows, 0),
      rowsFree: entries.reduce((n, e) => n + e.rowsFree, 0),
      creditsCharged: entries.reduce((n, e) => n + (e.creditsCharged ?? 0), 0),
      unknown: entries.filter((e) => e.outcome === "unknown").length,
    },
  };
}
