import { type Kysely, sql } from "kysely";
import Papa from "papaparse";
import { DISCOVER_RESULT_COUNT_DEFAULT, type Plan, PRICE } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { discoverCost, isDefiniteVerification, verificationCost } from "../../contract/pricing";
import { operationById } from "../../contract/routes";
import { parseEmailUpload, type UploadParseResult } from "../../contract/verify-upload";
import type { LedgerOutcome, Tables } from "../db/schema";
import type { BufferedAnswer } from "../http/answer";
import type { UpstreamClient } from "../upstream/upstream";
import { type LedgerRowValues, settleRow, writeLedgerRow } from "./ledger-store";
import { type Claimer, settlementFailed, stillClaimedBy, unsettled } from "./settlement";
import type { WorkResult } from "./spend-journal";

/**
 * Email verification and the company tools as spends (spend/README.md, "The ledger"): priced
 * before sending for the team's caps, and a ledger row for each outcome, written in the journal's
 * commit. A single check or a company search is charged as its answer says (a definite verdict, a
 * resolve, the companies a discover found); a batch verification is a pending row at its start,
 * settled from its results file when the proxy sees its job end (a status poll, or its own check
 * every minute), since the service charges it address by address as the job runs.
 */

/** The spends of this file: every paid operation but the contact purchases and key rotation. */
export const TOOL_OPERATIONS: ReadonlySet<string> = new Set([
  "verifyV1",
  "verifyV2",
  "batchV1",
  "batchUploadV1",
  "batchV2",
  "organizationResolve",
  "organizationDiscover",
]);

/** Batch starts, and the generation their job is read back with. */
const BATCH_STARTS: Readonly<Record<string, "v1" | "v2">> = {
  batchV1: "v1",
  batchUploadV1: "v1",
  batchV2: "v2",
};

/** An upload as the proxy received it, read once with the contract's reader. */
export interface ToolFile {
  name: string;
  type: string;
  bytes: Uint8Array;
  /** Its addresses, or why the reader refuses it. */
  read: UploadParseResult;
}

export function toolFile(name: string, type: string, bytes: Uint8Array): ToolFile {
  return { name, type, bytes, read: parseEmailUpload(name, bytes) };
}

/** What a tool spend is, as it will be sent. */
export interface ToolRequest {
  operation: string;
  body: Record<string, unknown> | undefined;
  file?: ToolFile;
}

/** The addresses a batch start verifies: its list, or those its upload holds (0: unreadable, refused first). */
export function batchAddresses(request: ToolRequest): number {
  if (request.operation === "batchV1") return ((request.body?.emails as unknown[] | undefined) ?? []).length;
  const read = request.file?.read;
  return read && "emails" in read ? read.emails.length : 0;
}

/**
 * Why an upload cannot be priced (not a .csv or .json, no addresses, too many, unreadable), as the
 * contract's reader says it; null when it can. The proxy refuses such a file before anything is
 * sent: a file it cannot count could not be held to the team's caps.
 */
export function unreadableUpload(file: ToolFile): { status: 400 | 422; detail: string } | null {
  return "error" in file.read ? file.read.error : null;
}

/**
 * The most a tool spend may cost (the caps' price): a credit per address checked (every verdict
 * taken as definite), a resolve's credit, a discover's whole `result_count` on pay-as-you-go.
 */
export function toolEstimate(request: ToolRequest, plan: Plan): number {
  switch (request.operation) {
    case "verifyV1":
    case "verifyV2":
      return verificationCost(1);
    case "organizationResolve":
      return PRICE.perResolve;
    case "organizationDiscover":
      return discoverCost(plan, Number(request.body?.result_count ?? DISCOVER_RESULT_COUNT_DEFAULT));
    default:
      return verificationCost(batchAddresses(request));
  }
}

