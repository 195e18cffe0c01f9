import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Kysely, sql } from "kysely";
import Papa from "papaparse";
import { SPEND_CODES } from "../../contract/errors";
import { hasExportTag } from "../../contract/export-tag";
import type { GroupNode } from "../../contract/filter";
import { FREE_CALLS_MAX, idsInAudience } from "../../contract/in-audience";
import type { Reveal } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { operationById } from "../../contract/routes";
import { OWNED_CHOICES, OWNED_HEADER, type OwnedChoice } from "../../contract/spending";
import type { Tables } from "../db/schema";
import { type BufferedAnswer, fail, ProxyProblem, problem } from "../http/answer";
import { csvLine } from "../http/csv";
import type { UpstreamClient } from "../upstream/upstream";
import {
  filtersOf,
  type LedgerRowValues,
  recoverUnknownRow,
  settleRow,
  writeLedgerRow,
} from "./ledger-store";
import { newestOwnedRows, ownedIds, recordOwned } from "./owned-store";
import { columnsKey, type Excluded } from "./purchases";
import { type Claimer, settlementFailed, stillClaimedBy, unsettled } from "./settlement";
import type { Reconcile, Recorder, WorkResult } from "./spend-journal";
import {
  andAll,
  type CountOf,
  CountRefused,
  exclusionsRefusal,
  inLists,
  readSuppressed,
  type Suppressed,
  withoutSuppressed,
} from "./suppression";

/**
 * Exports through the team's store (spend/README.md, "Contacts the team owns, and the
 * ledger"): the filter leaves out what is on the team's do-not-contact lists and (unless bought
 * again) the contacts the team owns; the start is a `pending` ledger row; when the proxy sees the
 * export end (a status poll or the export list passing through it, or its own check every minute)
 * the row becomes `charged` or `free` and the file's rows are recorded as owned, in one transaction.
 */

type Db = Kysely<Tables>;

export interface ExportDeps {
  db: Db;
  retentionDays: number;
  client: UpstreamClient;
  /**
   * The team's other exports whose contacts are not the team's yet (started before this one, or
   * not settled): a new export that shares contacts with one of them is refused (exportsInFlight).
   */
  inFlight?: (keyHash: string) => Promise<InFlightExport[]>;
  /** This instance as a settlement's claimer (a claim of a stopped one is taken over at once). */
  claimer?: Claimer;
  /** A free Count (exact) of a filter. */
  count?: CountOf;
  onError?: (message: string, error: unknown) => void;
}

export interface PreparedExport {
  /** The body to send (filter prepared, RBID_PAO among the columns). */
  body: Record<string, unknown>;
  suppressed: Suppressed;
  /** Owned ids left out by the filter (none for `buy-again`). */
  owned: string[];
}

/** The filter as bought: without suppressed contacts, and without owned ones unless bought again. */
export async function prepareExport(
  deps: Pick<ExportDeps, "db" | "retentionDays">,
  body: Record<string, unknown>,
  choice: OwnedChoice,
): Promise<PreparedExport> {
  const suppressed = await readSuppressed(deps.db);
  const reveal = body.reveal as Reveal;
  const owned =
    choice === "buy-again"
      ? []
      : await ownedIds(deps.db, deps.retentionDays, reveal, columnsKey(body.columns));
  const tooMany = exclusionsRefusal(suppressed, owned.length);
  if (tooMany) throw new ProxyProblem(tooMany);
  const filter = andAll(
    withoutSuppressed(body.filter as GroupNode | null | undefined, suppressed),
    inLists("RBID_PAO", owned, "notIn"),
  );
  const out: Record<string, unknown> = { ...body, filter };
  const columns = body.columns as string[] | null | undefined;
  if (Array.isArray(columns) && columns.length > 0 && !columns.includes("RBID_PAO"))
    out.columns = ["RBID_PAO", ...columns];
  return { body: out, suppressed, owned };
}

