/**
 * Hostile input over every route of the proxy (fast-check), against a real proxy on a socket over a
 * RECORDING upstream that wraps the real sandbox. Requests are written as raw bytes (see
 * tests/support/arbitraries/hostile.ts): adversarial JSON bodies, header tricks (CSRF, Host, Origin,
 * content-type lies, encodings, lying lengths, broken chunks), request-target tricks, odd methods and
 * multipart oddities, on every operation of the contract's table and on the proxy's own routes.
 *
 * For every request:
 * 1. the answer is below 500 (the proxy's own 502/504 only ever describe the upstream, and the
 *    sandbox is healthy here: any 5xx is a finding), and the proxy logs no 5xx and no error line;
 * 2. the proxy keeps answering (/healthz after every property) and no prototype got polluted;
 * 3. nothing reaches the upstream but an operation of the allowlist, with path, query and body that
 *    the contract's strict schemas accept, the proxy's key, and no browser header; only the
 *    operation the request named; nothing at all when the browser boundary or the target was bad;
 * 4. the key (a distinctive one, translated to a sandbox demo key behind the recording) never appears
 *    in any answer (status line, headers, body), in any log line, or in the idempotency journal;
 * 5. every 4xx is the contract's 422 record or a readable `{ detail }`, with the security headers.
 *
 * Seeds: a fresh one per run, printed; replay with HOSTILE_SEED=<seed>. HOSTILE_SCALE=<n> multiplies
 * the runs (default 1).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { validationRecordSchema } from "../../../src/contract/errors";
import { strictRequests } from "../../../src/contract/operations";
import { OPERATIONS, type OperationSpec } from "../../../src/contract/routes";
import type { Sandbox } from "../../../src/sandbox/app";
import { type BffProxy, createProxy } from "../../../src/server/app";
import { configFromEnv } from "../../../src/server/config";
import { serveProxy } from "../../../src/server/serve";
import { hashPassword } from "../../../src/server/team/passwords";
import type { Upstream } from "../../../src/server/upstream/upstream";
import { anyRecipeArb } from "../../support/arbitraries/hostile";
import { bodyRecipeArb } from "../../support/arbitraries/hostile-bodies";
import { headerRecipeArb } from "../../support/arbitraries/hostile-headers";
import { multipartRecipeArb } from "../../support/arbitraries/hostile-multipart";
import { pathRecipeArb } from "../../support/arbitraries/hostile-paths";
import { type Recipe, toBytes, utf8 } from "../../support/arbitraries/raw-request";
import {
  type Browser,
  browser,
  type ProxyServer,
  recording,
  type SeenRequest,
  startSandbox,
  testDatabaseFor,
} from "../../support/proxy-server";

/** Keys no input can produce by accident: if one shows up in an output, the proxy put it there. */
const KEY = "sbx_hostile_Q7vX2mK9pL4w";
const GATED_KEY = "sbx_hostile_gated_R3nB8tZ1";
const SCALE = Math.max(0.1, Number(process.env.HOSTILE_SCALE ?? 1));
const runs = (n: number) => Math.max(10, Math.round(n * SCALE));
const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** How long one property may run (it stops and fails with what it has, before the test's own timeout). */
const PROPERTY_MS = 100_000 * Math.max(1, SCALE);
const TEST_MS = PROPERTY_MS + 20_000;
/** Markers of files the static server must never hand out. */
const OUTSIDE_SECRET = "OUTSIDE-THE-SITE-5f3a9c";
const DOTFILE_SECRET = "DOTFILE-IN-THE-SITE-8d2e1b";

// ---------------------------------------------------------------------------------------------
// The upstream: recording(keys translated(sandbox))
// ---------------------------------------------------------------------------------------------

/**
 * The proxy holds a distinctive key; the sandbox only knows its demo keys. This layer maps one to
 * the other (and a rotated sandbox key to a new distinctive one), so the rotation path runs for real
 * and every key the proxy ever held is known to the checks.
 */
function keyTranslator(inner: Upstream, proxyKey: string, sandboxKey: string) {
  const toSandbox = new Map([[proxyKey, sandboxKey]]);
  const secrets = new Set([proxyKey, sandboxKey]);
  let rotations = 0;
  const upstream: Upstream = async (request) => {
    const given = request.headers.get("x-key") ?? "";
    const headers = new Headers(request.headers);
    headers.set("x-key", toSandbox.get(given) ?? given);
    const body = request.method === "GET" ? undefined : await request.arrayBuffer();
    const response = await inner(new Request(request.url, { method: request.method, headers, body }));
    const { pathname } = new URL(request.url);
    if (
      response.status === 200 &&
      (pathname === "/v1/new-api-key" || pathname === "/v2/account/api-keys/rotate")
    ) {
      const { api_key: fresh } = (await response.json()) as { api_key: string };
      const mine = `${proxyKey}_r${++rotations}`;
      toSandbox.set(mine, fresh);
      secrets.add(fresh).add(mine);
      return Response.json({ api_key: mine });
    }
    return response;
  };
  return { upstream, secrets, proxyKeys: () => [...toSandbox.keys()], rotations: () => rotations };
}

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client
// ---------------------------------------------------------------------------------------------

interface RawAnswer {
  status: number | null;
  headers: [string, string][];
  body: Buffer;
  /** Everything received, as latin1 text (for the key search). */
  text: string;
  /** The socket was reset or errored (after whatever arrived). */
  error?: string;
  timedOut: boolean;
}

function send(port: number, recipe: Recipe, timeoutMs = 20_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let timedOut = false;
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(toBytes(recipe, port), () => {
        if (recipe.halfClose) socket.end();
      });
    });
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(chunks), recipe.method === "HEAD"), error, timedOut });
    });
  });
}

