import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { lastRestore } from "../db/backup";
import type { Database } from "../db/database";
import { ProxyInstances } from "../db/instances";
import type { Tables } from "../db/schema";
import type { BufferedAnswer } from "../http/answer";
import { heldFor, releaseHold, reserveAll } from "./holds-store";
import { boughtAt, dropUnknownRow, type LedgerRowValues, notBought, writeLedgerRow } from "./ledger-store";
import type { Claimer } from "./settlement";

/** Stripe's rule, narrowed: 8 to 128 characters a header can carry without escaping. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;

const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * Whether a key says it was made before `moment`: a UUIDv7 (the app's keys) carries the time it
 * was made. Another key's age cannot be told, and is taken as new.
 */
export function keyMadeBefore(key: string, moment: Date): boolean {
  const v7 = UUID_V7.exec(key);
  if (!v7) return false;
  return Number.parseInt(`${v7[1]}${v7[2]}`, 16) < moment.getTime();
}

/** What a spend's exchange with the service came to, as far as the proxy can know. */
export type WorkOutcome =
  /** The service answered (whatever it said, it may have acted): replayed to every retry. */
  | "final"
  /** Nothing reached the service, or it refused before any work: the same key may be sent again. */
  | "nothing-done"
  /** Sent, and no answer came (timeout, broken connection): it may have been carried out. */
  | "unknown";

export interface WorkResult {
  answer: BufferedAnswer;
  outcome: WorkOutcome;
  /**
   * Writes that belong to this outcome (the contacts delivered, the ledger's row), run in the same
   * transaction as the journal's final state: both are written, or neither. Not run for "nothing-done".
   */
  record?: Recorder;
}

/** Writes run inside the transaction that commits a journal entry's outcome. */
export type Recorder = (trx: Kysely<Tables>) => Promise<void>;

export type SpendResult =
  | { kind: "fresh"; answer: BufferedAnswer }
  | { kind: "replay"; answer: BufferedAnswer }
  /** The key was used for another operation or other details. */
  | { kind: "conflict" }
  /** Sent before, and whether it was carried out is not known: never sent again by itself. */
  | { kind: "unknown"; since: Date }
  /** Still being carried out by another instance, alive, after the wait: ask again later. */
  | { kind: "busy" }
  /** Made (the ledger has it) and its answer no longer kept: never sent again, at any age. */
  | { kind: "spent"; at: Date };

export interface SpendScope {
  caller: string;
  operation: string;
  key: string;
}

/**
 * What a lost outcome can be checked against: for an export, the service's export list, searched
 * for the tag this journal put in its name. `found` is the answer the start would have given;
 * `absent` means it was never made (and may be sent now); `sinceSentMs` is how long ago the latest
 * attempt began (its pending commit), by the database's clock. `record` is committed with the
 * found answer (the export's ledger row and its settling).
 */
export type Reconcile = (
  tag: string,
  sinceSentMs: number,
) => Promise<{ found: BufferedAnswer; record?: Recorder } | "absent" | "not-known">;

/** The journal could not be written: nothing was sent. */
export class JournalUnavailable extends Error {
  override name = "JournalUnavailable";
}

/** How often pending entries of gone instances are looked for (and recorded as unknown). */
const GONE_SWEEP_MS = 30_000;
/** An outcome never learned is kept (without any answer) this long, so its key is not sent again. */
const UNRESOLVED_KEEP_MS = 30 * 24 * 3600_000;
/** Every time below is the database's clock: instances on several machines compare them. */
const dbNow = sql<Date>`now()`;
const olderThan = (column: "created_at" | "finished_at", ms: number) =>
  sql<boolean>`${sql.ref(column)} < now() - make_interval(secs => ${ms / 1000})`;

/**
 * The write-ahead record of every spending request, Stripe's way: the entry (caller, operation,
 * canonical request hash, key) is committed as `pending` before the request leaves, and the answer
 * committed before it is returned. A retry with the same key gets the saved answer; one that
 * arrives while the first is under way (in this process or another sharing the database) joins
 * it; one whose first attempt was cut off by a crash is `unknown` and never sent again by itself
 * (an export is looked up instead: see `Reconcile`). Answered entries, and the paid data in them,
 * are deleted once older than the TTL; entries whose outcome was never learned are kept 30 days.
 */
