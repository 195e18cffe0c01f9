import type { Context, Handler } from "hono";
import type { Logger } from "pino";
import { canonicalKey, stableStringify } from "../contract/canonical";
import { CSV_HEADER_STYLES } from "../contract/columns";
import { SPEND_CODES } from "../contract/errors";
import { fileNameWithoutTag } from "../contract/export-tag";
import type { GroupNode } from "../contract/filter";
import { responses } from "../contract/operations";
import { type OperationSpec, operationById } from "../contract/routes";
import { OWNED_HEADER, type OwnedChoice } from "../contract/spending";
import type { ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { passedHeaders } from "./http/allowlist";
import { fail, ProxyProblem, problem, toResponse } from "./http/answer";
import { withLabelledHeader } from "./http/csv";
import { type Input, readInput } from "./http/request-input";
import type { ProxyStats } from "./http/stats";
import {
  exportsInFlight,
  freeIdsOf,
  parseOwnedChoice,
  prepareExport,
  withFreeRows,
} from "./spend/export-purchases";
import {
  runSpend as runPipeline,
  SPEND_HEADERS,
  type SpendDone,
  type SpendOrder,
  variantOf,
} from "./spend/pipeline";
import type { PurchaseDeps } from "./spend/purchases";
import { IDEMPOTENCY_KEY, type SpendJournal, type WorkResult } from "./spend/spend-journal";
import type { SpendingPolicy } from "./spend/spending-policy";
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
    if (deps.authorize) await deps.authorize(c, op, input);
    const onUpstreamMs = (ms: number) => c.set("upstreamMs", ms);
    // Built when it is sent: a cached answer needs no call.
    const callOf = (): Call => ({ ...spendCall(op, input), stream: op.answer === "file" });

    if (op.spends) return spend(c, op, input, callOf(), deps, onUpstreamMs);

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
      const sent = { ...callOf(), body: { kind: "json" as const, text: JSON.stringify(prepared.body) } };
      return toResponse((await exchange(sent, deps, onUpstreamMs)).answer);
    }

    if (op.cacheable) {
      const key = cacheKeyOf(op, input);
      const { answer, how } = await deps.cache.get(
        key,
        async () => (await exchange(callOf(), deps, onUpstreamMs)).answer,
      );
      c.set("cache", how);
      if (how === "hit") deps.stats.cacheHits++;
      else if (how === "join") deps.stats.singleFlightJoins++;
      else deps.stats.cacheMisses++;
      return toResponse(answer);
    }

    const call = callOf();
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
        // Asked for in labels or a CRM's names (`?headers=labels`): the header row is rewritten,
        // after the free rows were matched to the service's names; a file that says it is JSON is
        // no CSV to rewrite.
        const style = CSV_HEADER_STYLES.find((known) => known === input.proxyQuery?.headers);
        if (style && style !== "names" && body && !isJson(headers)) {
          const labelled = await withLabelledHeader(body, style);
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
  const headers: Record<string, string> = {};
  for (const name of SPEND_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  // A header the purchase does not take is refused before anything is read.
  variantOf(op, headers);
  if (isRotation(op)) await deps.keys.checkWritable();
  const caller = await deps.confirmCaller(c);
  const done = await runSpend({ op, caller, key, input, call, headers }, deps, onUpstreamMs);
  if (done.replayed) {
    c.set("replayed", true);
    return toResponse(done.answer, { "idempotent-replayed": "true" });
  }
  return toResponse(done.answer);
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
 * A spend through the one pipeline (spend/pipeline.ts), sent with this proxy's exchange (a key
 * rotation's answer stored, an answer that never came judged unknown). `admitted`: an admin's
 * approval already checked the caps and made the hold.
 */
export function runSpend(
  order: SpendOrder,
  deps: ForwardDeps,
  onUpstreamMs: (ms: number) => void = () => {},
  admitted?: { estimate: number },
): Promise<SpendDone> {
  const { client, purchases, config } = deps;
  if (!purchases) throw new Error("a spend needs the team's store of purchases");
  return runPipeline(
    order,
    {
      journal: deps.journal,
      policy: deps.policy,
      stats: deps.stats,
      log: deps.log,
      kinds: {
        purchases,
        client,
        plan: deps.plan ?? (async () => null),
        exportsInFlight: (keyHash) =>
          exportsInFlight({ db: purchases.db, client }, (k) => deps.journal.exportStartsBefore(k), keyHash),
        longestSendMs: (operation) =>
          config.rate.queueTimeoutMs +
          client.timeoutOf(operationById(operation as Parameters<typeof operationById>[0])) +
          10_000,
      },
    },
    (sent) => exchange(sent, deps, onUpstreamMs),
    admitted,
  );
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
  return [
    op.id,
    bodyKeyOf(input.parsedBody),
    stableStringify(input.params),
    stableStringify(input.query),
  ].join("\n");
}

/** A validated body's part of the cache key, kept with the body (the same text validates to the same object). */
const bodyKeys = new WeakMap<object, string>();
function bodyKeyOf(body: Record<string, unknown> | undefined): string {
  if (!body) return `${canonicalKey(undefined)}\n{}`;
  let key = bodyKeys.get(body);
  if (key === undefined) {
    const { filter, ...rest } = body;
    key = `${canonicalKey(filter as GroupNode | null | undefined)}\n${stableStringify(rest)}`;
    bodyKeys.set(body, key);
  }
  return key;
}

function targetOf(op: OperationSpec, input: Input): string {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(input.params[name] ?? ""));
  const query = new URLSearchParams(input.query).toString();
  return query ? `${path}?${query}` : path;
}