/**
 * Which of the owned ids are in the audience, with free calls only (`idsInAudience`, shared with
 * the app's check of a selection): at most `maxCalls` Count and View calls.
 */
export function ownedInAudience(
  client: UpstreamClient,
  filter: GroupNode | null | undefined,
  ids: readonly string[],
  maxCalls = FREE_CALLS_MAX,
): Promise<{ found: string[]; complete: boolean }> {
  return idsInAudience(
    filter,
    ids,
    {
      count: async (within) =>
        ((await freeCall(client, "count", { filter: within, mode: "exact" })) as { count: number }).count,
      list: async (within) =>
        (
          (await freeCall(client, "view", { filter: within, columns: ["RBID_PAO"], limit: 100 })) as {
            rows: { RBID_PAO?: unknown }[];
          }
        ).rows.map((row) => row.RBID_PAO),
    },
    maxCalls,
  );
}

async function freeCall(client: UpstreamClient, id: "count" | "view", body: unknown): Promise<unknown> {
  const op = operationById(id);
  const outcome = await client.send({
    op,
    target: op.path,
    body: { kind: "json", text: JSON.stringify(body) },
    stream: false,
  });
  if (outcome.kind !== "answer" || outcome.status !== 200)
    throw new Error(`a free ${id} call to find owned contacts in the audience failed`);
  const parsed = (id === "count" ? responses.count : responses.view).safeParse(JSON.parse(outcome.text));
  if (!parsed.success) throw new Error(`the answer of a free ${id} call could not be read`);
  return parsed.data;
}

/** The sentence for an add-free whose owned rows could not all be listed within the calls allowed. */
export function freeRowsNote(found: number, owned: number): string {
  const n = (x: number) => x.toLocaleString("en");
  return `Of the ${n(owned)} contacts in this audience the team already owns, only ${n(found)} could be listed with the free counts allowed (${FREE_CALLS_MAX}), so only those ${n(found)} are added to the file for nothing; the others are still left out, not bought again.`;
}

export interface ExportPurchase {
  person: string;
  /** The request as it will be sent, before exclusions (its name carries the journal's tag). */
  sent: Record<string, unknown>;
  /** What to do with the contacts the team owns (`X-Owned-Contacts`). */
  choice: OwnedChoice;
  keyHash: string;
  keyLast4: string;
  /** The request as the buyer sent it (its filter is the ledger's). */
  original: Record<string, unknown>;
  /** `add-free`: the owned ids of the audience added to the file (null otherwise). */
  free?: string[] | null;
  /** The saved audience it is bought from (`X-Audience-Name`); else the export's name. */
  audienceName?: string | null;
  /**
   * The caps' price of it (spending-policy.ts): an outcome not known keeps counting it against the
   * caps (its hold goes with the journal's commit), and the ledger says what it may have cost.
   */
  creditsEstimated?: number | null;
}

/** What an export start carries from its exclusions to its record. */
export interface ExportPlan {
  /** `add-free`: the owned ids of the audience added to the file for nothing (null otherwise). */
  free: string[] | null;
}

/**
 * The team's exclusions, before anything is sent: suppressed contacts and (unless bought again)
 * owned ones left out by the filter; for `add-free`, the owned contacts of the audience found with
 * free calls. Refused in words when the lists cannot be read or exceed their budget.
 */
