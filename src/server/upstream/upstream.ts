import type { OperationSpec } from "../../contract/routes";
import type { ProxyConfig } from "../config";
import { isRetryableRead } from "../http/allowlist";
import type { ProxyStats } from "../http/stats";
import { isRateLimited, type Outcome } from "./faults";
import type { KeyStore } from "./key-store";
import { QueueTimeout, type RateShaper } from "./rate-shaper";

/**
 * The upstream is a function from Request to Response: the embedded sandbox's `fetch`, or `fetch`
 * to the real service. The proxy builds every request against UPSTREAM_ORIGIN; the live adapter
 * moves it to the configured base address. Nothing else tells the two apart.
 */
export type Upstream = (request: Request) => Promise<Response>;

export const UPSTREAM_ORIGIN = "http://upstream.invalid";

export function liveUpstream(baseUrl: string, fetchImpl: typeof fetch = fetch): Upstream {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  return async (request) => {
    const url = new URL(request.url);
    const target = new URL(`${prefix}${url.pathname}${url.search}`, base.origin);
    const body =
      request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    // Redirects are not followed: the key must go to the configured address and nowhere else.
    return fetchImpl(target, {
      method: request.method,
      headers: request.headers,
      body,
      signal: request.signal,
      redirect: "manual",
    });
  };
}

/** One upstream call as the proxy means it, rebuilt from scratch for every attempt. */
export interface Call {
  op: OperationSpec;
  /** Path (params filled in, encoded) and query, e.g. `/v2/jobs/12?x=1`. */
  target: string;
  body: { kind: "json"; text: string } | { kind: "form"; file: File } | { kind: "none" };
  /** Stream a 200 answer instead of reading it (downloads). */
  stream: boolean;
}

/**
 * Sends calls through the rate shaper with per-operation timeouts; retries idempotent reads on
 * network errors, answers cut off mid-body and 502/503/504 (exponential backoff with full jitter),
 * and re-queues any call the upstream refused for its rate limit (refused before any work, so it is
 * safe to send again).
 */
export class UpstreamClient {
  constructor(
    private readonly deps: {
      upstream: Upstream;
      keys: KeyStore;
      shaper: RateShaper;
      stats: ProxyStats;
      config: Pick<ProxyConfig, "timeouts" | "retry" | "rate">;
      sleep?: (ms: number) => Promise<void>;
      random?: () => number;
      /** Told every attempt's outcome and when it was sent (performance.now()): health is judged from them. */
      onOutcome?: (outcome: Outcome, sentAt: number) => void;
    },
  ) {}

  timeoutOf(op: OperationSpec): number {
    return this.deps.config.timeouts.byOperation[op.id] ?? this.deps.config.timeouts.defaultMs;
  }

  async send(call: Call, onUpstreamMs?: (ms: number) => void): Promise<Outcome> {
    const { shaper, stats, config } = this.deps;
    const retryable = isRetryableRead(call.op);
    const deadline = Date.now() + config.rate.queueTimeoutMs;
    let retries = 0;
    let requeues = 0;
    for (;;) {
      let permit: Awaited<ReturnType<RateShaper["acquire"]>>;
      try {
        permit = await shaper.acquire(call.op.priority);
      } catch (error) {
        if (!(error instanceof QueueTimeout)) throw error;
        stats.queueTimeouts++;
        return { kind: "queue-timeout", retryAfterSeconds: error.retryAfterSeconds };
      }
      stats.countCall(call.op.id);
      const started = performance.now();
      const outcome = await this.attempt(call);
      onUpstreamMs?.(Math.round(performance.now() - started));
      this.deps.onOutcome?.(outcome, started);
      permit.release(
        outcome.kind === "answer" || outcome.kind === "stream" || outcome.kind === "cut" ? outcome : null,
      );

      if (
        outcome.kind === "answer" &&
        outcome.status === 429 &&
        isRateLimited(outcome.text) &&
        requeues < 3 &&
        Date.now() < deadline
      ) {
        requeues++;
        continue;
      }
      const transient =
        outcome.kind === "network" ||
        outcome.kind === "cut" ||
        (outcome.kind === "answer" && [502, 503, 504].includes(outcome.status));
      if (retryable && transient && retries < config.retry.max) {
        retries++;
        stats.retries++;
        const ceiling = config.retry.baseMs * 2 ** (retries - 1);
        await (this.deps.sleep ?? sleep)(Math.round((this.deps.random ?? Math.random)() * ceiling));
        continue;
      }
      return outcome;
    }
  }

