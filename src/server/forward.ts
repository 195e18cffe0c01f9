import { createHash } from "node:crypto";
import type { Context, Handler } from "hono";
import type { Logger } from "pino";
import { canonicalKey, stableStringify } from "../contract/canonical";
import type { GroupNode } from "../contract/filter";
import { responses } from "../contract/operations";
import type { OperationSpec } from "../contract/routes";
import { passedHeaders } from "./allowlist";
import { fail, problem, toResponse } from "./answer";
import type { ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { answerOf } from "./faults";
import { IDEMPOTENCY_KEY, type IdempotencyJournal } from "./idempotency";
import type { KeyStore } from "./key-store";
import { type Input, readInput } from "./request-input";
import type { ResponseCache } from "./response-cache";
import type { ProxyStats } from "./stats";
import type { Call, UpstreamClient } from "./upstream";

/**
 * One operation of the allowlist, end to end: read the input within limits, validate all of it with
 * the strict contract (nothing leaves before that), then send it the way the operation needs:
 * spends once per Idempotency-Key, pure reads through the cache, downloads streamed, the rest as is.
 */
export interface ForwardDeps {
  config: Pick<ProxyConfig, "maxBodyBytes">;
  client: UpstreamClient;
  keys: KeyStore;
  cache: ResponseCache;
  journal: IdempotencyJournal;
  stats: ProxyStats;
  scrub: (text: string) => string;
  log: Logger;
}

export function forwardHandler(op: OperationSpec, deps: ForwardDeps): Handler<ProxyEnv> {
  return async (c) => {
    c.set("op", op.id);
    const input = await readInput(c, op, deps.config.maxBodyBytes);
    const call: Call = {
      op,
      target: targetOf(op, input),
      body:
        input.file !== undefined
          ? { kind: "form", file: input.file }
          : input.json !== undefined
            ? { kind: "json", text: JSON.stringify(input.json) }
            : { kind: "none" },
      stream: op.answer === "file",
    };
    const onUpstreamMs = (ms: number) => c.set("upstreamMs", ms);

    if (op.spends) return spend(c, op, input, call, deps, onUpstreamMs);

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
      const outcome = await deps.client.send(call, onUpstreamMs);
      if (outcome.kind === "stream")
        return new Response(outcome.body, { status: 200, headers: passedHeaders(outcome.headers, "file") });
      return toResponse(answerOf(outcome, deps.scrub).answer);
    }
    return toResponse((await exchange(call, deps, onUpstreamMs)).answer);
  };
}

async function exchange(call: Call, deps: ForwardDeps, onUpstreamMs: (ms: number) => void) {
  const outcome = await deps.client.send(call, onUpstreamMs);
  if (outcome.kind === "stream") throw new Error("unexpected stream"); // only file operations stream
  if (outcome.kind === "answer" && outcome.status === 200 && isRotation(call.op))
    return rotated(outcome, deps);
  return answerOf(outcome, deps.scrub, { spends: call.op.spends });
}

const isRotation = (op: OperationSpec) => op.id === "rotateV1" || op.id === "rotateV2";

/**
 * A rotation answer carries the new key: it is stored and swapped in here, and the browser (and the
 * idempotency journal) only ever see `{ rotated: true, last4 }`. Read leniently (whatever the
 * content type): once the upstream has rotated, the old key is dead and this one is the only key.
 */
async function rotated(outcome: { headers: Headers; text: string }, deps: ForwardDeps) {
  let body: unknown;
  try {
    body = JSON.parse(outcome.text);
  } catch {}
  const parsed = responses.newKey.safeParse(body);
  if (!parsed.success)
    return {
      answer: problem(502, "The data service's answer to the key rotation could not be read."),
      final: true,
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
      final: true,
    };
  }
  return {
    answer: {
      status: 200,
      headers: passedHeaders(outcome.headers, "json"),
      body: JSON.stringify({ rotated: true, last4: deps.keys.last4() }),
    },
    final: true,
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
  const fingerprint = createHash("sha256")
    .update(
      stableStringify({
        params: input.params,
        query: input.query,
        body: input.json ?? null,
        file: input.fileHash ?? null,
      }),
    )
    .digest("hex");
  const result = await deps.journal.run({ caller: c.get("caller"), operation: op.id, key }, fingerprint, () =>
    exchange(call, deps, onUpstreamMs),
  );
  if (result.kind === "conflict")
    throw fail(
      409,
      "This Idempotency-Key was already used with different details. Use a new key for a new request.",
      {
        code: "IDEMPOTENCY_KEY_REUSED",
      },
    );
  if (result.kind === "replay") {
    deps.stats.idempotentReplays++;
    c.set("replayed", true);
    return toResponse(result.answer, { "idempotent-replayed": "true" });
  }
  return toResponse(result.answer);
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