export async function excludeExport(deps: ExportDeps, p: ExportPurchase): Promise<Excluded<ExportPlan>> {
  let prepared: PreparedExport;
  try {
    prepared = await prepareExport(deps, p.sent, p.choice);
  } catch (error) {
    if (error instanceof ProxyProblem) return { refused: { answer: error.answer, outcome: "nothing-done" } };
    return {
      refused: {
        answer: problem(
          503,
          "The team's do-not-contact lists and contacts it owns could not be read, so nothing was sent and nothing charged. Try again later.",
        ),
        outcome: "nothing-done",
      },
    };
  }
  // Contacts another export of the team is still buying (under way in the service, made but not
  // settled yet, or started a moment before this one) are not the team's yet: an export sharing some of them would pay for
  // them again. Refused in words (not bought again on purpose, which `buy-again` is).
  if (p.choice !== "buy-again" && deps.inFlight && deps.count) {
    const shared = await sharedWithInFlight(
      deps as Required<Pick<ExportDeps, "inFlight" | "count">>,
      p,
      prepared,
    ).catch(() => "not-known" as const);
    if (shared === "not-known")
      return refusedWith(
        502,
        "The proxy could not check whether another export of the team is buying some of these contacts right now (its free counts did not answer), so nothing was sent and nothing charged. Try again in a moment.",
      );
    if (shared)
      return refusedWith(
        409,
        `Some of these contacts are being bought by another export of the team (${shared.name ? `"${shared.name}", ` : ""}started ${shared.since.toISOString().slice(0, 16).replace("T", " ")} UTC) that has not finished: it is still being made, or made and settled within a minute. They become the team's when it is settled, and are then left out of this one. Nothing was sent and nothing charged: start this export once that one has finished, or choose to buy them again.`,
        SPEND_CODES.beingBought,
      );
  }
  let free: string[] | null = null;
  if (p.choice === "add-free" && prepared.owned.length > 0) {
    try {
      const filter = withoutSuppressed(
        p.original.filter as GroupNode | null | undefined,
        prepared.suppressed,
      );
      free = (await ownedInAudience(deps.client, filter, prepared.owned)).found;
    } catch {
      return {
        refused: {
          answer: problem(
            502,
            "The data service did not answer the free counts that find the contacts the team already owns in this audience, so nothing was sent and nothing charged. Try again in a moment.",
          ),
          outcome: "nothing-done",
        },
      };
    }
  }
  return { body: prepared.body, plan: { free } };
}

const refusedWith = (status: number, detail: string, code?: string): { refused: WorkResult } => ({
  refused: { answer: problem(status, detail, { code }), outcome: "nothing-done" },
});

/** At most this many exports in flight are compared (a free Count each). */
const IN_FLIGHT_CHECKED = 10;

/** The first export in flight whose audience shares a contact with this one's (as it will be sent). */
async function sharedWithInFlight(
  deps: Required<Pick<ExportDeps, "inFlight" | "count">>,
  p: ExportPurchase,
  prepared: PreparedExport,
): Promise<InFlightExport | null> {
  const others = (await deps.inFlight(p.keyHash)).slice(0, IN_FLIGHT_CHECKED);
  const own = prepared.body.filter as GroupNode | null | undefined;
  for (const other of others) {
    const both = andAll(own, [
      (other.filter as GroupNode | null) ?? { type: "group", op: "AND", negate: false, children: [] },
    ]);
    if (!both) continue;
    try {
      if ((await deps.count(both)) > 0) return other;
    } catch (error) {
      // A filter the service refuses on its own is refused at the start too (nothing charged):
      // let the start say why. Refused only together with the other one, it is not known.
      if (error instanceof CountRefused && own && (await refusedAlone(deps.count, own))) return null;
      throw error;
    }
  }
  return null;
}

async function refusedAlone(count: CountOf, filter: GroupNode): Promise<boolean> {
  try {
    await count(filter);
    return false;
  } catch (error) {
    return error instanceof CountRefused;
  }
}

/** Another export of the team whose contacts are not the team's yet. */
export interface InFlightExport {
  filter: unknown;
  name: string | null;
  since: Date;
}

/**
 * The team's exports in flight, as `keyHash`'s start sees them: starts under way that began before
 * it (the journal), and exports not settled that the service is making or has made (their ledger
 * rows' filters; its status asked, free): their contacts become the team's at their settlement (a
 * poll of its status, or the minute's check). One that failed or was cancelled delivers nobody.
 */