function parse(all: Buffer, head: boolean): Omit<RawAnswer, "error" | "timedOut"> {
  const text = all.toString("latin1");
  let raw = all;
  // Interim answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.1 1\d\d /.test(raw.subarray(0, 13).toString("latin1")) && raw.indexOf("\r\n\r\n") !== -1)
    raw = raw.subarray(raw.indexOf("\r\n\r\n") + 4);
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return { status: null, headers: [], body: Buffer.alloc(0), text };
  const [statusLine, ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1];
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  let body = raw.subarray(end + 4);
  const get = (name: string) => headers.find(([n]) => n === name)?.[1];
  if (head) body = Buffer.alloc(0);
  else if (get("transfer-encoding")?.toLowerCase() === "chunked") body = dechunk(body);
  else if (get("content-length") !== undefined) body = body.subarray(0, Number(get("content-length")));
  return { status: status ? Number(status) : null, headers, body, text };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

const detailSchema = z.looseObject({ detail: z.string().min(1) });
const PROBES = new Set(["creditsV2", "creditsV1"]);
/**
 * Free reads the proxy makes by itself around a purchase: the caps' price (estimate), the
 * suppression check before an Enrich (view), the balance when everything asked for is owned, and
 * the settling of exports it started (status, list, the file read once to record its rows). They
 * may come with any request (settling runs when it is seen to be due), never a spend.
 */
const PROXY_READS = new Set([
  // The plan, read for a company discover's charge in the ledger (pay-as-you-go only).
  "creditsV2",
  "estimate",
  "view",
  "count",
  "balanceV2",
  "exports",
  "exportStatus",
  "exportDownload",
]);
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const UPSTREAM_HEADERS = new Set(["accept", "content-type", "x-key"]);
const OP_PATTERNS = OPERATIONS.map((op) => ({
  op,
  re: new RegExp(`^${op.path.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
}));

function strictOk(name: keyof typeof strictRequests, value: unknown): string | null {
  const result = (strictRequests[name] as z.ZodType).safeParse(value);
  return result.success
    ? null
    : `${name}: ${result.error.issues
        .map((i) => i.message)
        .join("; ")
        .slice(0, 200)}`;
}

function protoKeyIn(value: unknown): string | null {
  const stack = [value];
  while (stack.length > 0) {
    const here = stack.pop();
    if (here === null || typeof here !== "object") continue;
    for (const key of Object.keys(here)) {
      if (PROTOTYPE_KEYS.has(key)) return key;
      stack.push((here as Record<string, unknown>)[key]);
    }
  }
  return null;
}

/** The operation an upstream request is, and what is wrong with it (nothing, if it is allowlisted and strictly valid). */
async function vet(
  seen: SeenRequest,
  proxyKeys: string[],
): Promise<{ op?: OperationSpec; problems: string[] }> {
  const found = OP_PATTERNS.find(({ op, re }) => op.method === seen.method && re.test(seen.path));
  if (!found) return { problems: [`${seen.method} ${seen.path} is no operation of the allowlist`] };
  const { op, re } = found;
  const problems: string[] = [];
  const params = Object.fromEntries(
    Object.entries(re.exec(seen.path)?.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
  );
  if (op.params) {
    const bad = strictOk(op.params, params);
    if (bad) problems.push(`path ${bad}`);
  }
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(seen.search)) {
    if (Object.hasOwn(query, name)) problems.push(`query parameter ${name} twice`);
    query[name] = value;
  }
  if (op.query) {
    const bad = strictOk(op.query, query);
    if (bad) problems.push(`query ${bad}`);
  } else if (Object.keys(query).length > 0)
    problems.push(`a query on ${op.id}: ${seen.search.slice(0, 100)}`);

  if (op.bodyKind === "json" && op.body) {
    let body: unknown;
    try {
      body = JSON.parse(seen.body);
    } catch {
      problems.push(`body is not JSON: ${seen.body.slice(0, 100)}`);
    }
    const bad = strictOk(op.body, body);
    if (bad) problems.push(`body ${bad}`);
    const proto = protoKeyIn(body);
    if (proto) problems.push(`body carries ${proto}`);
  } else if (op.bodyKind === "multipart") {
    try {
      const form = await new Response(seen.body, {
        headers: { "content-type": seen.headers["content-type"] ?? "" },
      }).formData();
      const names = [...form.keys()];
      if (
        names.length !== 1 ||
        names[0] !== "requested_file" ||
        !(form.get("requested_file") instanceof File)
      )
        problems.push(`multipart parts ${JSON.stringify(names)}`);
    } catch {
      problems.push("multipart body unreadable");
    }
  } else if (seen.body !== "") problems.push(`a body on ${op.id}`);

  for (const name of Object.keys(seen.headers))
    if (!UPSTREAM_HEADERS.has(name)) problems.push(`header ${name} passed upstream`);
  if (!proxyKeys.includes(seen.headers["x-key"] ?? "")) problems.push("x-key is not the proxy's key");
  return { op, problems };
}

/** The target's path as a router reads it: no query or fragment, each segment percent-decoded. */
function decodedPath(target: string): string {
  const path = target.split(/[?#]/)[0] ?? "";
  return path
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join("/");
}

/** The operation a request names by its method and target (the only one it may reach), if any. */
function namedOperation(recipe: Recipe): string | undefined {
  const path = decodedPath(recipe.target);
  if (!path.startsWith("/api/")) return undefined;
  return OP_PATTERNS.find(({ op, re }) => op.method === recipe.method && re.test(path.slice(4)))?.op.id;
}

function secretsIn(text: string, secrets: Iterable<string>): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    if (text.includes(secret) || text.includes(Buffer.from(secret).toString("base64"))) found.push(secret);
  }
  return found;
}

function checkAnswer(recipe: Recipe, answer: RawAnswer, secrets: Iterable<string>): string[] {
  const problems: string[] = [];
  if (answer.status === null)
    return [
      `no answer (${answer.timedOut ? "timed out" : (answer.error ?? "closed")}): ${answer.text.slice(0, 120)}`,
    ];
  if (answer.status >= 500)
    problems.push(`status ${answer.status}: ${answer.body.toString("utf8").slice(0, 200)}`);
  const leaked = secretsIn(answer.text, secrets);
  if (leaked.length > 0) problems.push(`the key ${leaked.join(", ")} is in the answer`);
  for (const marker of [OUTSIDE_SECRET, DOTFILE_SECRET])
    if (answer.text.includes(marker)) problems.push(`a file the site must not serve: ${marker}`);
  const header = (name: string) => answer.headers.find(([n]) => n === name)?.[1];
  if (!header("content-security-policy")?.includes("default-src 'self'")) problems.push("no CSP");
  if (header("x-content-type-options") !== "nosniff") problems.push("no nosniff");
  if (header("x-frame-options") !== "DENY") problems.push("no x-frame-options");
  if (answer.headers.some(([n]) => n.startsWith("access-control-"))) problems.push("CORS headers");
  if (answer.status >= 400 && recipe.method !== "HEAD") {
    if (!header("content-type")?.startsWith("application/json"))
      problems.push(`${answer.status} is not JSON`);
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString("utf8"));
    } catch {
      problems.push(`${answer.status} body unreadable: ${answer.body.toString("utf8").slice(0, 100)}`);
    }
    const shape = answer.status === 422 ? validationRecordSchema : detailSchema;
    if (body !== undefined && !shape.safeParse(body).success)
      problems.push(
        `${answer.status} body is neither the 422 record nor { detail }: ${JSON.stringify(body).slice(0, 200)}`,
      );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// One proxy under test
// ---------------------------------------------------------------------------------------------

/**
 * `startProxy`, with a count of requests the app is still handling. A request whose connection Node
 * already refused (say, its body's chunks were broken) may still be running its handler; waiting for
 * the count to drop to zero keeps its upstream calls from being charged to the next request.
 */
async function startCountingProxy(upstream: Upstream, env: Record<string, string>) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "hostile-proxy-"));
  const store = await testDatabaseFor(dataDir, false);
  const config = configFromEnv({
    PORT: "0",
    LOG_LEVEL: "info",
    ...(store.url ? { DATABASE_URL: store.url } : {}),
    ...env,
    DATA_DIR: dataDir,
  });
  const logs: string[] = [];
  const proxy = await createProxy(config, upstream, {
    logDestination: { write: (line: string) => void logs.push(line) },
    sleep: async () => {},
    ...(store.database ? { database: store.database } : {}),
  });
  let next = 0;
  const inFlight = new Map<number, string>();
  const fetch = proxy.app.fetch;
  const counted = {
    ...proxy,
    app: {
      fetch: async (...args: Parameters<typeof fetch>) => {
        const id = next++;
        const url = new URL(args[0].url);
        inFlight.set(id, `${args[0].method} ${url.pathname.slice(0, 80)}`);
        try {
          return await fetch(...args);
        } finally {
          inFlight.delete(id);
        }
      },
    },
  } as unknown as BffProxy;
  const served = await serveProxy(counted, { host: "127.0.0.1", port: 0 });
  const server: ProxyServer = {
    url: served.url,
    port: served.port,
    proxy,
    config,
    dataDir,
    server: served.server,
    logs,
    close: async () => {
      await served.close();
      await store.database?.close();
    },
  };
  const pending = (since: number) => [...inFlight].filter(([id]) => id >= since).map(([, what]) => what);
  return Object.assign(server, {
    /** Where the count of requests stands now. */
    mark: () => next,
    /** Waits until every request the app took on since `since` is done; returns those still running after `limitMs`. */
    async idle(since: number, limitMs = 12_000): Promise<string[]> {
      for (let waited = 0; pending(since).length > 0 && waited < limitMs; waited += 2)
        await new Promise((r) => setTimeout(r, 2));
      return pending(since);
    },
  });
}

interface Target {
  server: Awaited<ReturnType<typeof startCountingProxy>>;
  upstream: ReturnType<typeof recording>;
  keys: ReturnType<typeof keyTranslator>;
  /** Sign-in is on and this client has no session: no /api call may pass. */
  gated: boolean;
  logsChecked: number;
  statuses: Map<string, number>;
  slowest: { ms: number; label: string };
}

async function exchange(t: Target, recipe: Recipe): Promise<RawAnswer> {
  const before = t.upstream.seen.length;
  const mark = t.server.mark();
  const started = performance.now();
  const answer = await send(t.server.port, recipe);
  const stuck = await t.server.idle(mark);
  const problems = checkAnswer(recipe, answer, t.keys.secrets);
  if (stuck.length > 0)
    problems.push(`the proxy is still handling ${stuck.join(", ")} 12 s after the answer`);
  const ms = performance.now() - started;
  if (ms > 3000) console.log(`[hostile] slow (${Math.round(ms)} ms): ${recipe.label}`);
  if (ms > t.slowest.ms) t.slowest = { ms, label: recipe.label };
  const bucket = `${answer.status ?? "none"}`;
  t.statuses.set(bucket, (t.statuses.get(bucket) ?? 0) + 1);

  const named = namedOperation(recipe);
  const own = decodedPath(recipe.target);
  for (const seen of t.upstream.seen.slice(before)) {
    const { op, problems: wrong } = await vet(seen, t.keys.proxyKeys());
    problems.push(...wrong.map((p) => `upstream: ${p}`));
    if (!op) continue;
    const probe = PROBES.has(op.id) && (own === "/healthz" || own === "/api/session");
    if (probe) continue;
    if (op.id !== named && PROXY_READS.has(op.id) && !op.spends) continue;
    if (recipe.refused || t.gated)
      problems.push(`upstream: ${op.id} was called though the request had to be refused`);
    else if (op.id !== named)
      problems.push(`upstream: ${op.id} was called for a request naming ${named ?? "no operation"}`);
    else if (op.bodyKind === "json" && op.body && recipe.body && !recipe.rawFraming) {
      // What left is what was validated: the body as sent (duplicate keys resolved as JSON.parse does).
      const expected = JSON.parse(new TextDecoder().decode(recipe.body)) as Record<string, unknown>;
      const left = JSON.parse(seen.body) as Record<string, unknown>;
      // Deliberate changes to an export (and its estimate): its name carries the spend journal's
      // tag; the contact id leads its columns (its rows are recorded as the team's); the filter
      // leaves out contacts the team owns (`RBID_PAO notIn` lists ANDed after the original filter).
      if (op.id === "exportStart") {
        if (!/\[ab-[0-9a-f]{16}\]$/.test(String(left.name)))
          problems.push("upstream: the export's name has no tag");
        if ("name" in expected) left.name = expected.name;
        else delete left.name;
      }
      // An Enrich leaves out people on the team's do-not-contact lists (and those it owns).
      if (op.id === "enrich") {
        for (const field of ["personIds", "emails"] as const)
          if (Array.isArray(left[field]) && Array.isArray(expected[field])) {
            const asked = new Set(expected[field] as string[]);
            if ((left[field] as string[]).every((v) => asked.has(v))) left[field] = expected[field];
          }
      }
      if (op.id === "exportStart" || op.id === "estimate") {
        const columns = expected.columns;
        if (Array.isArray(columns) && columns.length > 0 && !columns.includes("RBID_PAO"))
          left.columns = (left.columns as string[]).filter((c) => c !== "RBID_PAO");
        left.filter = withoutOwnedExclusion(left.filter, expected.filter);
      }
      if (JSON.stringify(left) !== JSON.stringify(expected))
        problems.push(`upstream: the body changed on the way: ${seen.body.slice(0, 200)}`);
    }
  }
  // Without a session, /api-looking targets get a refusal or, where they are no API address at all
  // (`/api;x=1/...`), the SPA's page: never an API answer.
  const type = answer.headers.find(([n]) => n === "content-type")?.[1] ?? "";
  if (t.gated && answer.status === 200 && own === "/auth/sign-in")
    problems.push("signed in without the password");
  if (t.gated && answer.status !== null && answer.status < 300 && recipe.target.startsWith("/api"))
    if (!type.startsWith("text/html")) problems.push(`${answer.status} ${type} on /api without a session`);

  problems.push(...checkLogs(t));
  if (problems.length > 0)
    throw new Error(`${recipe.label}\n  -> ${answer.status ?? "no answer"}\n  ${problems.join("\n  ")}`);
  return answer;
}

/** The filter as asked, when `sent` is it ANDed with `RBID_PAO notIn` lists (else `sent` unchanged). */
function withoutOwnedExclusion(sent: unknown, asked: unknown): unknown {
  const group = sent as { type?: string; op?: string; children?: Record<string, unknown>[] } | null;
  if (group?.type !== "group" || group.op !== "AND" || !Array.isArray(group.children)) return sent;
  const exclusions = group.children.filter((c) => c.column === "RBID_PAO" && c.operator === "notIn");
  if (exclusions.length === 0) return sent;
  const rest = group.children.filter((c) => !exclusions.includes(c));
  if (asked === undefined || asked === null) return rest.length === 0 ? asked : sent;
  return rest.length === 1 ? rest[0] : sent;
}

function checkLogs(t: Target): string[] {
  const problems: string[] = [];
  const lines = t.server.logs.slice(t.logsChecked);
  t.logsChecked = t.server.logs.length;
  for (const line of lines) {
    const leaked = secretsIn(line, t.keys.secrets);
    if (leaked.length > 0) problems.push(`log: the key ${leaked.join(", ")} in ${line.slice(0, 200)}`);
    let entry: { level?: number; status?: number; msg?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      problems.push(`log: not JSON: ${line.slice(0, 200)}`);
      continue;
    }
    if ((entry.level ?? 0) >= 50) problems.push(`log: ${entry.msg}: ${line.slice(0, 300)}`);
    if ((entry.status ?? 0) >= 500) problems.push(`log: status ${entry.status}: ${line.slice(0, 300)}`);
  }
  return problems;
}

const prototypeBefore = {
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
  fn: Object.getOwnPropertyNames(Function.prototype).sort(),
};

/** Still answering, the upstream still reachable, and no prototype touched. */
async function stillStanding(t: Target) {
  const health = await send(t.server.port, {
    label: "health",
    method: "GET",
    target: "/healthz",
    headers: [],
    refused: false,
  });
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body.toString("utf8"))).toMatchObject({ ok: true, upstream: "up" });
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore.object);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(prototypeBefore.array);
  expect(Object.getOwnPropertyNames(Function.prototype).sort()).toEqual(prototypeBefore.fn);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(checkLogs(t)).toEqual([]);
}

async function property(t: Target, name: string, arb: fc.Arbitrary<Recipe>, numRuns: number) {
  t.statuses.clear();
  t.slowest = { ms: 0, label: "" };
  const started = performance.now();
  const calls = t.upstream.seen.length;
  console.log(`[hostile] ${name}: seed ${SEED}, ${numRuns} runs (replay with HOSTILE_SEED=${SEED})`);
  await fc.assert(
    fc.asyncProperty(arb, async (recipe) => {
      await exchange(t, recipe);
    }),
    {
      numRuns,
      seed: SEED,
      // A request that hangs fails its run (and is shown) instead of the whole test timing out.
      timeout: 30_000,
      interruptAfterTimeLimit: PROPERTY_MS,
      markInterruptAsFailure: true,
    },
  );
  const summary = [...t.statuses].sort().map(([s, n]) => `${s}x${n}`);
  const passed = t.upstream.seen.length - calls;
  const reached = new Set<string>();
  for (const seen of t.upstream.seen.slice(calls))
    for (const { op, re } of OP_PATTERNS)
      if (op.method === seen.method && re.test(seen.path)) reached.add(op.id);
  console.log(
    `[hostile] ${name}: ${Math.round(performance.now() - started)} ms; statuses ${summary.join(" ")}; ` +
      `${passed} upstream calls (${reached.size} of ${OPERATIONS.length} operations); slowest ${Math.round(t.slowest.ms)} ms: ${t.slowest.label.slice(0, 100)}`,
  );
  await stillStanding(t);
}

// ---------------------------------------------------------------------------------------------

let sandbox: Sandbox;
const folders: string[] = [];
let open: Target;
let gated: Target;

beforeAll(async () => {
  const started = await startSandbox();
  sandbox = started.sandbox;
  const root = await mkdtemp(path.join(os.tmpdir(), "hostile-"));
  folders.push(started.dataDir, root);
  const site = path.join(root, "site");
  await mkdir(path.join(site, "assets"), { recursive: true });
  await writeFile(
    path.join(site, "index.html"),
    "<!doctype html><title>Audience Builder</title><div id=root></div>",
  );
  await writeFile(path.join(site, "assets", "app-1a2b3c.js"), "console.log('app');");
  await writeFile(path.join(site, ".env"), `SECRET=${DOTFILE_SECRET}`);
  await writeFile(path.join(root, "outside-secret.txt"), OUTSIDE_SECRET);
  const usersFile = path.join(root, "users");
  // alice is the name the generators try; carol and dave are left alone for the per-user example.
  const users = await Promise.all(
    ["alice", "carol", "dave"].map(async (name) => `${name}:${await hashPassword(`${name}-password-1`)}`),
  );
  await writeFile(usersFile, `${users.join("\n")}\n`);

  const env = {
    STATIC_DIR: site,
    UPSTREAM_RATE_PER_MIN: "1000000",
    LOG_LEVEL: "debug",
    SIGN_IN_DELAY_MS: "0",
  };
  const make = async (key: string, sandboxKey: string, extra: Record<string, string>, isGated: boolean) => {
    const keys = keyTranslator(sandbox.fetch, key, sandboxKey);
    const upstream = recording(keys.upstream);
    const server = await startCountingProxy(upstream, { ...env, SANDBOX_KEY: key, ...extra });
    folders.push(server.dataDir);
    return {
      server,
      upstream,
      keys,
      gated: isGated,
      logsChecked: 0,
      statuses: new Map(),
      slowest: { ms: 0, label: "" },
    } satisfies Target;
  };
  open = await make(KEY, "sbx_ayce_demo", {}, false);
  gated = await make(GATED_KEY, "sbx_payg_demo", { USERS_FILE: usersFile }, true);
});

afterAll(async () => {
  await open?.server.close();
  await gated?.server.close();
  await sandbox?.close();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe("hostile input, sign-in off (one local user)", () => {
  it("survives adversarial JSON bodies on every operation and own route", { timeout: TEST_MS }, async () => {
    await property(open, "bodies", bodyRecipeArb(), runs(1000));
  });

  it("survives header tricks: CSRF, Host, Origin, content-type lies, encodings, lengths, chunks", {
    timeout: TEST_MS,
  }, async () => {
    await property(open, "headers", headerRecipeArb(), runs(700));
  });

  it("survives request-target tricks and odd methods", { timeout: TEST_MS }, async () => {
    await property(open, "targets", pathRecipeArb(), runs(800));
  });

  it("survives multipart oddities on the upload operations", { timeout: TEST_MS }, async () => {
    await property(open, "multipart", multipartRecipeArb(), runs(150));
  });

  it("keeps every key it held out of the spend journal", async () => {
    const entries = await open.server.proxy.database.db.selectFrom("spend_journal").selectAll().execute();
    expect(entries.length).toBeGreaterThan(0);
    console.log(
      `[hostile] journal: ${entries.length} entries; the key was rotated ${open.keys.rotations()} times`,
    );
    for (const entry of entries)
      expect(secretsIn(JSON.stringify(entry), open.keys.secrets), entry.id).toEqual([]);
  });
});

describe("hostile input, sign-in on (no session)", () => {
  // First: the properties' failed sign-ins get this address rate-limited.
  it("keeps Idempotency-Keys per user: one user's key never replays another user's answer", async () => {
    const carol = browser(gated.server.url);
    const dave = browser(gated.server.url);
    expect((await carol.post("/auth/sign-in", { name: "carol", password: "carol-password-1" })).status).toBe(
      200,
    );
    expect((await dave.post("/auth/sign-in", { name: "dave", password: "dave-password-1" })).status).toBe(
      200,
    );
    const verify = (who: Browser, email: string, key: string) =>
      who.post<{ email: string }>("/api/v2/email/verify", { email }, { idempotencyKey: key });

    const calls = gated.upstream.seen.length;
    const first = await verify(carol, "carol@example.com", "shared-key-0001");
    const same = await verify(dave, "carol@example.com", "shared-key-0001");
    expect([first.status, same.status]).toEqual([200, 200]);
    expect(same.headers.get("idempotent-replayed")).toBeNull(); // dave's own first use, sent again
    expect(gated.upstream.seen.length - calls).toBe(2);
    // The same key with another body is a conflict for the same user only.
    const other = await verify(dave, "dave@example.com", "shared-key-0002");
    const mine = await verify(carol, "carol@example.com", "shared-key-0002");
    expect([other.status, mine.status]).toEqual([200, 200]);
    expect(
      (await verify(carol, "carol@example.com", "shared-key-0002")).headers.get("idempotent-replayed"),
    ).toBe("true");
    expect((await verify(carol, "other@example.com", "shared-key-0002")).status).toBe(409);
    expect(checkLogs(gated)).toEqual([]);
  });

  it("lets nothing through to the upstream, whatever is sent", { timeout: TEST_MS }, async () => {
    await property(gated, "no session", anyRecipeArb(), runs(300));
  });

  it("refuses or rate-limits hostile sign-in and sign-out bodies, never signs anyone in", {
    timeout: TEST_MS,
  }, async () => {
    await property(gated, "sign-in", bodyRecipeArb({ only: ["sign-in", "sign-out"] }), runs(60));
  });
});

/** One request by hand, checked like every generated one. */
const example = (recipe: Omit<Recipe, "refused"> & { refused?: boolean }) => ({ refused: false, ...recipe });

describe("examples the properties found (kept as regression tests)", () => {
  it("answers what Node's parser refuses with { detail } and the security headers, not a bare status line", async () => {
    const cases: [Recipe, number][] = [
      [
        example({
          label: "a broken chunk",
          method: "POST",
          target: "/api/v2/contact/count",
          headers: [
            ["x-csrf", "1"],
            ["Content-Type", "application/json"],
            ["Transfer-Encoding", "chunked"],
          ],
          body: utf8('zz\r\n{"filter":null}\r\n0\r\n\r\n'),
          rawFraming: true,
        }),
        400,
      ],
      [
        example({
          label: "header folding",
          method: "GET",
          target: "/healthz",
          headers: [["x-a", "a\r\n b"]],
        }),
        400,
      ],
      [
        example({
          label: "an unknown method",
          method: "FOO",
          target: "/api/v2/credits",
          headers: [["x-csrf", "1"]],
        }),
        400,
      ],
      [
        example({
          label: "a 20 KB address",
          method: "GET",
          target: `/api/v2/credits?x=${"a".repeat(20_000)}`,
          headers: [["x-csrf", "1"]],
        }),
        431,
      ],
      [example({ label: "CONNECT", method: "CONNECT", target: "{self}", headers: [] }), 405],
      [
        example({
          label: "an unknown Expect",
          method: "GET",
          target: "/healthz",
          headers: [["Expect", "nonsense"]],
        }),
        417,
      ],
    ];
    for (const [recipe, status] of cases) {
      const answer = await exchange(open, recipe);
      expect(answer.status, recipe.label).toBe(status);
      expect(JSON.parse(answer.body.toString("utf8")), recipe.label).toEqual({ detail: expect.any(String) });
    }
    // No Host at all: refused by the adapter's error handler (it cannot build an address), with { detail }.
    const noHost = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = net.connect(open.server.port, "127.0.0.1", () =>
        socket.write("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
      );
      socket.on("data", (c) => chunks.push(c));
      socket.on("close", () => resolve(Buffer.concat(chunks)));
    });
    const answer = parse(noHost, false);
    expect(answer.status).toBe(400);
    expect(noHost.toString("latin1")).toContain("content-security-policy:");
    expect(JSON.parse(answer.body.toString("utf8"))).toEqual({ detail: expect.any(String) });
  });

  it("treats a body that breaks off as the client's 400, never as the proxy's 500 with an error log", async () => {
    for (const recipe of [
      example({
        label: "Content-Length longer than the body, then the client closes",
        method: "POST",
        target: "/api/v2/contact/count",
        headers: [
          ["x-csrf", "1"],
          ["Content-Type", "application/json"],
          ["Content-Length", "100"],
        ],
        body: utf8('{"filter":'),
        rawFraming: true,
        halfClose: true,
      }),
      example({
        label: "a chunk cut short, then the client closes",
        method: "POST",
        target: "/api/v2/contact/count",
        headers: [
          ["x-csrf", "1"],
          ["Content-Type", "application/json"],
          ["Transfer-Encoding", "chunked"],
        ],
        body: utf8('ff\r\n{"filter":null}'),
        rawFraming: true,
        halfClose: true,
      }),
    ]) {
      const logged = open.server.logs.length;
      await exchange(open, recipe); // no 5xx in the answer or in the logs, no error line
      const lines = open.server.logs.slice(logged).map((line) => JSON.parse(line) as { status?: number });
      expect(
        lines.some((line) => line.status === 400),
        recipe.label,
      ).toBe(true);
    }
  });

  it("reads __proto__ and constructor in a query as unknown parameters, not as 'given twice'", async () => {
    for (const target of [
      "/api/v2/credits?__proto__=1",
      "/api/v2/credits?constructor=x",
      "/api/v1/batch-process-email-status?process_id=7&__proto__=1",
    ]) {
      const answer = await exchange(
        open,
        example({ label: target, method: "GET", target, headers: [["x-csrf", "1"]] }),
      );
      expect(answer.status, target).toBe(422);
      const record = JSON.parse(answer.body.toString("utf8")) as { detail: { type: string; msg: string }[] };
      expect(record.detail[0], target).toMatchObject({
        type: "extra_forbidden",
        msg: "Extra inputs are not permitted",
      });
    }
  });
});
