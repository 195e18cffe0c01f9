import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Reveal } from "../../contract/inferred";
import { revealsEmail, revealsMobile } from "../../contract/pricing";
import type { Tables } from "../db/schema";
import { pgJson } from "../db/storable";

/**
 * The contacts the team owns (`owned_contacts`): the only module with SQL for that table. Every row
 * Enrich, Preview and a settled export delivered, kept with whose purchase it was, the columns it
 * was bought with and what it revealed; served again for nothing within the retention.
 */

type Row = Record<string, unknown>;

/** The store and how long a bought contact is served again (days; 0: never). */
export interface Store {
  db: Kysely<Tables>;
  retentionDays: number;
}

/** How a purchase's delivered rows are kept: whose, which purchase, with what revealed. */
export interface OwnedBy {
  reveal: Reveal;
  columnsKey: string;
  person: string;
  purchaseId: string;
  operation: string;
}

/** Keeps delivered rows as the team's (a row kept twice for one purchase is kept once). */
export async function recordOwned(db: Kysely<Tables>, rows: readonly Row[], by: OwnedBy): Promise<void> {
  const values = rows
    .filter((row) => typeof row.RBID_PAO === "string" && row.RBID_PAO !== "")
    .map((row) => ({
      rbid_pao: row.RBID_PAO as string,
      rbid_per: typeof row.RBID_PER === "string" && row.RBID_PER !== "" ? row.RBID_PER : null,
      revealed_email: revealsEmail(by.reveal),
      revealed_mobile: revealsMobile(by.reveal),
      columns_key: by.columnsKey,
      row: pgJson(row),
      bought_at: sql<Date>`now()`,
      bought_by: by.person,
      purchase_id: by.purchaseId,
      operation: by.operation,
    }));
  if (values.length === 0) return;
  await db
    .insertInto("owned_contacts")
    .values(values as never)
    .onConflict((oc) => oc.columns(["purchase_id", "rbid_pao"]).doNothing())
    .execute();
}

const OWNED_CACHE_MS = 60_000;
const ownedCache = new WeakMap<Kysely<Tables>, Map<string, { version: string; at: number; ids: string[] }>>();

/**
 * The ids the team owns with these columns and the same or a wider reveal, within the retention.
 * Kept per store for up to a minute while no contact was added (the newest row's id is read each
 * time, one index lookup): an estimate asked again as a filter is edited does not read 50,000 ids
 * again. A contact whose retention ended within that minute may be left out a minute longer.
 */
export async function ownedIds(
  db: Kysely<Tables>,
  retentionDays: number,
  reveal: Reveal,
  key: string,
): Promise<string[]> {
  if (retentionDays <= 0) return [];
  const newest = await db
    .selectFrom("owned_contacts")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  const version = String(newest?.id ?? "");
  const cacheKey = `${retentionDays}\n${revealsEmail(reveal)}\n${revealsMobile(reveal)}\n${key}`;
  let cache = ownedCache.get(db);
  if (!cache) {
    cache = new Map();
    ownedCache.set(db, cache);
  }
  const hit = cache.get(cacheKey);
  if (hit && hit.version === version && Date.now() - hit.at < OWNED_CACHE_MS) return hit.ids;
  let query = db
    .selectFrom("owned_contacts")
    .select("rbid_pao")
    .distinct()
    .where("columns_key", "=", key)
    .where(sql<boolean>`bought_at > now() - make_interval(days => ${retentionDays})`);
  if (revealsEmail(reveal)) query = query.where("revealed_email", "=", true);
  if (revealsMobile(reveal)) query = query.where("revealed_mobile", "=", true);
  const ids = (await query.execute()).map((r) => r.rbid_pao);
  if (cache.size > 50) cache.clear();
  cache.set(cacheKey, { version, at: Date.now(), ids });
  return ids;
}

/** The newest row kept for each of these ids with these columns (an `add-free` file's free rows). */
export async function newestOwnedRows(
  db: Kysely<Tables>,
  ids: readonly string[],
  key: string,
): Promise<Map<string, Row>> {
  const rows = await db
    .selectFrom("owned_contacts")
    .select(["rbid_pao", "row"])
    .where("rbid_pao", "in", [...ids])
    .where("columns_key", "=", key)
    .orderBy("bought_at", "desc")
    .execute();
  const newest = new Map<string, Row>();
  for (const { rbid_pao, row } of rows) if (!newest.has(rbid_pao)) newest.set(rbid_pao, row as Row);
  return newest;
}