export async function exportsInFlight(
  deps: Pick<ExportDeps, "db" | "client">,
  startsBefore: (keyHash: string) => Promise<InFlightExport[]>,
  keyHash: string,
): Promise<InFlightExport[]> {
  const unsettled = await deps.db
    .selectFrom("export_purchases")
    .select(["purchase_id", "export_id"])
    .where("state", "in", ["pending", "settling"])
    .where("purchase_id", "<>", keyHash)
    .orderBy("started_at", "desc")
    .limit(IN_FLIGHT_CHECKED)
    .execute();
  const running: string[] = [];
  for (const u of unsettled) if (await stillBuying(deps.client, u.export_id)) running.push(u.purchase_id);
  const [starting, started] = await Promise.all([startsBefore(keyHash), filtersOf(deps.db, running)]);
  return [...starting, ...started.map((s) => ({ filter: s.filter, name: s.name, since: s.at }))];
}

/** The service's status of one export (a free read). */
function exportStatus(client: UpstreamClient, exportId: string) {
  const op = operationById("exportStatus");
  return client.send({
    op,
    target: op.path.replace(":exportId", encodeURIComponent(exportId)),
    body: { kind: "none" },
    stream: false,
  });
}

/**
 * Whether an unsettled export's contacts are on their way to the team (its status, free): being
 * made, or made and not settled yet (its rows become the team's at its settlement, a status poll or
 * the minute's check away). Failed or cancelled, it delivers nobody. Throws when the service does
 * not say.
 */
async function stillBuying(client: UpstreamClient, exportId: string): Promise<boolean> {
  const outcome = await exportStatus(client, exportId);
  if (outcome.kind !== "answer") throw new Error(`the status of export ${exportId} did not come`);
  if (outcome.status === 404) return false;
  if (outcome.status !== 200) throw new Error(`the status of export ${exportId} came back ${outcome.status}`);
  const status = (JSON.parse(outcome.text) as { status?: unknown }).status;
  return status === "QUEUED" || status === "PROCESSING" || status === "COMPLETED";
}

/** An export start's record: the pending ledger row and the export to settle, or what it came to. */
export function recordExport(p: ExportPurchase, plan: ExportPlan, result: WorkResult): WorkResult {
  let started: ExportStarted | null = null;
  if (result.outcome === "final" && result.answer.status >= 200 && result.answer.status < 300) {
    try {
      const parsed = responses.exportStarted.safeParse(JSON.parse(result.answer.body));
      if (parsed.success) started = parsed.data;
    } catch {}
  }
  if (started) return { ...result, record: startedRecorder({ ...p, free: plan.free }, started) };
  const refused = result.outcome === "final" && result.answer.status >= 400 && result.answer.status < 500;
  return {
    ...result,
    record: (trx) =>
      ledgerRow(trx, p, {
        outcome: refused ? "refused" : "unknown",
        rows: 0,
        estimated: p.creditsEstimated ?? null,
        charged: refused ? 0 : null,
      }),
  };
}

/**
 * An export start whose outcome was lost is looked up in the export list by the journal's tag in
 * its name. Not there is only proof it was never made once its latest real send could no longer be
 * on its way (`longestMs`: the longest wait in the proxy's queue, the start's own time limit and a
 * margin). This relies on the export list holding every export of the account (it has no pages).
 */
export function reconcileExport(
  deps: Pick<ExportDeps, "client">,
  p: ExportPurchase,
  longestMs: number,
): Reconcile {
  return async (tag, sinceSentMs) => {
    const op = operationById("exports");
    const outcome = await deps.client.send({ op, target: op.path, body: { kind: "none" }, stream: false });
    if (outcome.kind !== "answer" || outcome.status !== 200) return "not-known";
    let found: ExportStarted | undefined;
    try {
      const parsed = responses.exports.safeParse(JSON.parse(outcome.text));
      if (!parsed.success) return "not-known";
      const entry = parsed.data.exports.find((e) => hasExportTag(e.name, tag));
      if (entry) found = { exportId: entry.exportId, rows: entry.rows, credits: entry.credits };
    } catch {
      return "not-known";
    }
    if (!found) return sinceSentMs > longestMs ? "absent" : "not-known";
    const answer = { status: 202, headers: [], body: JSON.stringify({ ...found, status: "QUEUED" }) };
    return { found: answer, record: startedRecorder(p, found) };
  };
}