export class SpendJournal {
  private readonly instances: ProxyInstances;
  readonly instanceId: string;
  private readonly inFlight = new Map<string, Promise<SpendResult & { fingerprint: string }>>();
  /**
   * Entries whose insert this instance saw fail, so it sent nothing for them. The failed commit
   * may still have reached the database's log (a failed flush: the instance broke after writing
   * it), leaving a pending entry of this live instance that no retry could ever take; it is
   * dropped when next seen, and the key is a new purchase again.
   */
  private readonly unsent = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  /** When the store was last restored from a backup (db/backup.ts): keys made before may be lost. */
  private restoredAt: Date | null = null;

  /** This instance as a settlement's claimer (settlement.ts), with instances.ts's liveness rule. */
  claimer(): Claimer {
    return { id: this.instanceId, gone: (column) => this.instances.gone(column) };
  }

  constructor(
    private readonly database: Database,
    private readonly options: {
      ttlMs: number;
      /** How long a retry waits for the same spend under way in another instance (then SPEND_IN_PROGRESS). */
      joinWaitMs: number;
      /** The answer could not be committed (it is still returned; a later retry hears "unknown"). */
      onCommitError?: (error: unknown) => void;
    },
  ) {
    this.instances = new ProxyInstances(database);
    this.instanceId = this.instances.id;
  }

  async start(): Promise<void> {
    await this.instances.register();
    this.restoredAt = await lastRestore(this.database.db);
    await this.sweep();
    await this.sweepGone();
    const sweeper = setInterval(
      () => void this.sweep().catch(() => {}),
      Math.min(this.options.ttlMs, 3600_000),
    );
    const gone = setInterval(() => void this.sweepGone().catch(() => {}), GONE_SWEEP_MS);
    this.timers = [sweeper, gone];
    for (const timer of this.timers) timer.unref();
  }

  /** Lets spends under way finish (for a while) before this instance is struck off. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const pending = Promise.allSettled([...this.inFlight.values()]);
    await Promise.race([pending, new Promise((r) => setTimeout(r, 10_000).unref())]);
    await this.instances.strikeOff();
  }

  /** The entry's id for a scope (a hash of caller and key): the purchase's id in the ledger. */
  static entryId(scope: SpendScope): string {
    return idOf(scope);
  }

  /** The tag an export started under this scope carries in its name. */
  static tagOf(scope: SpendScope): string {
    return `ab-${idOf(scope).slice(0, 16)}`;
  }

  /**
   * Whether the journal holds this scope's entry (under way, answered within the TTL, or outcome
   * unknown) or the ledger its purchase: then `run` replays, joins or refuses it, and the caps are not asked again (a replay
   * is never refused by a cap). Throws JournalUnavailable when the database cannot say.
   */
  async known(scope: SpendScope): Promise<boolean> {
    try {
      const row = await this.database.db
        .selectFrom("spend_journal")
        .select((eb) =>
          eb
            .or([
              eb.and([eb("state", "=", "done"), olderThan("finished_at", this.options.ttlMs)]),
              olderThan("created_at", Math.max(UNRESOLVED_KEEP_MS, this.options.ttlMs)),
            ])
            .as("expired"),
        )
        .where("id", "=", idOf(scope))
        .executeTakeFirst();
      if (row !== undefined && !row.expired) return true;
      // Bought, its answer gone: `run` refuses it (PURCHASE_ALREADY_MADE), before any cap.
      return (await boughtAt(this.database.db, idOf(scope))) !== null;
    } catch (error) {
      throw new JournalUnavailable(String((error as Error)?.message ?? error));
    }
  }

