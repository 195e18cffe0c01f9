import { OPERATIONS } from "../../src/contract/routes";
import type { Upstream } from "../../src/server/upstream/upstream";

/**
 * A fault-injecting upstream for the fault suite: it sits between the proxy and the sandbox (wraps
 * the sandbox's `fetch`) and misbehaves on demand, one fault at a time, like a bad network or a
 * struggling service would:
 *
 * - `latency(ms)`: every matching request waits `ms` before it goes on.
 * - `reset()`: the connection is reset before the request arrives (a fetch TypeError, ECONNRESET);
 *   with `{ after: true }`, after the sandbox has acted (its answer is lost on the way back).
 * - `truncate()`: the sandbox answers, but the body stops part-way: the stream errors (`"error"`,
 *   a socket dying) or ends cleanly too early (`"end"`, a broken gateway): mid-JSON or mid-CSV.
 * - `burst5xx(n)`: the next n matching requests get 502, 503, 500 (in turn, or `statuses`), each
 *   with a gateway's HTML page.
 * - `hang()`: the request is never answered; it ends only when its signal aborts (the proxy's timeout).
 * - `storm429(n | { ms })`: 429 RATE_LIMITED with X-RateLimit-* headers and no Retry-After (as the
 *   live service sends them), for n requests or for a while; `bare` leaves out the body's code.
 * - `clear()`: back to normal.
 *
 * Every fault can target some requests only (`only`: a path, a RegExp, `SPENDS`, or a predicate).
 * The wrapper records what reached the sandbox (so a test can prove a spend went through once)
 * and what the fault caught.
 */

export interface RequestInfo {
  method: string;
  /** e.g. `/v2/contact/count` (no query). */
  path: string;
}

export type Matcher = string | RegExp | ((request: RequestInfo) => boolean);

export interface Targeted {
  /** Which requests the fault applies to (all when left out). */
  only?: Matcher | readonly Matcher[];
}

export type TruncateMode = "error" | "end";

export type Fault =
  | { kind: "latency"; ms: number }
  | { kind: "reset"; after: boolean }
  | { kind: "truncate"; mode: TruncateMode; fraction: number }
  | { kind: "burst5xx"; left: number; statuses: readonly number[]; sent: number }
  | { kind: "hang" }
  | { kind: "storm429"; left: number; until: number; bare: boolean; resetSeconds: number };

export type FaultKind = Fault["kind"];

/** One request the sandbox saw (it may have been cut on the way back: see `cut`). */
export interface Reached extends RequestInfo {
  at: number;
  status: number;
  /** The answer never reached the proxy whole (reset after, truncated). */
  cut: boolean;
}

/** One request a fault acted on. */
export interface Caught extends RequestInfo {
  at: number;
  fault: FaultKind;
}

export interface FaultUpstream extends Upstream {
  latency(ms: number, options?: Targeted): FaultUpstream;
  reset(options?: Targeted & { after?: boolean }): FaultUpstream;
  truncate(options?: Targeted & { mode?: TruncateMode; fraction?: number }): FaultUpstream;
  burst5xx(n: number, options?: Targeted & { statuses?: readonly number[] }): FaultUpstream;
  hang(options?: Targeted): FaultUpstream;
  storm429(
    size: number | { ms: number },
    options?: Targeted & { bare?: boolean; resetSeconds?: number },
  ): FaultUpstream;
  clear(): FaultUpstream;
  /** The fault in force (null when none, or when a counted one is used up). */
  readonly active: Fault | null;
  readonly reached: readonly Reached[];
  readonly caught: readonly Caught[];
  /** How many requests reached the sandbox, for one path (or a matcher), or in all. */
  reachedCount(only?: Matcher): number;
  caughtCount(only?: Matcher): number;
  /** Forgets what was recorded (not the fault). */
  resetCounts(): void;
  /** Ends every hung request with a network error (test teardown). */
  releaseHung(): void;
}

/** Every operation that spends credits (or rotates the key), as a matcher. */
export const SPENDS: (request: RequestInfo) => boolean = (() => {
  const patterns = OPERATIONS.filter((op) => op.spends).map(
    (op) => [op.method, new RegExp(`^${op.path.replace(/:\w+/g, "[^/]+")}$`)] as const,
  );
  return (request: RequestInfo) =>
    patterns.some(([method, re]) => method === request.method && re.test(request.path));
})();

function matches(matcher: Matcher | readonly Matcher[] | undefined, request: RequestInfo): boolean {
  if (matcher === undefined) return true;
  if (Array.isArray(matcher)) return matcher.some((m) => matches(m, request));
  if (typeof matcher === "string") return request.path === matcher;
  if (matcher instanceof RegExp) return matcher.test(request.path);
  return (matcher as (r: RequestInfo) => boolean)(request);
}

/** What undici throws when a connection is reset: a TypeError with the socket error as its cause. */
function connectionReset(): TypeError {
  const cause = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104 });
  return new TypeError("fetch failed", { cause });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

const GATEWAY_TITLES: Record<number, string> = {
  500: "500 Internal Server Error",
  502: "502 Bad Gateway",
  503: "503 Service Temporarily Unavailable",
  504: "504 Gateway Time-out",
};

function gatewayPage(status: number): Response {
  const title = GATEWAY_TITLES[status] ?? `${status} Error`;
  return new Response(
    `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.25.3 at 10.0.3.7</center>\r\n</body>\r\n</html>\r\n`,
    { status, headers: { "content-type": "text/html", server: "nginx/1.25.3" } },
  );
}