/** What the service said of an export it started (its answer, or its entry in the export list). */
export interface ExportStarted {
  exportId: string;
  rows: number;
  credits: number;
}

/**
 * A started export's records: its ledger row pending at the service's estimate (the row written
 * "unknown" when its start was cut off and then found in the export list is turned into it), and
 * the export to settle when the proxy sees it end.
 */
export function startedRecorder(p: ExportPurchase, started: ExportStarted): Recorder {
  return async (trx) => {
    // One row per start: another instance that found the same export may have recorded it already.
    const recorded = await recoverUnknownRow(trx, p.keyHash, {
      rows: started.rows,
      estimated: started.credits,
    });
    if (!recorded)
      await ledgerRow(trx, p, {
        outcome: "pending",
        rows: started.rows,
        estimated: started.credits,
        charged: null,
      });
    await trx
      .insertInto("export_purchases")
      .values({
        export_id: started.exportId,
        purchase_id: p.keyHash,
        person: p.person,
        reveal: String(p.original.reveal),
        columns_key: columnsKey(p.original.columns),
        credits_estimated: started.credits,
        free_ids: p.free ? JSON.stringify(p.free) : null,
        state: "pending",
        started_at: sql<Date>`now()` as never,
      })
      .onConflict((oc) => oc.column("export_id").doNothing())
      .execute();
  };
}

/** The ledger's row for an export start whose outcome is never learned (kept with its journal entry). */
export function unknownExportRow(p: ExportPurchase): LedgerRowValues {
  return exportRow(p, { outcome: "unknown", rows: 0, estimated: p.creditsEstimated ?? null, charged: null });
}

interface ExportFigures {
  outcome: "pending" | "refused" | "unknown";
  rows: number;
  estimated: number | null;
  charged: number | null;
}

function ledgerRow(trx: Db, p: ExportPurchase, f: ExportFigures) {
  return writeLedgerRow(trx, exportRow(p, f));
}

function exportRow(p: ExportPurchase, f: ExportFigures): LedgerRowValues {
  return {
    person: p.person,
    operation: "exportStart",
    audienceName: p.audienceName ?? (typeof p.original.name === "string" ? p.original.name : null),
    filter: p.original.filter ?? null,
    detail: null,
    rows: f.rows,
    rowsFree: 0,
    estimated: f.estimated,
    charged: f.charged,
    outcome: f.outcome,
    keyHash: p.keyHash,
    keyLast4: p.keyLast4,
  };
}

const ENDED = new Set(["COMPLETED", "ERROR", "CANCELLED"]);

/**
 * Rows of an export's file recorded per statement. The embedded database's memory only grows (its
 * WebAssembly memory never shrinks): a statement of 1,000 rows left it about 25 MB larger than one
 * of 250, for no gain in speed worth it (`npm run bench`, download part).
 */
const SETTLEMENT_BATCH_ROWS = 250;

interface StatusSeen {
  exportId: string;
  status: string;
  rows: number;
  rowsWritten: number;
  credits: number;
}

/**
 * Settles the exports of an answer that passed through the proxy (a status, or the export list)
 * that ended and are the proxy's to settle. The routes run it beside their answer (a poll never
 * waits for a big file to be recorded); the proxy's own check awaits it.
 */
export async function settleSeen(deps: ExportDeps, answer: BufferedAnswer | string): Promise<void> {
  let seen: StatusSeen[] = [];
  try {
    const body = JSON.parse(typeof answer === "string" ? answer : answer.body);
    const list = responses.exports.safeParse(body);
    if (list.success) seen = list.data.exports;
    else {
      const one = responses.exportStatus.safeParse(body);
      if (one.success) seen = [one.data];
    }
  } catch {
    return;
  }
  const ended = seen.filter((e) => ENDED.has(e.status));
  if (ended.length === 0) return;
  const ours = await deps.db
    .selectFrom("export_purchases")
    .select("export_id")
    .where(
      "export_id",
      "in",
      ended.map((e) => e.exportId),
    )
    .where("state", "!=", "settled")
    .execute();
  const mine = new Set(ours.map((o) => o.export_id));
  for (const e of ended) if (mine.has(e.exportId)) await settle(deps, e);
}

