import { randomUUID } from "node:crypto";
import { type Kysely, type Selectable, sql } from "kysely";
import type { Approval } from "../../contract/spending";
import type { ApprovalTable, Tables } from "../db/schema";
import { pgText } from "../db/storable";
import { type BufferedAnswer, fail } from "../http/answer";
import { type PurchaseRow, rowOfPurchase, rowsOfPurchases } from "./ledger-store";
import type { SpendScope, WorkOutcome } from "./spend-journal";
import type { ToolFile } from "./tool-purchases";

/** What a purchase is, as the policy reads it (the body as it will be sent). */
export interface SpendRequest {
  scope: SpendScope;
  fingerprint: string;
  body: Record<string, unknown>;
  /** Request headers that change what is bought (lower-case names). */
  headers: Record<string, string>;
  /** The query as validated (verification's `metadata`), and an upload as sent (batch verification). */
  query?: Record<string, string>;
  file?: ToolFile;
}

/**
 * Approval requests (spend/README.md, "Caps and approvals"): a purchase above its buyer's
 * threshold is stored whole (operation, Idempotency-Key, request hash, body, the headers that change
 * it) and waits for an admin other than the requester. Approved, the proxy runs it itself through
 * the journal under the requester's name and key, so it runs once, and the requester sending the
 * same key again gets the journal's answer.
 */
export type ApprovalRow = Selectable<ApprovalTable>;

export const credits = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

export function approvalNotFound() {
  return fail(404, "There is no such approval request.");
}

/*
 * The `approvals` table's SQL lives in this module and nowhere else.
 */

export async function findApproval(db: Kysely<Tables>, entryId: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom("approvals").selectAll().where("entry_id", "=", entryId).executeTakeFirst();
}

export async function approvalById(db: Kysely<Tables>, id: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom("approvals").selectAll().where("id", "=", id).executeTakeFirst();
}