/** What it was for, in the ledger and an approval request: an address, a file, a name, a keyword. */
export function toolDetail(request: ToolRequest): string {
  const body = request.body ?? {};
  const quoted = (value: unknown) => `“${String(value ?? "").trim()}”`;
  switch (request.operation) {
    case "verifyV1":
    case "verifyV2":
      return String(body.email ?? "").trim();
    case "organizationResolve":
      return `Name ${quoted(body.company_name)}`;
    case "organizationDiscover":
      return `Keyword ${quoted(body.keyword)}, up to ${Number(body.result_count ?? DISCOVER_RESULT_COUNT_DEFAULT).toLocaleString("en-US")} companies`;
    default: {
      const n = batchAddresses(request);
      const addresses = `${n.toLocaleString("en-US")} address${n === 1 ? "" : "es"}`;
      return request.file ? `${request.file.name}: ${addresses}` : `A list of ${addresses}`;
    }
  }
}

export interface ToolPurchase extends ToolRequest {
  person: string;
  /** The journal entry's id: the ledger row's key_hash. */
  keyHash: string;
  keyLast4: string;
  creditsEstimated: number | null;
  /** The account's plan (a discover's charge depends on it); null when not known. */
  plan: () => Promise<string | null>;
}

/** A tool spend's record (it is sent as it is): its ledger row, and a batch's job to settle. */
export async function recordTool(p: ToolPurchase, result: WorkResult): Promise<WorkResult> {
  const { answer } = result;
  const answered = result.outcome === "final" && answer.status >= 200 && answer.status < 300;
  const refused = result.outcome === "final" && answer.status >= 400 && answer.status < 500;
  const generation = BATCH_STARTS[p.operation];
  if (answered && generation) {
    const processId = processIdOf(answer);
    if (processId !== null)
      return {
        ...result,
        record: async (trx) => {
          await ledgerRow(p, trx, { outcome: "pending", rows: batchAddresses(p), charged: null });
          await trx
            .insertInto("verify_purchases")
            .values({
              generation,
              process_id: processId,
              purchase_id: p.keyHash,
              person: p.person,
              credits_estimated: estimateOf(p),
              state: "pending",
              started_at: sql<Date>`now()` as never,
            })
            .onConflict((oc) => oc.columns(["generation", "process_id"]).doNothing())
            .execute();
        },
      };
  }
  // Only a discover's charge depends on the plan (asked only then: the probe may call the service).
  const plan =
    answered && p.operation === "organizationDiscover" && (await p.plan().catch(() => null)) === "AYCE"
      ? "AYCE"
      : "PAYG";
  const charged = answered ? chargeOf(p.operation, answer, plan) : null;
  const figures: LedgerFigures = charged
    ? { outcome: charged.credits > 0 ? "charged" : "free", rows: charged.rows, charged: charged.credits }
    : refused
      ? { outcome: "refused", rows: 0, charged: 0 }
      : { outcome: "unknown", rows: 0, charged: null };
  return { ...result, record: (trx) => ledgerRow(p, trx, figures) };
}

/** The ledger's row for a tool spend whose outcome is never learned (kept with its journal entry). */
export function unknownToolRow(p: ToolPurchase): LedgerRowValues {
  return toolRow(p, { outcome: "unknown", rows: 0, charged: null });
}

/**
 * The ledger's estimate: the caps' price, or (no rule priced it) the most it may cost as priced
 * without asking the plan, so that a pending batch always counts against caps set later.
 */
const estimateOf = (p: ToolPurchase) => p.creditsEstimated ?? toolEstimate(p, "PAYG");

interface LedgerFigures {
  outcome: LedgerOutcome;
  rows: number;
  charged: number | null;
}

function ledgerRow(p: ToolPurchase, trx: Kysely<Tables>, f: LedgerFigures) {
  return writeLedgerRow(trx, toolRow(p, f));
}

function toolRow(p: ToolPurchase, f: LedgerFigures): LedgerRowValues {
  return {
    person: p.person,
    operation: p.operation,
    audienceName: null,
    filter: null,
    detail: toolDetail(p),
    rows: f.rows,
    rowsFree: 0,
    estimated: estimateOf(p),
    charged: f.charged,
    outcome: f.outcome,
    keyHash: p.keyHash,
    keyLast4: p.keyLast4,
  };
}