  /** Spends started by instances that are gone, whose outcome was never recorded (e.g. a rotation). */
  async cutOff(operations: string[]): Promise<{ operation: string; at: Date }[]> {
    const rows = await this.database.db
      .selectFrom("spend_journal")
      .select(["operation", "created_at", "owner"])
      .where("state", "in", ["pending", "unknown"])
      .where("operation", "in", operations)
      .execute();
    const gone = [];
    for (const row of rows)
      if (await this.isGone(row.owner)) gone.push({ operation: row.operation, at: row.created_at });
    return gone;
  }

  /**
   * Runs `work` at most once per (caller, key). Throws JournalUnavailable when the pending entry
   * cannot be written: then nothing was sent.
   */
  async run(
    scope: SpendScope,
    fingerprint: string,
    work: () => Promise<WorkResult>,
    reconcile?: Reconcile,
    /**
     * The ledger row this spend comes to if its outcome is never learned: kept with the pending
     * entry, written when the entry is marked unknown (by a retry, or by the sweep of gone instances).
     */
    unknownRow?: LedgerRowValues,
  ): Promise<SpendResult> {
    const id = idOf(scope);
    const signature = `${scope.operation}\n${fingerprint}`;
    const joined = this.inFlight.get(id);
    if (joined) {
      const first = await joined;
      if (first.fingerprint !== signature) return { kind: "conflict" };
      return first.kind === "fresh" ? { kind: "replay", answer: first.answer } : first;
    }
    // Registered before the first await, so a concurrent repeat in this process always finds it.
    const promise = this.settle(id, scope, signature, work, reconcile, unknownRow).then((result) => ({
      ...result,
      fingerprint: result.kind === "conflict" ? "" : signature,
    }));
    this.inFlight.set(id, promise);
    try {
      const { fingerprint: _, ...result } = await promise;
      return result;
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async settle(
    id: string,
    scope: SpendScope,
    signature: string,
    work: () => Promise<WorkResult>,
    reconcile?: Reconcile,
    unknownRow?: LedgerRowValues,
  ): Promise<SpendResult> {
    const { db } = this.database;
    const waitUntil = Date.now() + this.options.joinWaitMs;
    if (this.restoredAt && keyMadeBefore(scope.key, this.restoredAt)) {
      // Made before the store was restored, and not in it: it may have been sent after the backup
      // was taken, its record lost with the restore. Never sent again by itself.
      const lost = await this.lostInRestore(id).catch((error) => {
        throw new JournalUnavailable(String((error as Error)?.message ?? error));
      });
      if (lost) return { kind: "unknown", since: this.restoredAt };
    }
    for (;;) {
      let inserted: { id: string } | undefined;
      try {
        // The ledger outlives the journal's answers: a key it holds was bought, and is not sent
        // again once its answer is gone. One statement inserts the pending entry unless the ledger
        // has the purchase (no instance slips in, and a crash leaves nothing half done).
        inserted = await this.insertPending(db, id, scope, signature, reconcile, unknownRow);
      } catch (error) {
        this.unsent.add(id);
        throw new JournalUnavailable(String((error as Error)?.message ?? error));
      }
      if (inserted) {
        this.unsent.delete(id);
        return this.perform(id, work);
      }

      const row = await db
        .selectFrom("spend_journal")
        .selectAll()
        .select((eb) =>
          eb
            .or([
              eb.and([eb("state", "=", "done"), olderThan("finished_at", this.options.ttlMs)]),
              olderThan("created_at", Math.max(UNRESOLVED_KEEP_MS, this.options.ttlMs)),
            ])
            .as("expired"),
        )
        .select(
          sql<number>`extract(epoch from now() - coalesce(sent_at, created_at)) * 1000`.as("since_sent_ms"),
        )
        .where("id", "=", id)
        .executeTakeFirst();
      if (!row) {
        // No entry, and none inserted: the ledger has it (bought, its answer no longer kept).
        const spent = await boughtAt(db, id).catch((error) => {
          throw new JournalUnavailable(String((error as Error)?.message ?? error));
        });
        if (spent) return { kind: "spent", at: spent };
        continue; // expired and swept between the two statements: insert again
      }
      if (row.expired) {
        await db
          .deleteFrom("spend_journal")
          .where("id", "=", id)
          .where("created_at", "=", row.created_at)
          .execute();
        continue;
      }
      if (row.state === "pending" && (await this.dropUnsent(id, row.owner))) continue;
      if (row.fingerprint !== signature) return { kind: "conflict" };
      if (row.state === "done") return { kind: "replay", answer: answerOf(row) };
      const gone = row.state === "unknown" || (await this.isGone(row.owner));
      if (!gone) {
        // Under way in a live instance: its answer is coming; never judged lost while it lives.
        if (Date.now() >= waitUntil) return { kind: "busy" };
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (row.state === "pending") await this.markUnknown(id, row.owner);
      if (!reconcile || !row.export_tag) return { kind: "unknown", since: row.created_at };
      const found = await reconcile(row.export_tag, Number(row.since_sent_ms)).catch(
        () => "not-known" as const,
      );
      if (found === "not-known") return { kind: "unknown", since: row.created_at };
      if (found !== "absent") {
        await this.finish(id, { answer: found.found, outcome: "final", record: found.record }, true);
        return { kind: "replay", answer: found.found };
      }
      // Never made: take the entry over (one instance wins) and send it now.
      const taken = await db
        .updateTable("spend_journal")
        .set({ state: "pending", owner: this.instanceId, sent_at: dbNow })
        .where("id", "=", id)
        .where("state", "=", "unknown")
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return this.perform(id, work);
    }
  }

  private async lostInRestore(id: string): Promise<boolean> {
    const { db } = this.database;
    const row = await db.selectFrom("spend_journal").select("id").where("id", "=", id).executeTakeFirst();
    return row === undefined && (await boughtAt(db, id)) === null;
  }

  private insertPending(
    trx: Kysely<Tables>,
    id: string,
    scope: SpendScope,
    signature: string,
    reconcile?: Reconcile,
    unknownRow?: LedgerRowValues,
  ): Promise<{ id: string } | undefined> {
    // insert … select …, where not bought: the entry, only while the ledger lacks the purchase.
    const exportTag = reconcile ? SpendJournal.tagOf(scope) : null;
    const unknown = unknownRow ? JSON.stringify(unknownRow) : null;
    return sql<{ id: string }>`insert into spend_journal
        (id, caller, operation, fingerprint, state, owner, export_tag, unknown_row, created_at, sent_at)
      select ${id}, ${scope.caller}, ${scope.operation}, ${signature}, 'pending', ${this.instanceId},
        ${exportTag}, ${unknown}, now(), now()
      where ${notBought(id)}
      on conflict (id) do nothing
      returning id`
      .execute(trx)
      .then((r) => r.rows[0]);
  }

  /**
   * A pending entry of a gone instance becomes `unknown`, once: the instance that marks it writes
   * the ledger's "unknown" row kept with it (which counts its estimate against the caps from now
   * on) and lets its hold and reserved contacts go, in the same commit.
   */
  private async markUnknown(id: string, owner: string): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      const marked = await trx
        .updateTable("spend_journal")
        .set({ state: "unknown" })
        .where("id", "=", id)
        .where("owner", "=", owner)
        .where("state", "=", "pending")
        .returning("unknown_row")
        .executeTakeFirst();
      if (!marked) return;
      if (marked.unknown_row) {
        const row = JSON.parse(marked.unknown_row) as LedgerRowValues;
        // Not priced by the caps: what may have been spent is the hold its admission made.
        await writeLedgerRow(trx, { ...row, estimated: row.estimated ?? (await heldFor(trx, id)) });
      }
      await releaseHold(trx, id);
    });
  }