function rateLimited(bare: boolean, resetSeconds: number): Response {
  const detail = "Rate limit exceeded: too many requests for this API key.";
  return new Response(JSON.stringify(bare ? { detail } : { detail, code: "RATE_LIMITED" }), {
    status: 429,
    headers: {
      "content-type": "application/json",
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + resetSeconds),
    },
  });
}

/** The same answer with its body cut after `fraction` of its bytes (at least one byte kept). */
async function truncated(response: Response, mode: TruncateMode, fraction: number): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const keep = Math.max(1, Math.min(bytes.length - 1, Math.floor(bytes.length * fraction)));
  const head = bytes.slice(0, keep);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
      // The error comes a moment later, as a socket dying after the first packets would.
      if (mode === "end") controller.close();
      else setTimeout(() => controller.error(connectionReset()), 5);
    },
  });
  // What the upstream said its length was stays (a real cut body disagrees with its header).
  return new Response(body, { status: response.status, headers: response.headers });
}

export function faultUpstream(inner: Upstream): FaultUpstream {
  let fault: Fault | null = null;
  let only: Targeted["only"];
  const reached: Reached[] = [];
  const caught: Caught[] = [];
  const hung = new Set<(error: unknown) => void>();

  function current(): Fault | null {
    if (!fault) return null;
    if (fault.kind === "burst5xx" && fault.left <= 0) return null;
    if (fault.kind === "storm429" && fault.left <= 0 && Date.now() >= fault.until) return null;
    return fault;
  }

  async function pass(request: Request, info: RequestInfo, after?: (r: Response) => Promise<Response>) {
    const response = await inner(request);
    const entry: Reached = { ...info, at: Date.now(), status: response.status, cut: after !== undefined };
    reached.push(entry);
    return after ? after(response) : response;
  }

  const upstream = (async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const info: RequestInfo = { method: request.method, path: url.pathname };
    const now = current();
    if (!now || !matches(only, info)) return pass(request, info);
    caught.push({ ...info, at: Date.now(), fault: now.kind });
    switch (now.kind) {
      case "latency":
        await sleepFor(now.ms, request.signal);
        return pass(request, info);
      case "reset":
        if (!now.after) throw connectionReset();
        return pass(request, info, async (response) => {
          await response.body?.cancel();
          throw connectionReset();
        });
      case "truncate":
        return pass(request, info, (response) => truncated(response, now.mode, now.fraction));
      case "burst5xx":
        now.left--;
        return gatewayPage(now.statuses[now.sent++ % now.statuses.length]!);
      case "storm429":
        now.left--;
        return rateLimited(now.bare, now.resetSeconds);
      case "hang":
        return new Promise<Response>((_, reject) => {
          const end = (error: unknown) => {
            hung.delete(end);
            reject(error);
          };
          hung.add(end);
          if (request.signal.aborted) end(abortError(request.signal));
          request.signal.addEventListener("abort", () => end(abortError(request.signal)), { once: true });
        });
    }
  }) as FaultUpstream;

  const set = (next: Fault, options: Targeted = {}) => {
    fault = next;
    only = options.only;
    return upstream;
  };

  Object.defineProperties(upstream, {
    active: { get: current },
    reached: { get: () => reached },
    caught: { get: () => caught },
  });
  Object.assign(upstream, {
    latency: (ms: number, options?: Targeted) => set({ kind: "latency", ms }, options),
    reset: (options: Targeted & { after?: boolean } = {}) =>
      set({ kind: "reset", after: options.after ?? false }, options),
    truncate: (options: Targeted & { mode?: TruncateMode; fraction?: number } = {}) =>
      set({ kind: "truncate", mode: options.mode ?? "error", fraction: options.fraction ?? 0.5 }, options),
    burst5xx: (n: number, options: Targeted & { statuses?: readonly number[] } = {}) =>
      set({ kind: "burst5xx", left: n, statuses: options.statuses ?? [502, 503, 500], sent: 0 }, options),
    hang: (options?: Targeted) => set({ kind: "hang" }, options),
    storm429: (
      size: number | { ms: number },
      options: Targeted & { bare?: boolean; resetSeconds?: number } = {},
    ) =>
      set(
        {
          kind: "storm429",
          left: typeof size === "number" ? size : 0,
          until: typeof size === "number" ? 0 : Date.now() + size.ms,
          bare: options.bare ?? false,
          resetSeconds:
            options.resetSeconds ?? (typeof size === "number" ? 1 : Math.max(1, Math.ceil(size.ms / 1000))),
        },
        options,
      ),
    clear: () => {
      fault = null;
      only = undefined;
      return upstream;
    },
    reachedCount: (matcher?: Matcher) => reached.filter((r) => matches(matcher, r)).length,
    caughtCount: (matcher?: Matcher) => caught.filter((r) => matches(matcher, r)).length,
    resetCounts: () => {
      reached.length = 0;
      caught.length = 0;
    },
    releaseHung: () => {
      for (const end of [...hung]) end(connectionReset());
    },
  } satisfies Omit<FaultUpstream, "active" | "reached" | "caught" | keyof Upstream>);
  return upstream;
}

/** The key's balance, asked of the sandbox itself (not through the proxy, nor through any fault). */
export async function sandboxBalance(sandbox: { fetch: Upstream }, key = "sbx_payg_demo"): Promise<number> {
  const response = await sandbox.fetch(
    new Request("http://sandbox.invalid/v2/credits", { headers: { "x-key": key } }),
  );
  if (response.status !== 200) throw new Error(`the sandbox answered ${response.status} for the balance`);
  return ((await response.json()) as { credits: number }).credits;
}