/** The proxy's own look at its unsettled exports (every minute). */
export async function checkPending(deps: ExportDeps): Promise<void> {
  const pending = await deps.db
    .selectFrom("export_purchases")
    .select("export_id")
    .where(unsettled(deps.claimer))
    .execute();
  for (const { export_id } of pending) {
    const outcome = await exportStatus(deps.client, export_id);
    if (outcome.kind !== "answer" || outcome.status !== 200) continue;
    await settleSeen(deps, outcome.text);
  }
}

/**
 * One export's end: claimed (so one instance settles it); if it completed, its file streamed into
 * the team's owned contacts in batches (each its own short statement, idempotent: a retry adds what
 * is missing), so neither memory nor the database is held for the whole file; then the ledger row
 * and the claim's end in one small transaction. A failure counts an attempt: tried again after a
 * backoff, given up (the ledger says so) after SETTLE_ATTEMPTS.
 */
export async function settle(deps: ExportDeps, seen: StatusSeen): Promise<void> {
  const claimed = await deps.db
    .updateTable("export_purchases")
    .set({ state: "settling", claimed_at: sql<Date>`now()` as never, claimed_by: deps.claimer?.id ?? null })
    .where("export_id", "=", seen.exportId)
    .where(unsettled(deps.claimer))
    .returningAll()
    .executeTakeFirst();
  if (!claimed) return;
  try {
    const completed = seen.status === "COMPLETED";
    if (completed) {
      const reveal = claimed.reveal as Reveal;
      const by = {
        reveal,
        columnsKey: claimed.columns_key,
        person: claimed.person,
        purchaseId: claimed.purchase_id,
        operation: "exportStart",
      };
      for await (const rows of downloadBatches(deps.client, seen.exportId, SETTLEMENT_BATCH_ROWS)) {
        await recordOwned(deps.db, rows, by);
        // Parsed rows and the embedded database both answer in microtasks: without a turn of the
        // event loop between batches, a big file would hold every request until it is all read.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await deps.db.transaction().execute(async (trx) => {
      const free = completed ? (claimed.free_ids?.length ?? 0) : 0;
      await settleRow(trx, claimed.purchase_id, {
        outcome: completed ? (seen.credits > 0 ? "charged" : "free") : "free",
        charged: completed ? seen.credits : 0,
        rows: completed ? seen.rowsWritten + free : 0,
        rowsFree: free,
      });
      await trx
        .updateTable("export_purchases")
        .set({ state: "settled", settled_at: sql<Date>`now()` as never })
        .where("export_id", "=", seen.exportId)
        .execute();
    });
  } catch (error) {
    await settlementFailed(deps, "export", claimed, error, async (next) => {
      const saved = await deps.db
        .updateTable("export_purchases")
        .set(next)
        .where("export_id", "=", seen.exportId)
        .where(stillClaimedBy(deps.claimer))
        .executeTakeFirst();
      return Number(saved.numUpdatedRows);
    });
  }
}

/**
 * The export's file, read once through the upstream client into a temporary file at the pace the
 * network allows, then read back as CSV records, `size` at a time (the next batch is read only once
 * the caller has taken this one). Reading the connection at the database's pace instead left it
 * idle while batches were recorded: a server that closes idle keep-alive connections (a Node
 * server after 5 s) then cut the file's last bytes, and the settlement failed every attempt.
 */