  /**
   * Pending entries whose instance is gone (a crash, a lost database connection) are marked
   * `unknown` with their ledger row, without waiting for their key to be sent again: at start, and
   * every GONE_SWEEP_MS. Nothing is sent again by it.
   */
  async sweepGone(): Promise<number> {
    const pending = await this.database.db
      .selectFrom("spend_journal")
      .select(["id", "owner"])
      .where("state", "=", "pending")
      .execute();
    let marked = 0;
    for (const entry of pending) {
      if (this.inFlight.has(entry.id)) continue; // under way here
      if (await this.dropUnsent(entry.id, entry.owner)) continue;
      if (!(await this.isGone(entry.owner))) continue;
      await this.markUnknown(entry.id, entry.owner);
      marked++;
    }
    return marked;
  }

  /** Drops this instance's pending entry `id` if its insert was seen to fail (see `unsent`). */
  private async dropUnsent(id: string, owner: string): Promise<boolean> {
    if (owner !== this.instanceId || !this.unsent.has(id)) return false;
    await this.database.db
      .deleteFrom("spend_journal")
      .where("id", "=", id)
      .where("owner", "=", this.instanceId)
      .where("state", "=", "pending")
      .execute();
    this.unsent.delete(id);
    return true;
  }

  private async perform(id: string, work: () => Promise<WorkResult>): Promise<SpendResult> {
    const result = await work();
    await this.finish(id, result);
    return { kind: "fresh", answer: result.answer };
  }

