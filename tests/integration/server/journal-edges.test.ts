/**
 * The spend journal between two instances, one of which the other judges gone (a heartbeat gap, a
 * crash): an export's "was it ever made?" is timed from its real send, not from the free work
 * before it; and an instance that finishes after the other marked its entry unknown leaves one
 * ledger row, not two. Two journals on one database (embedded: any other owner is an earlier run;
 * PostgreSQL: an owner without a live heartbeat is gone).
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../../src/server/db/database";
import { type LedgerRowValues, writeLedgerRow } from "../../../src/server/spend/ledger-store";
import { type Recorder, SpendJournal, type WorkResult } from "../../../src/server/spend/spend-journal";
import { sleep, testDatabaseFor } from "../../support/proxy-server";

let database: Database;
const options = { ttlMs: 3600_000, joinWaitMs: 500 };

beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "journal-edges-"));
  const store = await testDatabaseFor(dir, false);
  database = store.database ?? (await openDatabase({ databaseUrl: store.url!, dataDir: dir }));
});
afterAll(async () => {
  await database?.close();
});

const answer = (body: unknown) => ({
  status: 200,
  headers: [] as [string, string][],
  body: JSON.stringify(body),
});
const rowValues = (
  keyHash: string,
  outcome: "charged" | "unknown",
  charged: number | null,
): LedgerRowValues => ({
  person: "ada",
  operation: "enrich",
  audienceName: null,
  filter: null,
  detail: null,
  rows: outcome === "charged" ? 5 : 0,
  rowsFree: 0,
  estimated: 5,
  charged,
  outcome,
  keyHash,
  keyLast4: "0001",
});
const ledgerRow =
  (keyHash: string, outcome: "charged" | "unknown", charged: number | null): Recorder =>
  (trx) =>
    writeLedgerRow(trx, rowValues(keyHash, outcome, charged));
const ledgerOf = (keyHash: string) =>
  database.db
    .selectFrom("ledger")
    .select(["outcome", "credits_charged"])
    .where("key_hash", "=", keyHash)
    .execute();

/** A promise and the function that settles it. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("two journals, one judged gone by the other", () => {
  it("an export whose free work was slow is not judged 'never made' while its real send is on its way", async () => {
    const a = new SpendJournal(database, options);
    const b = new SpendJournal(database, options);
    const scope = { caller: "ada", operation: "exportStart", key: `slow-start-${Date.now()}` };
    const sending = gate();
    const answered = gate<WorkResult>();
    let sentByA = 0;
    let sentByB = 0;
    const first = a.run(
      scope,
      "f",
      async () => {
        await sleep(400); // the free work before the start (suppression, owned contacts, add-free)
        expect(await a.markSent(scope)).toBe(true);
        sentByA++;
        sending.open();
        return answered.opened;
      },
      async () => "not-known",
    );
    await sending.opened;
    // The retry: the export is not in the list yet; "never made" only once 300 ms passed since the send.
    const seen: number[] = [];
    const retry = await b.run(
      scope,
      "f",
      async () => {
        sentByB++;
        return { answer: answer({ exportId: "second" }), outcome: "final" };
      },
      async (_tag, sinceSentMs) => {
        seen.push(sinceSentMs);
        return sinceSentMs > 300 ? "absent" : "not-known";
      },
    );
    expect(retry.kind).toBe("unknown");
    expect(sentByB).toBe(0);
    expect(seen[0]).toBeLessThan(300);
    answered.open({ answer: answer({ exportId: "first" }), outcome: "final" });
    expect((await first).kind).toBe("fresh");
    expect(sentByA).toBe(1);
  });

  it("an instance that answers after the other marked its spend unknown leaves one ledger row, with the charge", async () => {
    const a = new SpendJournal(database, options);
    const b = new SpendJournal(database, options);
    const scope = { caller: "ada", operation: "enrich", key: `gap-${Date.now()}` };
    const id = SpendJournal.entryId(scope);
    const started = gate();
    const answered = gate<WorkResult>();
    const first = a.run(
      scope,
      "f",
      async () => {
        started.open();
        return answered.opened;
      },
      undefined,
      rowValues(id, "unknown", null),
    );
    await started.opened;
    // a is silent (a heartbeat gap): the same key on b finds its entry and marks it unknown.
    const retry = await b.run(scope, "f", async () => ({ answer: answer({}), outcome: "final" }));
    expect(retry.kind).toBe("unknown");
    expect(await ledgerOf(id)).toEqual([{ outcome: "unknown", credits_charged: null }]);
    // a was alive after all: its answer arrives and is committed with its ledger row.
    answered.open({ answer: answer({ rows: 5 }), outcome: "final", record: ledgerRow(id, "charged", 5) });
    expect((await first).kind).toBe("fresh");
    expect(await ledgerOf(id)).toEqual([{ outcome: "charged", credits_charged: 5 }]);
    const entry = await database.db
      .selectFrom("spend_journal")
      .select(["state", "owner"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(entry).toEqual({ state: "done", owner: a.instanceId });
  });

  it("a spend whose process is gone: the sweep records it unknown and lets its hold go, with no retry", async () => {
    const a = new SpendJournal(database, options);
    const scope = { caller: "ada", operation: "enrich", key: `crashed-${Date.now()}` };
    const id = SpendJournal.entryId(scope);
    const started = gate();
    const never = gate<WorkResult>();
    const first = a.run(
      scope,
      "f",
      async () => {
        // The purchase's hold on the caps, as the spending policy makes it before the journal.
        await database.db
          .insertInto("spend_holds")
          .values({ entry_id: id, person: "ada", credits: 5, at: new Date() })
          .execute();
        started.open();
        return never.opened;
      },
      undefined,
      rowValues(id, "unknown", null),
    );
    await started.opened;
    // a's process is gone (it never answers); the next instance starts and sweeps.
    const b = new SpendJournal(database, options);
    await b.start();
    try {
      expect(await ledgerOf(id)).toEqual([{ outcome: "unknown", credits_charged: null }]);
      const holds = await database.db
        .selectFrom("spend_holds")
        .select("entry_id")
        .where("entry_id", "=", id)
        .execute();
      expect(holds).toEqual([]);
      const entry = await database.db
        .selectFrom("spend_journal")
        .select("state")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(entry.state).toBe("unknown");
      // Swept once: a second sweep finds nothing to do.
      expect(await b.sweepGone()).toBe(0);
    } finally {
      await b.close();
      never.open({ answer: answer({}), outcome: "nothing-done" });
      await first;
    }
  });
});