/** An approval read to be decided: locked until the deciding transaction ends. */
export async function lockApproval(trx: Kysely<Tables>, id: string): Promise<ApprovalRow | undefined> {
  return trx.selectFrom("approvals").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/** Newest first, at most 500: everyone's, or one requester's; of one state or all. */
export async function listApprovals(
  db: Kysely<Tables>,
  only: { requestedBy?: string; state?: ApprovalRow["state"] },
): Promise<ApprovalRow[]> {
  let query = db.selectFrom("approvals").selectAll();
  if (only.requestedBy !== undefined) query = query.where("requested_by", "=", only.requestedBy);
  if (only.state !== undefined) query = query.where("state", "=", only.state);
  return query.orderBy("requested_at", "desc").orderBy("id").limit(500).execute();
}

/** A waiting request approved by `by` (throws when it no longer waits: the caller locked it). */
export async function markApproved(trx: Kysely<Tables>, id: string, by: string): Promise<ApprovalRow> {
  return trx
    .updateTable("approvals")
    .set({ state: "approved", decided_by: by, decided_at: sql<Date>`now()` as never })
    .where("id", "=", id)
    .where("state", "=", "waiting")
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A waiting request denied by `by` (its upload dropped); undefined when it no longer waits. */
export async function markDenied(
  trx: Kysely<Tables>,
  id: string,
  by: string,
  outcome: string,
): Promise<ApprovalRow | undefined> {
  return trx
    .updateTable("approvals")
    .set({ state: "denied", decided_by: by, decided_at: sql<Date>`now()` as never, outcome, file: null })
    .where("id", "=", id)
    .where("state", "=", "waiting")
    .returningAll()
    .executeTakeFirst();
}

/** Made once per (requester, key): a request sent twice at once finds the first one's. */
export async function createApproval(
  trx: Kysely<Tables>,
  input: {
    entryId: string;
    request: SpendRequest;
    estimate: number;
    summary: string;
    audienceName: string | null;
  },
): Promise<{ row: ApprovalRow; created: boolean }> {
  const { request } = input;
  const inserted = await trx
    .insertInto("approvals")
    .values({
      id: randomUUID(),
      entry_id: input.entryId,
      requested_by: request.scope.caller,
      requested_at: sql<Date>`now()` as never,
      operation: request.scope.operation,
      idempotency_key: request.scope.key,
      fingerprint: request.fingerprint,
      body: JSON.stringify(request.body),
      headers: JSON.stringify(request.headers),
      query: request.query && Object.keys(request.query).length > 0 ? JSON.stringify(request.query) : null,
      file_name: request.file ? pgText(request.file.name) : null,
      file_type: request.file ? pgText(request.file.type) : null,
      file: request.file ? Buffer.from(request.file.bytes).toString("base64") : null,
      credits_estimated: input.estimate,
      summary: pgText(input.summary),
      audience_name: pgText(input.audienceName),
      state: "waiting",
      decided_by: null,
      decided_at: null,
      outcome: null,
    })
    .onConflict((oc) => oc.column("entry_id").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { row: inserted, created: true };
  return { row: (await findApproval(trx, input.entryId))!, created: false };
}

export function approvalOf(row: ApprovalRow): Approval {
  return {
    id: row.id,
    requestedBy: row.requested_by,
    requestedAt: new Date(row.requested_at).toISOString(),
    operation: row.operation,
    summary: row.summary,
    creditsEstimated: Number(row.credits_estimated),
    audienceName: row.audience_name,
    state: row.state,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
    outcome: row.outcome,
  };
}

/** What the proxy's running of an approved purchase came to. */
export interface RunResult {
  answer: BufferedAnswer;
  /** The journal's outcome of this run, or `replayed` when the journal had it already. */
  outcome: WorkOutcome | "replayed";
}

/** Runs a stored purchase as forward.ts would (the spend path, the hold already made). */
export type RunApproved = (order: {
  operation: string;
  caller: string;
  key: string;
  /** The request's hash as stored: the requester's same request then matches the journal's entry. */
  fingerprint: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  query: Record<string, string>;
  /** An upload, as it was sent. */
  file: File | undefined;
  estimate: number;
}) => Promise<RunResult>;

/**
 * Records what running it came to: `ran` with a sentence, or, when nothing was done (refused before
 * any work, nothing charged), left `approved` so the requester's same key runs it later.
 */
export async function recordRun(db: Kysely<Tables>, id: string, result: RunResult): Promise<void> {
  const detail = detailOf(result.answer);
  let state: "ran" | "approved" = "ran";
  let outcome: string;
  if (result.outcome === "nothing-done") {
    state = "approved";
    outcome = `Approved, but not carried out${detail ? `: ${detail.replace(/\.$/, "")}` : ""}. Nothing was charged; sending the same request again (same key) runs it.`;
  } else if (result.outcome === "unknown")
    outcome =
      "Sent, but no answer came back from the data service: whether it was carried out (and charged) is not known. Check the balance.";
  else if (result.answer.status >= 200 && result.answer.status < 300)
    outcome = (await ledgerSentence(db, id)) ?? ranSentence(result.answer);
  else outcome = `Sent, and the data service refused it${detail ? `: ${detail.replace(/\.$/, "")}` : ""}.`;
  // Only an approved request's run is recorded: a state set since (ran, by the requester's own
  // re-send) is never turned back.
  await db
    .updateTable("approvals")
    // An upload is kept only until it has run (it holds people's addresses).
    .set(state === "ran" ? { state, outcome, file: null } : { state, outcome })
    .where("id", "=", id)
    .where("state", "=", "approved")
    .execute();
}

function detailOf(answer: BufferedAnswer): string | null {
  try {
    const body = JSON.parse(answer.body) as { detail?: unknown };
    return typeof body?.detail === "string" ? body.detail : null;
  } catch {
    return null;
  }
}

/** What the run came to as its ledger row says it (any spend, verification and searches too). */
async function ledgerSentence(db: Kysely<Tables>, id: string): Promise<string | null> {
  const approval = await approvalById(db, id).catch(() => undefined);
  const row = approval && (await rowOfPurchase(db, approval.entry_id).catch(() => undefined));
  return row ? sentenceOfRow(row) : null;
}

/** A ledger row in one sentence, as it stands now; null when it says nothing worth telling. */
function sentenceOfRow(row: PurchaseRow): string | null {
  const n = (x: number | null) => `${credits(Number(x ?? 0))} credit${Number(x) === 1 ? "" : "s"}`;
  const exported = row.operation === "exportStart";
  if (row.outcome === "pending")
    return exported
      ? `Export started: up to ${n(row.credits_estimated)}, charged when it completes.`
      : `Job started: up to ${n(row.credits_estimated)}, charged as it runs.`;
  if (row.outcome !== "charged" && row.outcome !== "free") return null;
  const charged = row.outcome === "free" ? "nothing charged" : `${n(row.credits_charged)} charged`;
  if (exported) return `Export completed: ${row.rows.toLocaleString("en-US")} rows, ${charged}.`;
  const delivered = ["enrich", "preview"].includes(row.operation)
    ? `${row.rows.toLocaleString("en-US")} contact${row.rows === 1 ? "" : "s"} delivered, `
    : "";
  return `Ran: ${delivered}${charged}.`;
}

/**
 * Approvals as they are now: a run's sentence is read again from its purchase's ledger row, which
 * changes after the run (an export is charged when it completes, long after it was approved).
 */
export async function withOutcomesNow(db: Kysely<Tables>, rows: ApprovalRow[]): Promise<ApprovalRow[]> {
  const ran = rows.filter((row) => row.state === "ran");
  const ledger = await rowsOfPurchases(
    db,
    ran.map((row) => row.entry_id),
  );
  return rows.map((row) => {
    const entry = row.state === "ran" ? ledger.get(row.entry_id) : undefined;
    const now = entry ? sentenceOfRow(entry) : null;
    return now === null ? row : { ...row, outcome: now };
  });
}

function ranSentence(answer: BufferedAnswer): string {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {}
  if (typeof body.exportId === "string")
    return `Export started: up to ${credits(Number(body.credits ?? 0))} credits, charged when it completes.`;
  const rows = Array.isArray(body.rows) ? body.rows.length : null;
  const charged = typeof body.creditsCharged === "number" ? body.creditsCharged : null;
  return `Ran: ${rows === null ? "" : `${rows.toLocaleString("en-US")} contact${rows === 1 ? "" : "s"} delivered, `}${charged === null ? "charge not stated" : `${credits(charged)} credit${charged === 1 ? "" : "s"} charged`}.`;
}
