import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Tables } from "../db/schema";

/*
 * What a purchase holds while it is under way (`spend_holds`, `contact_reservations`, owned here),
 * taken when it is admitted and let go in the commit of its outcome (spend-journal.ts).
 */

const dbNow = sql<Date>`now()`;

/** True where the purchase named in `column` is still under way (spend-journal.ts's rule). */
export type Pending = (column: string) => RawBuilder<boolean>;

/**
 * What a purchase holds while it is under way, let go with the commit of its outcome: its hold on
 * the caps (spending-policy.ts) and the contacts it reserved (`reserveAll`).
 */
export async function releaseHold(trx: Kysely<Tables>, id: string) {
  // One statement for both (a spend's commit pays for every round trip).
  await sql`with holds as (delete from spend_holds where entry_id = ${id})
    delete from contact_reservations where purchase_id = ${id}`.execute(trx);
}

/*
 * Holds on the caps (`spend_holds`): the estimate of a purchase admitted and not yet in the ledger,
 * made in the admission's transaction (spending-policy.ts) and let go with the commit of its
 * outcome.
 */

/** Holds `estimate` for a purchase; false when it already holds (an approval made it). */
export async function holdCredits(
  trx: Kysely<Tables>,
  entryId: string,
  person: string,
  estimate: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("spend_holds")
    .values({ entry_id: entryId, person, credits: estimate, at: dbNow })
    .onConflict((oc) => oc.column("entry_id").doNothing())
    .returning("entry_id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The credits a purchase holds; null when it holds none. */
export async function heldFor(db: Kysely<Tables>, entryId: string): Promise<number | null> {
  const held = await db
    .selectFrom("spend_holds")
    .select("credits")
    .where("entry_id", "=", entryId)
    .executeTakeFirst();
  return held ? Number(held.credits) : null;
}

/**
 * Lets a hold go whose purchase was not run here (replayed, joined, refused), unless it is under
 * way: `pending` says so of the purchase named in a column (the journal's `entryPending`).
 */
export async function releaseUnlessPending(
  db: Kysely<Tables>,
  entryId: string,
  pending: Pending,
): Promise<void> {
  await db
    .deleteFrom("spend_holds")
    .where("entry_id", "=", entryId)
    .where(sql<boolean>`not ${pending("spend_holds.entry_id")}`)
    .execute();
}

/** Holds older than `minutes` whose purchase never reached the journal (its process stopped). */
export async function dropStaleHolds(trx: Kysely<Tables>, minutes: number, pending: Pending): Promise<void> {
  await trx
    .deleteFrom("spend_holds")
    .where(sql<boolean>`at < now() - make_interval(mins => ${minutes})`)
    .where(sql<boolean>`not ${pending("spend_holds.entry_id")}`)
    .execute();
}

/** The credits held by purchases made in [from, to), of `person` (null: the team), but `except`'s. */
export async function heldBetween(
  db: Kysely<Tables>,
  person: string | null,
  except: string | null,
  from: Date,
  to: Date,
): Promise<number> {
  let select = db
    .selectFrom("spend_holds")
    .select(sql<number | string>`coalesce(sum(credits), 0)`.as("held"))
    .where("at", ">=", from)
    .where("at", "<", to);
  if (person !== null) select = select.where("person", "=", person);
  if (except !== null) select = select.where("entry_id", "<>", except);
  return Number((await select.executeTakeFirst())?.held ?? 0);
}

/** Per person, the credits held by purchases made in [from, to). */
export async function heldByPerson(
  db: Kysely<Tables>,
  from: Date,
  to: Date,
): Promise<{ person: string; held: number }[]> {
  const rows = await db
    .selectFrom("spend_holds")
    .select(["person", sql<number | string>`sum(credits)`.as("held")])
    .where("at", ">=", from)
    .where("at", "<", to)
    .groupBy("person")
    .execute();
  return rows.map((r) => ({ person: r.person, held: Number(r.held) }));
}

/**
 * Reserves `people` (normalised keys) for the purchase `id`, all or none, in one transaction: a
 * reservation whose purchase is no longer under way (`underWay`: pending in a live instance) is
 * taken over first. False when another purchase under way holds any of them.
 */
export async function reserveAll(
  db: Kysely<Tables>,
  id: string,
  people: readonly string[],
  underWay: Pending,
): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      await trx
        .deleteFrom("contact_reservations")
        .where("person_key", "in", people)
        .where("purchase_id", "!=", id)
        .where(sql<boolean>`not ${underWay("contact_reservations.purchase_id")}`)
        .execute();
      await trx
        .insertInto("contact_reservations")
        .values(people.map((person_key) => ({ person_key, purchase_id: id, at: dbNow })))
        .onConflict((oc) => oc.column("person_key").doNothing())
        .execute();
      const mine = await trx
        .selectFrom("contact_reservations")
        .select(sql<string>`count(*)`.as("n"))
        .where("person_key", "in", people)
        .where("purchase_id", "=", id)
        .executeTakeFirstOrThrow();
      // All or none: a purchase never holds some while it waits for others (no deadlock).
      if (Number(mine.n) !== people.length) throw new Held();
      return true;
    })
    .catch((error) => {
      if (error instanceof Held) return false;
      throw error;
    });
}

/** Some of the contacts asked for are held by another purchase: the attempt is rolled back. */
class Held extends Error {}