  /** `adopt`: an entry of a gone instance whose outcome this one found (an export in the list). */
  private async finish(id: string, { answer, outcome, record }: WorkResult, adopt = false) {
    const { db } = this.database;
    try {
      // The purchase's hold on the caps goes in the same commit: nothing done frees it, and a final
      // or unknown outcome's ledger row counts instead (its charge, or its estimate).
      await db.transaction().execute(async (trx) => {
        const finished =
          outcome === "final"
            ? {
                state: "done" as const,
                finished_at: dbNow,
                status: answer.status,
                headers: JSON.stringify(answer.headers),
                body: answer.body,
              }
            : { state: "unknown" as const, finished_at: dbNow };
        // The usual case, in one statement: still this instance's pending entry.
        const committed =
          outcome === "nothing-done"
            ? await trx
                .deleteFrom("spend_journal")
                .where("id", "=", id)
                .where("owner", "=", this.instanceId)
                .where("state", "=", "pending")
                .executeTakeFirst()
            : await trx
                .updateTable("spend_journal")
                .set(finished)
                .where("id", "=", id)
                .where("owner", "=", this.instanceId)
                .where("state", "=", "pending")
                .executeTakeFirst();
        const changed = "numDeletedRows" in committed ? committed.numDeletedRows : committed.numUpdatedRows;
        if (Number(changed) === 0) {
          const entry = await trx
            .selectFrom("spend_journal")
            .select(["state", "owner"])
            .where("id", "=", id)
            .forUpdate()
            .executeTakeFirst();
          // Taken over by another instance (it judged this one gone and sent it itself): its to record.
          if (!entry || entry.state === "done" || (!adopt && entry.owner !== this.instanceId))
            throw new NotOurs(id);
          // Marked unknown by another instance during a silence of this one: the "unknown" ledger row
          // it wrote gives way to what this instance knows, so the purchase keeps one row.
          if (entry.state === "unknown") await dropUnknownRow(trx, id);
          if (outcome === "nothing-done")
            await trx.deleteFrom("spend_journal").where("id", "=", id).execute();
          else await trx.updateTable("spend_journal").set(finished).where("id", "=", id).execute();
        }
        if (outcome !== "nothing-done") await record?.(trx);
        await releaseHold(trx, id);
      });
    } catch (error) {
      // The entry stays as it was: a retry after this process is gone hears "outcome unknown".
      this.options.onCommitError?.(error);
    }
  }

  /**
   * The export starts under way (pending) that began before `keyHash`'s: their filters, from the
   * ledger row each keeps for an outcome not known. The first of two starts at once goes on; the
   * later one sees the earlier (by the database's clock, then by id), never the other way round.
   */
  async exportStartsBefore(
    keyHash: string,
  ): Promise<{ filter: unknown; name: string | null; since: Date }[]> {
    const rows = await this.database.db
      .selectFrom("spend_journal as other")
      .innerJoin("spend_journal as mine", (join) => join.on("mine.id", "=", keyHash))
      .select(["other.unknown_row", "other.created_at"])
      .where("other.operation", "=", "exportStart")
      .where("other.state", "=", "pending")
      .where("other.id", "<>", keyHash)
      .where((eb) =>
        eb.or([
          eb("other.created_at", "<", eb.ref("mine.created_at")),
          eb.and([eb("other.created_at", "=", eb.ref("mine.created_at")), eb("other.id", "<", keyHash)]),
        ]),
      )
      .execute();
    return rows.flatMap((r) => {
      if (!r.unknown_row) return [];
      const row = JSON.parse(r.unknown_row) as LedgerRowValues;
      return [{ filter: row.filter, name: row.audienceName, since: new Date(r.created_at) }];
    });
  }