/** What an answer says was charged: rows (addresses, companies) and credits; null when unreadable. */
function chargeOf(
  operation: string,
  answer: BufferedAnswer,
  plan: Plan,
): { rows: number; credits: number } | null {
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return null;
  }
  if (operation === "verifyV1" || operation === "verifyV2") {
    const v1 = operation === "verifyV1" ? responses.verifyV1.safeParse(body) : null;
    const v2 = operation === "verifyV2" ? responses.verifyV2.safeParse(body) : null;
    const verdict = v1?.success ? v1.data.deliverability : v2?.success ? v2.data.status : null;
    if (verdict === null) return null;
    return { rows: 1, credits: verificationCost(isDefiniteVerification(verdict) ? 1 : 0) };
  }
  const found = responses.organizations.safeParse(body);
  if (!found.success) return null;
  const rows = found.data.companies.length;
  if (operation === "organizationResolve") return { rows, credits: PRICE.perResolve };
  return { rows, credits: discoverCost(plan, rows) };
}

function processIdOf(answer: BufferedAnswer): string | null {
  try {
    const id = (JSON.parse(answer.body) as { process_id?: unknown }).process_id;
    return typeof id === "string" || typeof id === "number" ? String(id) : null;
  } catch {
    return null;
  }
}

export interface VerifyDeps {
  db: Kysely<Tables>;
  client: UpstreamClient;
  /** This instance as a settlement's claimer (a claim of a stopped one is taken over at once). */
  claimer?: Claimer;
  onError?: (message: string, error: unknown) => void;
}

/** Job states after which nothing more is charged. */
const ENDED = new Set(["COMPLETED", "ERROR", "CANCELLED"]);
/** The status operations whose answers settle a batch when they pass through the proxy. */
export const JOB_STATUS_OPERATIONS: ReadonlySet<string> = new Set([
  "jobStatusV2",
  "batchStatusV1Get",
  "batchStatusV1Post",
]);

/** Settles the batch an answer of a status operation (passed through the proxy) says has ended. */
export async function settleJobSeen(deps: VerifyDeps, operation: string, text: string): Promise<void> {
  const seen = jobStatusOf(operation, text);
  if (!seen || !ENDED.has(seen.status)) return;
  const row = await deps.db
    .selectFrom("verify_purchases")
    .select(["generation", "process_id"])
    .where("generation", "=", operation === "jobStatusV2" ? "v2" : "v1")
    .where("process_id", "=", seen.processId)
    .where("state", "!=", "settled")
    .executeTakeFirst();
  if (row) await settleJob(deps, row, seen.status);
}

function jobStatusOf(operation: string, text: string): { processId: string; status: string } | null {
  try {
    const body = JSON.parse(text);
    const parsed = (operation === "jobStatusV2" ? responses.jobStatusV2 : responses.jobStatusV1).safeParse(
      body,
    );
    return parsed.success
      ? { processId: String(parsed.data.process_id), status: parsed.data.current_status }
      : null;
  } catch {
    return null;
  }
}

/** The proxy's own look at the batches it started and has not settled (every minute). */
export async function checkPendingJobs(deps: VerifyDeps): Promise<void> {
  const pending = await deps.db
    .selectFrom("verify_purchases")
    .select(["generation", "process_id"])
    .where(unsettled(deps.claimer))
    .execute();
  for (const row of pending) {
    const op = operationById(row.generation === "v2" ? "jobStatusV2" : "batchStatusV1Get");
    const target =
      row.generation === "v2"
        ? op.path.replace(":process_id", encodeURIComponent(row.process_id))
        : `${op.path}?${new URLSearchParams({ process_id: row.process_id })}`;
    const outcome = await deps.client.send({ op, target, body: { kind: "none" }, stream: false });
    if (outcome.kind !== "answer" || outcome.status !== 200) continue;
    const seen = jobStatusOf(op.id, outcome.text);
    if (seen && ENDED.has(seen.status)) await settleJob(deps, row, seen.status);
  }
}