export async function* downloadBatches(
  client: UpstreamClient,
  exportId: string,
  size: number,
): AsyncGenerator<Record<string, string>[]> {
  const op = operationById("exportDownload");
  const outcome = await client.send({
    op,
    target: op.path.replace(":exportId", encodeURIComponent(exportId)),
    body: { kind: "none" },
    stream: true,
  });
  if (outcome.kind !== "stream" || outcome.status !== 200 || !outcome.body)
    throw new Error(`the export's file could not be read (${outcome.kind})`);
  const spool = await mkdtemp(path.join(os.tmpdir(), "export-settlement-"));
  try {
    const file = path.join(spool, "export.csv");
    // A file cut on the way, or a disk that fills, fails this attempt here: tried again later.
    await pipeline(Readable.fromWeb(outcome.body as never), createWriteStream(file));
    const parser = Papa.parse(Papa.NODE_STREAM_INPUT, {
      header: true,
      skipEmptyLines: true,
    }) as NodeJS.ReadWriteStream;
    const source = createReadStream(file);
    source.on("error", (error) => (parser as unknown as Readable).destroy(error));
    source.pipe(parser);
    let batch: Record<string, string>[] = [];
    for await (const row of parser as unknown as AsyncIterable<Record<string, string>>) {
      batch.push(row);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
}

/** `add-free`: the owned ids an export adds to its file, or null (none, or not an export of ours). */
export async function freeIdsOf(
  db: Db,
  exportId: string,
): Promise<{ ids: string[]; key: string; reveal: Reveal } | null> {
  const found = await db
    .selectFrom("export_purchases")
    .select(["free_ids", "columns_key", "reveal"])
    .where("export_id", "=", exportId)
    .executeTakeFirst();
  if (!found?.free_ids || found.free_ids.length === 0) return null;
  return { ids: found.free_ids, key: found.columns_key, reveal: found.reveal as Reveal };
}

/**
 * The export's file with the owned rows added at its end, for nothing: the upstream bytes pass as
 * they come; the header line gives the columns; then each owned row (the newest bought with the
 * export's columns) as a CSV record of those columns.
 */
export function withFreeRows(
  db: Db,
  body: ReadableStream<Uint8Array>,
  free: { ids: string[]; key: string },
): ReadableStream<Uint8Array> {
  let head = "";
  let columns: string[] | null = null;
  let endsWithNewline = true;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (columns === null) {
          head += decoder.decode(chunk, { stream: true });
          const end = head.indexOf("\n");
          if (end >= 0) columns = Papa.parse<string[]>(head.slice(0, end).replace(/\r$/, "")).data[0] ?? [];
        }
        if (chunk.length > 0) endsWithNewline = chunk[chunk.length - 1] === 10;
        controller.enqueue(chunk);
      },
      async flush(controller) {
        if (columns === null) return;
        if (!endsWithNewline) controller.enqueue(encoder.encode("\r\n"));
        for (let i = 0; i < free.ids.length; i += 5000) {
          const rows = await newestOwnedRows(db, free.ids.slice(i, i + 5000), free.key);
          let text = "";
          for (const row of rows.values()) text += csvLine(columns.map((c) => row[c] ?? null));
          controller.enqueue(encoder.encode(text));
        }
      },
    }),
  );
}

/** The header's value as a choice (default `leave-out`); anything else is refused (422). */
export function parseOwnedChoice(value: string | undefined): OwnedChoice {
  const raw = value?.trim().toLowerCase();
  if (raw === undefined || raw === "") return "leave-out";
  if (!(OWNED_CHOICES as readonly string[]).includes(raw))
    throw fail(422, `The ${OWNED_HEADER} header must be one of ${OWNED_CHOICES.join(", ")}.`);
  return raw as OwnedChoice;
}

/** Settled exports past the retention: their free ids (add-free) are paid data too. */
export async function sweepSettledExports(db: Db, retentionDays: number): Promise<void> {
  await db
    .deleteFrom("export_purchases")
    .where("state", "=", "settled")
    .where(sql<boolean>`settled_at < now() - make_interval(days => ${retentionDays})`)
    .execute();
}