/**
 * A contact's id or address as the service finds it: trimmed, in any case. Owned rows, reservations,
 * do-not-contact lists and estimates compare contacts by it.
 */
export function contactKey(value: string): string {
  return value.trim().toLowerCase();
}

/** An owned row's delivered address, as migration 013 indexes it (lower case). */
const ROW_EMAIL = sql<string>`lower(row->>'EMAIL_ADDRESS_PER')`;

/** Owned contacts whose delivered email is one of these (lower-case): their ids and emails. */
export async function ownedByEmail(
  db: Kysely<Tables>,
  emails: readonly string[],
): Promise<{ id: string; email: string }[]> {
  if (emails.length === 0) return [];
  const found = await db
    .selectFrom("owned_contacts")
    .select(["rbid_pao", ROW_EMAIL.as("email")])
    .where(sql<boolean>`${ROW_EMAIL} = any(${[...emails]}::text[])`)
    .execute();
  return found.map((f) => ({ id: f.rbid_pao, email: f.email }));
}

/**
 * The newest row the team owns for each id: bought with the same columns and the same or a wider
 * reveal, within the retention. Ids match exactly (as the service delivered RBID_PAO).
 */
export async function ownedRows(
  deps: Store,
  ids: string[],
  reveal: Reveal,
  key: string,
): Promise<Map<string, Row>> {
  // The service finds ids trimmed and in any case (as the sandbox does): a contact id pasted as
  // "PAO_…" is the same contact as the stored "pao_…", and is not bought again.
  return servable(deps, ids, reveal, key, sql.ref("rbid_pao"));
}

/**
 * The rows the team owns for these addresses (Enrich by email), keyed by each address as asked:
 * rows delivered with their email revealed, matched without case, with the same columns and the
 * same or a wider reveal, within the retention. A contact bought without its email revealed cannot
 * be found by address (its row does not carry one): it is bought again.
 */
export async function ownedRowsByEmail(
  deps: Store,
  emails: string[],
  reveal: Reveal,
  key: string,
): Promise<Map<string, Row>> {
  return servable(deps, emails, reveal, key, ROW_EMAIL);
}

/** Owned rows whose `match` (a lower-case expression) is one of `asked` (trimmed, any case). */
async function servable(
  deps: Store,
  asked: string[],
  reveal: Reveal,
  key: string,
  match: RawBuilder<unknown>,
): Promise<Map<string, Row>> {
  const found = new Map<string, Row>();
  if (asked.length === 0 || deps.retentionDays <= 0) return found;
  const byNorm = new Map<string, string[]>();
  for (const value of asked) {
    const norm = contactKey(value);
    byNorm.set(norm, [...(byNorm.get(norm) ?? []), value]);
  }
  let query = deps.db
    .selectFrom("owned_contacts")
    .select([match.as("matched"), "row", "bought_at"])
    .where(match, "in", [...byNorm.keys()])
    .where("columns_key", "=", key)
    .where(sql<boolean>`bought_at > now() - make_interval(days => ${deps.retentionDays})`);
  if (revealsEmail(reveal)) query = query.where("revealed_email", "=", true);
  if (revealsMobile(reveal)) query = query.where("revealed_mobile", "=", true);
  const rows = await query.orderBy("bought_at", "desc").execute();
  for (const row of rows)
    for (const value of byNorm.get(String(row.matched)) ?? [])
      if (!found.has(value)) found.set(value, row.row);
  return found;
}

/** Of these ids, those Enrich would serve from the team's store (see ownedRows). */
export async function ownedAmong(
  deps: Store,
  ids: string[],
  reveal: Reveal,
  key: string,
): Promise<Set<string>> {
  return new Set((await ownedRows(deps, ids, reveal, key)).keys());
}

/** Deletes owned rows past the retention: the paid data is not kept longer than it is served. */
export async function sweepOwned(db: Kysely<Tables>, retentionDays: number): Promise<void> {
  await db
    .deleteFrom("owned_contacts")
    .where(sql<boolean>`bought_at < now() - make_interval(days => ${retentionDays})`)
    .execute();
}