  /**
   * One try of a read, now or not at all (null): only when the shaper has a slot free with nobody
   * waiting, never retried nor re-queued, given up on after `timeoutMs`. For the health probe.
   */
  async probe(call: Call, timeoutMs: number): Promise<Outcome | null> {
    const permit = this.deps.shaper.tryAcquire();
    if (!permit) return null;
    this.deps.stats.countCall(call.op.id);
    const sentAt = performance.now();
    const outcome = await this.attempt(call, Math.min(timeoutMs, this.timeoutOf(call.op)));
    this.deps.onOutcome?.(outcome, sentAt);
    permit.release(outcome.kind === "answer" || outcome.kind === "cut" ? outcome : null);
    return outcome;
  }

  private async attempt(call: Call, timeoutMs = this.timeoutOf(call.op)): Promise<Outcome> {
    const controller = new AbortController();
    const request = this.build(call, controller.signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    // Set once the status line and headers are in: from then on the upstream has answered (and, for a
    // spend, acted), whatever becomes of the body.
    let answered: { status: number; headers: Headers } | null = null;
    const work = (async (): Promise<Outcome> => {
      const response = await this.deps.upstream(request);
      answered = { status: response.status, headers: response.headers };
      if (call.stream && response.status === 200)
        return {
          kind: "stream",
          status: 200,
          headers: response.headers,
          body:
            response.body &&
            idleGuard(response.body, this.timeoutOf(call.op), declaredLength(response.headers)),
        };
      let text: string;
      try {
        text = await response.text();
      } catch {
        return { kind: "cut", ...answered };
      }
      return { kind: "answer", status: response.status, headers: response.headers, text };
    })();
    try {
      const result = await Promise.race([work, timedOut]);
      if (result !== "timeout") return result;
      controller.abort();
      // Whatever arrives late is dropped (and a late stream closed).
      work.then((late) => (late.kind === "stream" ? late.body?.cancel() : undefined)).catch(() => {});
      // Headers came but the body stalled: the upstream did answer, so this is not "no answer".
      const late = answered as { status: number; headers: Headers } | null;
      return late ? { kind: "cut", ...late } : { kind: "timeout" };
    } catch (error) {
      return { kind: "network", reached: !NEVER_CONNECTED.has(causeCode(error)) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The upstream request, from scratch: nothing of the browser's request but the validated input. */
  private build(call: Call, signal: AbortSignal): Request {
    const headers = new Headers({
      accept: call.stream ? "text/csv, application/json;q=0.9, */*;q=0.1" : "application/json",
      "x-key": this.deps.keys.current(),
    });
    let body: BodyInit | undefined;
    if (call.body.kind === "json") {
      headers.set("content-type", "application/json");
      body = call.body.text;
    } else if (call.body.kind === "form") {
      const form = new FormData();
      form.append("requested_file", call.body.file, call.body.file.name);
      body = form; // the multipart content-type (with its boundary) is set from the body
    }
    return new Request(`${UPSTREAM_ORIGIN}${call.target}`, { method: call.op.method, headers, body, signal });
  }
}

/** Failures before a connection existed: the request cannot have reached the service. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function causeCode(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  return String(e?.cause?.code ?? e?.code ?? "");
}

/** The body's length as the upstream declared it (passed on to the browser), when it is reliable. */
function declaredLength(headers: Headers): number | null {
  const encoded = (headers.get("content-encoding") ?? "identity").toLowerCase() !== "identity";
  const value = headers.get("content-length");
  return !encoded && value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * Passes a download through chunk by chunk (the browser's pace pulls it, nothing is buffered), and
 * gives up when the upstream sends nothing for `idleMs` while the browser is waiting. A body that
 * ends before its declared length is an interruption too: ending it quietly would leave the
 * browser waiting for the missing bytes on a connection that sends no more.
 */
function idleGuard(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
  declared: number | null = null,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Interruption(
                `the service sent nothing for ${idleMs < 1000 ? `${idleMs} ms` : `${Math.round(idleMs / 1000)} s`}`,
              ),
            ),
          idleMs,
        );
      });
      try {
        const { done, value } = await Promise.race([reader.read(), stalled]);
        if (done && declared !== null && received < declared)
          throw new Interruption(`the file ended at ${received} of its ${declared} bytes`);
        if (done) controller.close();
        else {
          received += value.byteLength;
          controller.enqueue(value);
        }
      } catch (error) {
        // The adapter may print this message into the cut-off body: it names nothing of the
        // upstream but why (an operator reads it in the log of a settlement that failed).
        reader.cancel().catch(() => {});
        const why = error instanceof Interruption ? error.message : "the connection was cut";
        controller.error(new Error(`the download was interrupted (${why})`));
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Why a download stopped, in words an operator can act on. */
class Interruption extends Error {}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
