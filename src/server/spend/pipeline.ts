import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { stableStringify } from "../../contract/canonical";
import { SPEND_CODES, validationError } from "../../contract/errors";
import type { OperationSpec } from "../../contract/routes";
import { AUDIENCE_HEADER, OWNED_HEADER, SPENDING_CODES } from "../../contract/spending";
import { type BufferedAnswer, fail, problem, unprocessable } from "../http/answer";
import type { Input } from "../http/request-input";
import type { Call } from "../upstream/upstream";
import { credits } from "./approvals";
import { type KindDeps, purchaseKindOf } from "./purchase-kinds";
import { JournalUnavailable, SpendJournal, type WorkOutcome, type WorkResult } from "./spend-journal";
import type { Admission, SpendingPolicy } from "./spending-policy";
import { type ToolFile, toolFile, unreadableUpload } from "./tool-purchases";

/**
 * The one spend pipeline: every purchase, whatever its kind (purchase-kinds.ts), runs these steps
 * in this order. Priced and admitted against the team's caps and approvals (before anything is
 * written), then under the journal at most once per (caller, key): its exclusions applied, sent,
 * recorded with the journal's answer; an outcome not known leaves its kind's ledger row; a lost
 * outcome is reconciled by the kinds that can look it up. Refusals are thrown.
 */

/** Request headers that change what a spend buys: kept with an approval request, sent again with it. */
export const SPEND_HEADERS: readonly string[] = [OWNED_HEADER, AUDIENCE_HEADER];

/** A spend, apart from the HTTP request that asked for it: the approvals route runs stored ones. */
export interface SpendOrder {
  op: OperationSpec;
  /** Whose spend it is (confirmed against the database), and their Idempotency-Key. */
  caller: string;
  key: string;
  input: Pick<Input, "params" | "query" | "json" | "file" | "fileHash">;
  /** The call as asked (its path, query and body). */
  call: Call;
  /** SPEND_HEADERS as the request carried them (lower-case names). */
  headers: Record<string, string>;
  /** The request's hash when stored with it (an approval): else computed from `input`. */
  fingerprint?: string;
}

export interface SpendDone {
  answer: BufferedAnswer;
  replayed: boolean;
  /** What this run came to: the journal's outcome of the work, `replayed`, or `approval` (202). */
  outcome: WorkOutcome | "replayed" | "approval";
}

export interface PipelineDeps {
  journal: SpendJournal;
  /** The team's caps and approval thresholds (absent: every spend goes straight to the journal). */
  policy?: SpendingPolicy;
  kinds: KindDeps;
  stats: { idempotentReplays: number };
  log: Logger;
}

/** Sends a call to the service: what the exchange came to, as far as the proxy can know. */
export type Exchange = (call: Call) => Promise<WorkResult>;

/**
 * The hash of a spend's request that its Idempotency-Key is bound to: params, query, body, file,
 * and what its kind says makes it another request (an export's owned-contacts choice).
 */
export function fingerprintOf(
  input: Pick<Input, "params" | "query" | "json" | "fileHash">,
  variant: Record<string, unknown> = {},
): string {
  return createHash("sha256")
    .update(
      stableStringify({
        params: input.params,
        query: input.query,
        body: input.json ?? null,
        file: input.fileHash ?? null,
        ...variant,
      }),
    )
    .digest("hex");
}

/** What besides the request makes it another purchase; throws (422) when a header is not one the kind takes. */
export function variantOf(op: OperationSpec, headers: Record<string, string>): Record<string, unknown> {
  return purchaseKindOf(op.id)?.variant?.(headers) ?? {};
}