/**
 * One batch's end: claimed (so one instance settles it), its results read (a credit per definite
 * verdict; an ERROR job's results cannot be downloaded, so what it charged is not known), then its
 * ledger row and the claim's end in one transaction. A failure gives the claim back.
 */
async function settleJob(
  deps: VerifyDeps,
  job: { generation: "v1" | "v2"; process_id: string },
  status: string,
): Promise<void> {
  const claimed = await deps.db
    .updateTable("verify_purchases")
    .set({ state: "settling", claimed_at: sql<Date>`now()` as never, claimed_by: deps.claimer?.id ?? null })
    .where("generation", "=", job.generation)
    .where("process_id", "=", job.process_id)
    .where(unsettled(deps.claimer))
    .returningAll()
    .executeTakeFirst();
  if (!claimed) return;
  try {
    const verdicts = status === "ERROR" ? null : await downloadVerdicts(deps.client, job);
    const definite = verdicts?.filter(isDefiniteVerification).length ?? 0;
    const charged = verificationCost(definite);
    await deps.db.transaction().execute(async (trx) => {
      await settleRow(
        trx,
        claimed.purchase_id,
        verdicts === null
          ? { outcome: "unknown", charged: null }
          : { outcome: charged > 0 ? "charged" : "free", charged, rows: verdicts.length },
      );
      await trx
        .updateTable("verify_purchases")
        .set({ state: "settled", settled_at: sql<Date>`now()` as never })
        .where("generation", "=", job.generation)
        .where("process_id", "=", job.process_id)
        .execute();
    });
  } catch (error) {
    await settlementFailed(deps, "batch verification", claimed, error, async (next) => {
      const saved = await deps.db
        .updateTable("verify_purchases")
        .set(next)
        .where("generation", "=", job.generation)
        .where("process_id", "=", job.process_id)
        .where(stillClaimedBy(deps.claimer))
        .executeTakeFirst();
      return Number(saved.numUpdatedRows);
    });
  }
}

/** Each address's verdict in a finished job's results (v1: a JSON list; v2: a CSV file). Throws when unreadable. */
async function downloadVerdicts(
  client: UpstreamClient,
  job: { generation: "v1" | "v2"; process_id: string },
): Promise<string[]> {
  const v2 = job.generation === "v2";
  const op = operationById(v2 ? "jobDownloadV2" : "batchDownloadV1");
  const outcome = await client.send({
    op,
    target: v2 ? op.path.replace(":process_id", encodeURIComponent(job.process_id)) : op.path,
    body: v2 ? { kind: "none" } : { kind: "json", text: JSON.stringify({ process_id: job.process_id }) },
    stream: false,
  });
  if (outcome.kind !== "answer" || outcome.status !== 200)
    throw new Error(`the results of verification job ${job.process_id} could not be read`);
  if (!v2) {
    const parsed = responses.verifyV1Batch.safeParse(JSON.parse(outcome.text));
    if (!parsed.success)
      throw new Error(`the results of verification job ${job.process_id} are not readable`);
    return parsed.data.map((r) => r.deliverability);
  }
  const { data } = Papa.parse<Record<string, string>>(outcome.text.replace(/^\uFEFF/, ""), {
    header: true,
    skipEmptyLines: true,
    transformHeader: (name) => name.trim().toLowerCase(),
  });
  const verdicts = data.map((row) => row.status ?? row.deliverability ?? "");
  // A file not read as expected is not "all free": it stays unsettled, and is said in the log.
  if (verdicts.some((v) => !KNOWN_VERDICTS.has(v)))
    throw new Error(
      `the results of verification job ${job.process_id} have verdicts this proxy does not know`,
    );
  return verdicts;
}

const KNOWN_VERDICTS = new Set(["Valid", "Invalid", "Unknown", "DELIVERABLE", "UNDELIVERABLE", "UNKNOWN"]);