  /**
   * The moment a spend is really sent (after the free work before it): an export's "was it ever
   * made?" is timed from here. False when the entry is no longer this instance's pending one, and
   * then it must not be sent.
   */
  async markSent(scope: SpendScope): Promise<boolean> {
    const marked = await this.database.db
      .updateTable("spend_journal")
      .set({ sent_at: dbNow })
      .where("id", "=", idOf(scope))
      .where("owner", "=", this.instanceId)
      .where("state", "=", "pending")
      .executeTakeFirst();
    return Number(marked.numUpdatedRows) === 1;
  }

  /**
   * Reserves these contacts for the purchase `id` (a pending entry of this instance), all or none:
   * while another purchase in flight holds any of them, waits (up to `waitMs`) for it to commit.
   * A reservation whose purchase is no longer pending in a live instance is taken over. "busy"
   * when the wait ran out; throws JournalUnavailable when the database cannot say.
   */
  async reserve(id: string, people: readonly string[], waitMs: number): Promise<"reserved" | "busy"> {
    const keys = [...new Set(people.map((p) => p.trim().toLowerCase()))].sort();
    if (keys.length === 0) return "reserved";
    const { db } = this.database;
    const until = Date.now() + waitMs;
    for (;;) {
      let got: boolean;
      try {
        got = await reserveAll(db, id, keys, (column) =>
          entryPending(column, this.instances.gone("spend_journal.owner")),
        );
      } catch (error) {
        throw new JournalUnavailable(String((error as Error)?.message ?? error));
      }
      if (got) return "reserved";
      if (Date.now() >= until) return "busy";
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async isGone(owner: string): Promise<boolean> {
    // Not in flight here (run() looked first), so its final commit failed: the outcome is lost.
    if (owner === this.instanceId) return true;
    return this.instances.stopped(owner);
  }

  /**
   * Deletes answered entries older than the TTL (the paid data in them with them), entries whose
   * outcome was never learned after 30 days, and instances long gone.
   */
  async sweep(): Promise<void> {
    const { db } = this.database;
    await db
      .deleteFrom("spend_journal")
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "=", "done"), olderThan("finished_at", this.options.ttlMs)]),
          olderThan("created_at", Math.max(UNRESOLVED_KEEP_MS, this.options.ttlMs)),
        ]),
      )
      .execute();
    await this.instances.forgetLongGone();
  }
}

/** A journal entry this instance no longer owns: its outcome is not this instance's to commit. */
class NotOurs extends Error {
  constructor(id: string) {
    super(`spend ${id.slice(0, 12)}… was taken over by another instance; its outcome here is not recorded`);
  }
}

/**
 * True where the purchase named in `column` has its journal entry pending (under way, or cut off
 * and not yet marked unknown); with `ownerGone`, only while its instance lives.
 */
export function entryPending(column: string, ownerGone?: RawBuilder<boolean>): RawBuilder<boolean> {
  const alive = ownerGone ? sql`and not ${ownerGone}` : sql``;
  return sql<boolean>`exists (select 1 from spend_journal where spend_journal.id = ${sql.ref(column)}
    and spend_journal.state = 'pending' ${alive})`;
}

function idOf(scope: SpendScope): string {
  return createHash("sha256").update(`${scope.caller}\n${scope.key}`).digest("hex");
}

function answerOf(row: { status: number | null; headers: [string, string][] | null; body: string | null }) {
  return { status: row.status ?? 500, headers: row.headers ?? [], body: row.body ?? "" };
}