/** `admitted`: an admin's approval already checked the caps and made the hold (approvals.ts). */
export async function runSpend(
  order: SpendOrder,
  deps: PipelineDeps,
  exchange: Exchange,
  admitted?: { estimate: number },
): Promise<SpendDone> {
  const { op, input, key } = order;
  const kind = purchaseKindOf(op.id);
  if (!kind) throw new Error(`${op.id} spends but is no kind of purchase (purchase-kinds.ts)`);
  // An approved request runs under the hash stored with it (computed when it was asked for).
  const fingerprint = order.fingerprint ?? fingerprintOf(input, variantOf(op, order.headers));
  const scope = { caller: order.caller, operation: op.id, key };
  const entryId = SpendJournal.entryId(scope);

  // An upload, read once: priced (its addresses counted), kept whole with an approval request.
  const file: ToolFile | undefined = input.file
    ? toolFile(input.file.name, input.file.type, new Uint8Array(await input.file.arrayBuffer()))
    : undefined;
  const unreadable = file && unreadableUpload(file);
  if (unreadable?.status === 400) throw fail(400, unreadable.detail);
  if (unreadable) throw unprocessable(validationError(["body", "requested_file"], unreadable.detail));

  // Price and admit, with the body as it will be sent.
  let estimate: number | null = admitted?.estimate ?? null;
  let held = admitted !== undefined;
  let approvalId: string | null = null;
  if (!admitted && deps.policy && kind.policed) {
    const admission = await deps.policy
      .admit({
        scope,
        fingerprint,
        body: (input.json ?? {}) as Record<string, unknown>,
        headers: order.headers,
        query: input.query,
        file,
      })
      .catch((error) => {
        throw error instanceof JournalUnavailable ? journalUnavailable(error, deps) : error;
      });
    if (admission.kind === "approval")
      return { answer: approvalAnswer(admission), replayed: false, outcome: "approval" };
    ({ estimate, held, approvalId } = admission);
  }

  const bought = kind.describe(
    {
      operation: op.id,
      person: scope.caller,
      keyHash: entryId,
      keyLast4: key.slice(-4),
      tag: SpendJournal.tagOf(scope),
      body: input.json as Record<string, unknown> | undefined,
      file,
      headers: order.headers,
      estimate,
    },
    deps.kinds,
  );
  let outcome: WorkOutcome = "final";
  const work = async (): Promise<WorkResult> => {
    const result = await exclusionsSentRecorded();
    outcome = result.outcome;
    return result;
  };
  const exclusionsSentRecorded = async (): Promise<WorkResult> => {
    const excluded = await kind.exclude(bought, deps.kinds);
    if ("refused" in excluded) return excluded.refused;
    let sent: WorkResult | null = null;
    if (excluded.body !== null) {
      const call: Call =
        excluded.body === "as-asked"
          ? order.call
          : { ...order.call, body: { kind: "json", text: JSON.stringify(excluded.body) } };
      // "Was it ever made?" is timed from here, the real send, not from the free work before it.
      if (kind.reconcile && !(await deps.journal.markSent(scope).catch(() => false))) return NOT_MARKED;
      sent = await exchange(call);
      if (sent.outcome === "nothing-done") return sent;
    }
    return kind.record(bought, excluded.plan, sent, deps.kinds);
  };

  let result: Awaited<ReturnType<SpendJournal["run"]>>;
  try {
    result = await deps.journal.run(
      scope,
      fingerprint,
      work,
      kind.reconcile?.(bought, deps.kinds),
      kind.unknownRow(bought),
    );
  } catch (error) {
    if (held) await deps.policy?.release(entryId).catch(() => {});
    if (!(error instanceof JournalUnavailable)) throw error;
    throw journalUnavailable(error, deps);
  }
  // Not run here (replayed, joined, refused): the hold made for it goes (a run's commit took its own).
  if (result.kind !== "fresh" && held) await deps.policy?.release(entryId).catch(() => {});
  if (result.kind === "conflict")
    throw fail(
      409,
      "This Idempotency-Key was already used for a different request (other details, or another action). Use a new key for a new request.",
      { code: SPEND_CODES.keyReused },
    );
  if (result.kind === "unknown") throw fail(409, UNKNOWN_LATER, { code: SPEND_CODES.outcomeUnknown });
  if (result.kind === "spent")
    throw fail(
      409,
      `This purchase was already made on ${result.at.toISOString().slice(0, 10)} (it is in the ledger), and its answer is no longer kept, so it is not sent again. To buy the same contacts again, start a new purchase.`,
      { code: SPEND_CODES.alreadyBought },
    );
  if (result.kind === "busy")
    throw fail(
      409,
      "This purchase is still being carried out by another instance of the proxy. Try again in a minute: the same request then gets its answer, and is not charged again.",
      { code: SPEND_CODES.inProgress, headers: [["retry-after", "60"]] },
    );
  if (result.kind === "replay") {
    deps.stats.idempotentReplays++;
    return { answer: result.answer, replayed: true, outcome: "replayed" };
  }
  // An approved request its requester sent again (not run by the approval): it ran now.
  if (approvalId) await deps.policy?.ran(approvalId, { answer: result.answer, outcome }).catch(() => {});
  return { answer: result.answer, replayed: false, outcome };
}

const UNKNOWN_LATER =
  "This purchase was under way when the proxy stopped, so whether it was carried out (and charged) is not known. " +
  "It will not be sent again under this key. Check the balance on the Account page, and for an export the export list, before you buy it again.";

const NOT_MARKED: WorkResult = {
  answer: problem(
    503,
    "The proxy could not record that this purchase is being sent, so nothing was sent and nothing charged. Try again in a moment.",
  ),
  outcome: "nothing-done",
};

function journalUnavailable(error: JournalUnavailable, deps: Pick<PipelineDeps, "log">) {
  deps.log.error({ err: { message: error.message } }, "spend journal unavailable: spending refused");
  return fail(
    503,
    "Spending is paused: the proxy cannot record this purchase before sending it (its database is unavailable or read-only), so nothing was sent and nothing charged. Try again later; if it lasts, tell whoever runs the proxy.",
    { code: SPEND_CODES.journalUnavailable, headers: [["retry-after", "30"]] },
  );
}

function approvalAnswer(admission: Extract<Admission, { kind: "approval" }>): BufferedAnswer {
  const { approval, threshold } = admission;
  const detail =
    `This purchase may cost up to ${credits(approval.creditsEstimated)} credits, ` +
    `${threshold === null ? "so it needs" : `above your approval threshold of ${credits(threshold)}, so it needs`} an admin's approval. ` +
    `It was sent to an admin; nothing was sent to the data service and nothing charged. Once approved it runs once: send the same request again (same key) to get its answer.`;
  return {
    status: 202,
    headers: [["x-spending-code", SPENDING_CODES.approvalRequested]],
    body: JSON.stringify({ detail, code: SPENDING_CODES.approvalRequested, approvalRequested: approval }),
  };
}
