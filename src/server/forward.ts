import { createHash } from "node:crypto";
import type { Context, Handler } from "hono";
import type { Logger } from "pino";
import { canonicalKey, stableStringify } from "../contract/canonical";
import { SPEND_CODES, validationError } from "../contract/errors";
import { fileNameWithoutTag, hasExportTag, taggedExportName } from "../contract/export-tag";
import type { GroupNode } from "../contract/filter";
import { responses } from "../contract/operations";
import { type OperationSpec, operationById } from "../contract/routes";
import {
  AUDIENCE_HEADER,
  audienceNameOfHeader,
  OWNED_HEADER,
  type OwnedChoice,
  SPENDING_CODES,
} from "../contract/spending";
import type { ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { passedHeaders } from "./http/allowlist";
import { type BufferedAnswer, fail, ProxyProblem, problem, toResponse, unprocessable } from "./http/answer";
import { withLabelledHeader } from "./http/csv";
import { type Input, readInput } from "./http/request-input";
import type { ProxyStats } from "./http/stats";
import { credits } from "./spend/approvals";
import {
  type ExportPurchase,
  type ExportStarted,
  freeIdsOf,
  ownedInAudience,
  parseOwnedChoice,
  prepareExport,
  startExport,
  startedRecorder,
  unknownExportRow,
  withFreeRows,
} from "./spend/export-purchases";
import type { LedgerRowValues } from "./spend/ledger";
import {
  LEDGER_OPERATIONS,
  type Purchase,
  type PurchaseDeps,
  purchase,
  unknownLedgerRow,
} from "./spend/purchases";
import {
  IDEMPOTENCY_KEY,
  JournalUnavailable,
  type Reconcile,
  SpendJournal,
  type WorkOutcome,
  type WorkResult,
} from "./spend/spend-journal";
import { type Admission, POLICED_OPERATIONS, type SpendingPolicy } from "./spend/spending-policy";
import { withoutSuppressed } from "./spend/suppression";
import {
  TOOL_OPERATIONS,
  type ToolFile,
  type ToolPurchase,
  toolFile,
  toolPurchase,
  unknownToolRow,
  unreadableUpload,
} from "./spend/tool-purchases";
import { answerOf, type Outcome } from "./upstream/faults";
import type { KeyStore } from "./upstream/key-store";
import type { ResponseCache } from "./upstream/response-cache";
import type { Call, UpstreamClient } from "./upstream/upstream";

/**
 * One operation of the allowlist, end to end: read the input within limits, validate all of it with
 * the strict contract (nothing leaves before that), then send it the way the operation needs:
 * spends once per Idempotency-Key, pure reads through the cache, downloads streamed, the rest as is.
 */
export interface ForwardDeps {
  config: Pick<ProxyConfig, "maxBodyBytes" | "rate">;
  client: UpstreamClient;
  keys: KeyStore;
  cache: ResponseCache;
  journal: SpendJournal;
  stats: ProxyStats;
  scrub: (text: string) => string;
  log: Logger;
  /** The caller, checked against the database itself (not a cached session): spends use it. */
  confirmCaller: (c: Context<ProxyEnv>) => Promise<string>;
  /** Checks that need the validated input (who may cancel this job): throws to refuse, before sending. */
  authorize?: (c: Context<ProxyEnv>, op: OperationSpec, input: Input) => Promise<void>;
  /** The team's store of contacts and the ledger: Enrich and Preview go through it. */
  purchases?: PurchaseDeps;
  /** The team's caps and approval thresholds: every spend but key rotation is admitted by it. */
  policy?: SpendingPolicy;
  /** The plan behind the key (a company discover's charge depends on it); null when not known. */
  plan?: () => Promise<string | null>;
}

export function forwardHandler(op: OperationSpec, deps: ForwardDeps): Handler<ProxyEnv> {
  return async (c) => {
    c.set("op", op.id);
    const input = await readInput(c, op, deps.config.maxBodyBytes);
    await deps.authorize?.(c, op, input);
    const call: Call = { ...spendCall(op, input), stream: op.answer === "file" };
    const onUpstreamMs = (ms: number) => c.set("upstreamMs", ms);

    if (op.spends) return spend(c, op, input, call, deps, onUpstreamMs);

    if (op.id === "estimate" && deps.purchases) {
      // The estimate of what the export will buy: suppressed contacts, and owned ones unless
      // bought again, left out as the export start will leave them out.
      const choice = ownedChoiceOf(c);
      const prepared = await prepareExport(
        deps.purchases,
        input.json as Record<string, unknown>,
        choice,
      ).catch((error) => {
        if (error instanceof ProxyProblem) throw error;
        throw fail(
          503,
          "The team's do-not-contact lists and contacts it owns could not be read, so no estimate was asked for. Try again in a moment.",
        );
      });
      const sent = { ...call, body: { kind: "json" as const, text: JSON.stringify(prepared.body) } };
      return toResponse((await exchange(sent, deps, onUpstreamMs)).answer);
    }

    if (op.cacheable) {
      const key = cacheKeyOf(op, input);
      const { answer, how } = await deps.cache.get(
        key,
        async () => (await exchange(call, deps, onUpstreamMs)).answer,
      );
      c.set("cache", how);
      if (how === "hit") deps.stats.cacheHits++;
      else if (how === "join") deps.stats.singleFlightJoins++;
      else deps.stats.cacheMisses++;
      return toResponse(answer);
    }

    if (call.stream) {
      // add-free: the owned rows of the export's audience go at the end of its file.
      const free =
        op.id === "exportDownload" && deps.purchases
          ? await freeIdsOf(deps.purchases.db, input.params.exportId ?? "").catch(() => {
              throw fail(
                503,
                "The proxy cannot reach its database right now, so the rows the team already owns could not be added to this file. Try again in a moment.",
              );
            })
          : null;
      const outcome = await deps.client.send(call, onUpstreamMs);
      if (outcome.kind === "stream") {
        let headers = withoutTag(passedHeaders(outcome.headers, "file"));
        let body = outcome.body;
        if (free && body && deps.purchases) {
          body = withFreeRows(deps.purchases.db, body, free);
          headers = headers.filter(([name]) => name !== "content-length");
        }
        // Asked for in labels (`?headers=labels`): the header row is rewritten, after the free rows
        // were matched to the service's names; a file that says it is JSON is no CSV to rewrite.
        if (input.proxyQuery?.headers === "labels" && body && !isJson(headers)) {
          const labelled = await withLabelledHeader(body);
          body = labelled.body;
          headers = headers.map(([name, value]) => [
            name,
            name === "content-length" ? String(Number(value) + labelled.lengthChange) : value,
          ]);
        }
        return new Response(body, { status: 200, headers });
      }
      return toResponse(answerOf(outcome, deps.scrub).answer);
    }
    return toResponse((await exchange(call, deps, onUpstreamMs)).answer);
  };
}

async function exchange(
  call: Call,
  deps: ForwardDeps,
  onUpstreamMs: (ms: number) => void,
): Promise<WorkResult> {
  const result = await exchangeOnce(call, deps, onUpstreamMs);
  // A rotation whose new key may exist upstream but is not stored: said from now on, not only after a restart.
  if (isRotation(call.op) && result.outcome === "unknown") deps.keys.interruptedRotation ??= new Date();
  return result;
}

async function exchangeOnce(
  call: Call,
  deps: ForwardDeps,
  onUpstreamMs: (ms: number) => void,
): Promise<WorkResult> {
  const outcome = await deps.client.send(call, onUpstreamMs);
  if (outcome.kind === "stream") throw new Error("unexpected stream"); // only file operations stream
  if (outcome.kind === "answer" && outcome.status === 200 && isRotation(call.op))
    return rotated(outcome, deps);
  if (outcome.kind === "answer" && outcome.status === 401 && deps.keys.interruptedRotation)
    return {
      answer: problem(502, interruptedRotationMessage(deps.keys.interruptedRotation, deps.keys.storedIn)),
      outcome: "nothing-done",
    };
  const { answer, final } = answerOf(outcome, deps.scrub, { spends: call.op.spends });
  if (final) return { answer, outcome: "final" };
  if (call.op.spends && mayHaveArrived(outcome))
    return {
      answer: problem(outcome.kind === "timeout" ? 504 : 502, UNKNOWN_NOW, {
        code: SPEND_CODES.outcomeUnknown,
      }),
      outcome: "unknown",
    };
  return { answer, outcome: "nothing-done" };
}

/** Sent, and no answer: it may have been carried out. */
function mayHaveArrived(outcome: Exclude<Outcome, { kind: "stream" }>): boolean {
  return outcome.kind === "timeout" || (outcome.kind === "network" && outcome.reached);
}

const UNKNOWN_NOW =
  "This purchase was sent, but no answer came back from the data service, so whether it was carried out (and charged) is not known. " +
  "It will not be sent again by itself. Check the balance on the Account page, and for an export the export list, before you buy it again.";
const UNKNOWN_LATER =
  "This purchase was under way when the proxy stopped, so whether it was carried out (and charged) is not known. " +
  "It will not be sent again under this key. Check the balance on the Account page, and for an export the export list, before you buy it again.";

export function interruptedRotationMessage(at: Date, keyFile: string): string {
  return (
    `The data service refused the proxy's key. A key rotation was cut off at ${at.toISOString()}: the service may have issued a new key that was never stored. ` +
    `Whoever runs the proxy: create a key in the service's dashboard, put it in ${keyFile} (or move that file aside and set API_KEY), then restart.`
  );
}

const isRotation = (op: OperationSpec) => op.id === "rotateV1" || op.id === "rotateV2";

/**
 * A rotation answer carries the new key: it is stored and swapped in here, and the browser (and the
 * idempotency journal) only ever see `{ rotated: true, last4 }`. Read leniently (whatever the
 * content type): once the upstream has rotated, the old key is dead and this one is the only key.
 */
async function rotated(outcome: { headers: Headers; text: string }, deps: ForwardDeps): Promise<WorkResult> {
  let body: unknown;
  try {
    body = JSON.parse(outcome.text);
  } catch {}
  const parsed = responses.newKey.safeParse(body);
  if (!parsed.success)
    return {
      answer: problem(
        502,
        "The data service's answer to the key rotation could not be read: a new key may have been issued that the proxy does not have.",
      ),
      outcome: "unknown" as const,
    };
  try {
    await deps.keys.rotate(parsed.data.api_key);
    deps.log.warn({ keyLast4: deps.keys.last4() }, "API key rotated and stored");
  } catch {
    deps.log.error({ keyLast4: deps.keys.last4() }, "API key rotated but could not be stored");
    return {
      answer: problem(
        500,
        "The key was rotated and is in use, but saving it to disk failed; it will be lost on restart. Check the data folder's permissions.",
      ),
      outcome: "unknown" as const,
    };
  }
  return {
    answer: {
      status: 200,
      headers: passedHeaders(outcome.headers, "json"),
      body: JSON.stringify({ rotated: true, last4: deps.keys.last4() }),
    },
    outcome: "final" as const,
  };
}

async function spend(
  c: Context<ProxyEnv>,
  op: OperationSpec,
  input: Input,
  call: Call,
  deps: ForwardDeps,
  onUpstreamMs: (ms: number) => void,
): Promise<Response> {
  const key = c.req.header("idempotency-key");
  if (key === undefined)
    throw fail(
      428,
      "This action spends credits, so it needs an Idempotency-Key header (8 to 128 letters, digits, - or _).",
    );
  if (!IDEMPOTENCY_KEY.test(key))
    throw fail(428, "The Idempotency-Key header must be 8 to 128 letters, digits, - or _.");
  // A choice of owned contacts the proxy does not take is refused before anything is read.
  if (op.id === "exportStart") ownedChoiceOf(c);
  const headers: Record<string, string> = {};
  for (const name of SPEND_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  const caller = await deps.confirmCaller(c);
  const done = await runSpend({ op, caller, key, input, call, headers }, deps, onUpstreamMs);
  if (done.replayed) {
    c.set("replayed", true);
    return toResponse(done.answer, { "idempotent-replayed": "true" });
  }
  return toResponse(done.answer);
}

/** Request headers that change what a spend buys: kept with an approval request, sent again with it. */
export const SPEND_HEADERS: readonly string[] = [OWNED_HEADER, AUDIENCE_HEADER];

/**
 * The hash of a spend's request that its Idempotency-Key is bound to (params, query, body, file,
 * and the owned-contacts choice when it is not the default).
 */
export function fingerprintOf(
  input: Pick<Input, "params" | "query" | "json" | "fileHash">,
  choice: OwnedChoice = "leave-out",
): string {
  return createHash("sha256")
    .update(
      stableStringify({
        params: input.params,
        query: input.query,
        body: input.json ?? null,
        file: input.fileHash ?? null,
        // Another choice of what to do with owned contacts is another request.
        ...(choice !== "leave-out" ? { owned: choice } : {}),
      }),
    )
    .digest("hex");
}

/** A spend, apart from the HTTP request that asked for it: the approvals route runs stored ones. */
export interface SpendOrder {
  op: OperationSpec;
  /** Whose spend it is (confirmed against the database), and their Idempotency-Key. */
  caller: string;
  key: string;
  input: Pick<Input, "params" | "query" | "json" | "file" | "fileHash">;
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

/** A request's call (its path, query and body), as received or as stored with an approval. */
export function spendCall(op: OperationSpec, input: Pick<Input, "params" | "query" | "json" | "file">): Call {
  return {
    op,
    target: targetOf(op, input),
    body:
      input.file !== undefined
        ? { kind: "form", file: input.file }
        : input.json !== undefined
          ? { kind: "json", text: JSON.stringify(input.json) }
          : { kind: "none" },
    stream: false,
  };
}

/**
 * The one spend path: the team's caps and approval threshold (Enrich, Preview, Export start; before
 * anything is sent), then the journal, at most once per (caller, key). `admitted`: an admin's
 * approval already checked the caps and made the hold (approvals.ts). Refusals are thrown.
 */
export async function runSpend(
  order: SpendOrder,
  deps: ForwardDeps,
  onUpstreamMs: (ms: number) => void = () => {},
  admitted?: { estimate: number },
): Promise<SpendDone> {
  const { op, input, call, key } = order;
  const choice = op.id === "exportStart" ? parseOwnedChoice(order.headers[OWNED_HEADER]) : "leave-out";
  // An approved request runs under the hash stored with it (computed when it was asked for).
  const fingerprint = order.fingerprint ?? fingerprintOf(input, choice);
  const scope = { caller: order.caller, operation: op.id, key };
  const entryId = SpendJournal.entryId(scope);
  let send = call;
  let reconcile: Reconcile | undefined;
  if (op.id === "exportStart") {
    const tag = SpendJournal.tagOf(scope);
    const body = { ...(input.json as Record<string, unknown>) };
    body.name = taggedExportName(body.name as string | null | undefined, tag);
    send = { ...call, body: { kind: "json", text: JSON.stringify(body) } };
  }
  if (isRotation(op)) await deps.keys.checkWritable();

  // An upload, read once: priced (its addresses counted), kept whole with an approval request.
  const file: ToolFile | undefined = input.file
    ? toolFile(input.file.name, input.file.type, new Uint8Array(await input.file.arrayBuffer()))
    : undefined;

  if (file && TOOL_OPERATIONS.has(op.id)) {
    const unreadable = unreadableUpload(file);
    if (unreadable?.status === 400) throw fail(400, unreadable.detail);
    if (unreadable) throw unprocessable(validationError(["body", "requested_file"], unreadable.detail));
  }

  // Caps and approvals, with the body as it will be sent (key rotation is not policed).
  let estimate: number | null = admitted?.estimate ?? null;
  let held = admitted !== undefined;
  let approvalId: string | null = null;
  if (!admitted && deps.policy && POLICED_OPERATIONS.has(op.id)) {
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

  let work = () => exchange(send, deps, onUpstreamMs);
  let unknownRow: LedgerRowValues | undefined;
  const purchases = deps.purchases;
  let exported: ExportPurchase | undefined;
  if (purchases && op.id === "exportStart") {
    // The filter leaves out suppressed and (unless bought again) owned contacts; the start is a
    // pending ledger row, settled when the proxy sees the export end.
    const bought = {
      person: scope.caller,
      keyHash: entryId,
      keyLast4: key.slice(-4),
      original: input.json as Record<string, unknown>,
      audienceName: audienceNameOfHeader(order.headers[AUDIENCE_HEADER]),
      creditsEstimated: estimate,
    };
    exported = bought;
    const tagged = JSON.parse((send.body as { text: string }).text) as Record<string, unknown>;
    work = async () => {
      let prepared: Awaited<ReturnType<typeof prepareExport>>;
      try {
        prepared = await prepareExport(purchases, tagged, choice);
      } catch (error) {
        if (error instanceof ProxyProblem) return { answer: error.answer, outcome: "nothing-done" };
        return {
          answer: problem(
            503,
            "The team's do-not-contact lists and contacts it owns could not be read, so nothing was sent and nothing charged. Try again later.",
          ),
          outcome: "nothing-done",
        };
      }
      let free: string[] | null = null;
      if (choice === "add-free" && prepared.owned.length > 0) {
        // Which owned contacts are in the audience (free calls): added to the file for nothing.
        try {
          const filter = withoutSuppressed(
            bought.original.filter as GroupNode | null | undefined,
            prepared.suppressed,
          );
          free = (await ownedInAudience(deps.client, filter, prepared.owned)).found;
        } catch {
          return {
            answer: problem(
              502,
              "The data service did not answer the free counts that find the contacts the team already owns in this audience, so nothing was sent and nothing charged. Try again in a moment.",
            ),
            outcome: "nothing-done",
          };
        }
      }
      const sent = { ...call, body: { kind: "json" as const, text: JSON.stringify(prepared.body) } };
      // "Was it ever made?" is timed from here, the real send, not from the free work before it.
      if (!(await deps.journal.markSent(scope).catch(() => false)))
        return {
          answer: problem(
            503,
            "The proxy could not record that this export is being sent, so nothing was sent and nothing charged. Try again in a moment.",
          ),
          outcome: "nothing-done",
        };
      return startExport({ ...bought, free }, () => exchange(sent, deps, onUpstreamMs));
    };
    unknownRow = unknownExportRow(bought);
  }
  if (op.id === "exportStart")
    // A start cut off by a crash and found in the export list is recorded as if it had answered.
    reconcile = async (tag, sinceSentMs) => {
      const found = await findExport(tag, sinceSentMs, deps);
      if (typeof found === "string") return found;
      const answer = { status: 202, headers: [], body: JSON.stringify({ ...found, status: "QUEUED" }) };
      return { found: answer, record: exported ? startedRecorder(exported, found) : undefined };
    };
  if (purchases && TOOL_OPERATIONS.has(op.id)) {
    // Verification and company tools: sent as they are; their ledger row (a batch's pending job).
    const bought: ToolPurchase = {
      operation: op.id,
      body: input.json as Record<string, unknown> | undefined,
      file,
      person: scope.caller,
      keyHash: entryId,
      keyLast4: key.slice(-4),
      creditsEstimated: estimate,
      plan: deps.plan ?? (async () => null),
    };
    work = () => toolPurchase(bought, () => exchange(send, deps, onUpstreamMs));
    unknownRow = unknownToolRow(bought);
  }
  if (purchases && LEDGER_OPERATIONS.has(op.id)) {
    // Owned rows served from the store, the rest sent; delivered rows and the ledger's row are
    // committed with the journal's answer, which a replay returns as it was.
    const bought: Purchase = {
      operation: op.id as Purchase["operation"],
      person: scope.caller,
      keyHash: entryId,
      keyLast4: key.slice(-4),
      body: input.json as Record<string, unknown>,
      creditsEstimated: estimate,
      audienceName: audienceNameOfHeader(order.headers[AUDIENCE_HEADER]),
    };
    work = () =>
      purchase(purchases, bought, (body) =>
        exchange({ ...call, body: { kind: "json", text: JSON.stringify(body) } }, deps, onUpstreamMs),
      );
    unknownRow = unknownLedgerRow(bought);
  }
  let outcome: WorkOutcome = "final";
  const inner = work;
  work = async () => {
    const result = await inner();
    outcome = result.outcome;
    return result;
  };
  let result: Awaited<ReturnType<SpendJournal["run"]>>;
  try {
    result = await deps.journal.run(scope, fingerprint, work, reconcile, unknownRow);
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

function journalUnavailable(error: JournalUnavailable, deps: ForwardDeps) {
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

/**
 * An export whose start has no recorded outcome is looked up in the export list by its tag. Not
 * there is only proof it was never made once its latest attempt could no longer be on its way: the
 * longest wait in the proxy's queue, the start's own time limit and a margin have all passed. This
 * relies on the export list holding every export of the account (the contract's list has no pages).
 */
async function findExport(
  tag: string,
  sinceSentMs: number,
  deps: ForwardDeps,
): Promise<ExportStarted | "absent" | "not-known"> {
  const op = operationById("exports");
  const outcome = await deps.client.send({ op, target: op.path, body: { kind: "none" }, stream: false });
  if (outcome.kind !== "answer" || outcome.status !== 200) return "not-known";
  const parsed = responses.exports.safeParse(JSON.parse(outcome.text));
  if (!parsed.success) return "not-known";
  const found = parsed.data.exports.find((e) => hasExportTag(e.name, tag));
  if (found) return { exportId: found.exportId, rows: found.rows, credits: found.credits };
  const longest =
    deps.config.rate.queueTimeoutMs + deps.client.timeoutOf(operationById("exportStart")) + 10_000;
  return sinceSentMs > longest ? "absent" : "not-known";
}

/** `X-Owned-Contacts` (default `leave-out`); anything else is refused before anything is read. */
export function ownedChoiceOf(c: Context<ProxyEnv>): OwnedChoice {
  return parseOwnedChoice(c.req.header(OWNED_HEADER));
}

function isJson(headers: [string, string][]): boolean {
  const type = headers.find(([name]) => name === "content-type")?.[1] ?? "";
  return /^application\/json\b/i.test(type);
}

/** The journal's tag is in an export's name, and so in its file's name: people get theirs back. */
function withoutTag(headers: [string, string][]): [string, string][] {
  return headers.map(([name, value]) => [
    name,
    name === "content-disposition" ? fileNameWithoutTag(value) : value,
  ]);
}

function cacheKeyOf(op: OperationSpec, input: Input): string {
  const { filter, ...rest } = input.parsedBody ?? {};
  return [
    op.id,
    canonicalKey(filter as GroupNode | null | undefined),
    stableStringify(rest),
    stableStringify(input.params),
    stableStringify(input.query),
  ].join("\n");
}

function targetOf(op: OperationSpec, input: Input): string {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(input.params[name] ?? ""));
  const query = new URLSearchParams(input.query).toString();
  return query ? `${path}?${query}` : path;
}
