import { mkdtemp } from "node:fs/promises";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, inject } from "vitest";
import type { Sandbox } from "../../src/sandbox/app";
import type { SandboxOptions } from "../../src/sandbox/config";
import { type BffProxy, createProxy, type ProxyDeps } from "../../src/server/app";
import { configFromEnv, type ProxyConfig } from "../../src/server/config";
import { type Database, openDatabase } from "../../src/server/db/database";
import { serveProxy } from "../../src/server/serve";
import type { Upstream } from "../../src/server/upstream/upstream";
import { seedDatabaseFolder } from "./database-image";
import { borrowDatabase, giveBackDatabase } from "./database-pool";
import { createDatabase } from "./postgres";

/** One request as an upstream saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: string;
}

/** Wraps an upstream and records every request that reaches it (headers and body included). */
export function recording(inner: Upstream): Upstream & { seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const upstream = (async (request: Request) => {
    const url = new URL(request.url);
    const body = request.method === "GET" ? "" : await request.clone().text();
    seen.push({
      method: request.method,
      path: url.pathname,
      search: url.search,
      headers: Object.fromEntries(request.headers),
      body,
    });
    return inner(request);
  }) as Upstream & { seen: SeenRequest[] };
  upstream.seen = seen;
  return upstream;
}

/** An upstream that answers JSON from a function of the request (for fault and header tests). */
export function fakeUpstream(
  answer: (request: Request) => Response | Promise<Response> = () => json({ count: 1, mode: "exact" }),
): Upstream & { seen: SeenRequest[] } {
  return recording(async (request) => answer(request));
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A sandbox in this process (as the launcher runs it), over the shared test dataset. */
export async function startSandbox(
  overrides: Partial<SandboxOptions> = {},
): Promise<{ sandbox: Sandbox; dataDir: string }> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), "proxy-sbx-")));
  // Imported on demand: suites with fake upstreams do not load the sandbox (or DuckDB) at all.
  const { createSandbox } = await import("../../src/sandbox/app");
  const sandbox = await createSandbox(
    {
      rows: 50_000,
      seed: 7,
      viewBudget: 100_000,
      ratePerMinute: 100_000,
      ratePerDay: 100_000,
      verifyRate: 500,
      v1Retired: false,
      datasetFile: inject("datasetFile"),
      ...overrides,
      dataDir,
    },
    () => {},
  );
  return { sandbox, dataDir };
}

/** Straight to the sandbox with a key: the proxy is not trusted to report what it spends. */
export async function sandboxCall<T>(
  sandbox: Sandbox,
  key: string,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<T> {
  const response = await sandbox.fetch(
    new Request(`http://sandbox.test${pathname}`, {
      method,
      headers: { "x-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  expect(response.status, `${method} ${pathname}`).toBeLessThan(300);
  return (await response.json()) as T;
}

export interface ProxyServer {
  url: string;
  port: number;
  proxy: BffProxy;
  config: ProxyConfig;
  dataDir: string;
  /** Node's HTTP server: a test may stop it listening and listen again on `port` (an outage). */
  server: Server;
  /** Every log line written so far (pino JSON, one per entry). */
  logs: string[];
  close(): Promise<void>;
}

/** One database per DATA_DIR on the test PostgreSQL server, so a restarted proxy finds its own. */
const serverDatabases = new Map<string, Promise<string>>();

/**
 * Where a test proxy keeps its state. In the `postgres` project (a server was started for the run)
 * a database of its own on that server, the same one again for the same DATA_DIR. Otherwise the
 * embedded database, started from the run's image of a migrated empty one (a fraction of a second
 * instead of PGlite's initdb): on disk under DATA_DIR when the test chose the folder (it restarts
 * the proxy on it, which opens it itself), else in memory, lent by the file's pool (reset to the
 * image when its proxy closes).
 */
export async function testDatabaseFor(
  dataDir: string,
  chosen: boolean,
): Promise<{ url?: string; database?: Database }> {
  const server = inject("postgresUrl");
  if (server) {
    if (!serverDatabases.has(dataDir)) serverDatabases.set(dataDir, createDatabase(server));
    return { url: await serverDatabases.get(dataDir)! };
  }
  if (chosen) {
    seedDatabaseFolder(dataDir, inject("databaseImage"));
    return {};
  }
  const inMemory = await borrowDatabase();
  try {
    const database = await openDatabase({ databaseUrl: null, dataDir, inMemory });
    return { database: { ...database, close: () => giveBackDatabase(inMemory) } };
  } catch (error) {
    await giveBackDatabase(inMemory);
    throw error;
  }
}

/**
 * The proxy over real HTTP on 127.0.0.1 with port 0. `env` goes through the real config parser
 * (defaults: a fresh temp DATA_DIR, silent-ish logs captured in memory); `config` then overrides
 * parsed fields directly.
 */
export async function startProxy(
  upstream: Upstream,
  options: { env?: Record<string, string>; config?: Partial<ProxyConfig>; deps?: ProxyDeps } = {},
): Promise<ProxyServer> {
  const chosen = options.env?.DATA_DIR !== undefined;
  const dataDir = options.env?.DATA_DIR ?? (await mkdtemp(path.join(os.tmpdir(), "proxy-it-")));
  const store =
    options.env?.DATABASE_URL || options.deps?.database ? {} : await testDatabaseFor(dataDir, chosen);
  const config: ProxyConfig = {
    ...configFromEnv({
      PORT: "0",
      LOG_LEVEL: "info",
      STATIC_DIR: path.join(dataDir, "no-app"),
      ...(store.url ? { DATABASE_URL: store.url } : {}),
      ...options.env,
      DATA_DIR: dataDir,
    }),
    ...options.config,
  };
  const logs: string[] = [];
  const proxy = await createProxy(config, upstream, {
    logDestination: { write: (line: string) => void logs.push(line) },
    sleep: async () => {},
    ...(store.database ? { database: store.database } : {}),
    ...options.deps,
  });
  const served = await serveProxy(proxy, { host: "127.0.0.1", port: 0 });
  const close = async () => {
    await served.close();
    await store.database?.close();
  };
  return { url: served.url, port: served.port, proxy, config, dataDir, server: served.server, logs, close };
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Sent as is instead of JSON. */
  raw?: BodyInit;
  idempotencyKey?: string;
  /** Leave out the default `x-csrf: 1`. */
  noCsrf?: boolean;
}

/** A browser-like client of the proxy: same origin, `x-csrf: 1`, cookies kept in a tiny jar. */
export function browser(base: string) {
  let cookie: string | null = null;
  async function call<T = unknown>(
    method: string,
    pathname: string,
    body?: unknown,
    options: CallOptions = {},
  ) {
    const headers: Record<string, string> = {};
    if (!options.noCsrf) headers["x-csrf"] = "1";
    if (cookie) headers.cookie = cookie;
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let payload: BodyInit | undefined = options.raw;
    if (payload === undefined && body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const response = await fetch(`${base}${pathname}`, {
      method,
      headers: { ...headers, ...options.headers },
      body: payload,
    });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) {
      const pair = setCookie.split(";")[0]!;
      cookie = pair.endsWith("=") ? null : pair;
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("application/json") && text !== "")
      parsed = JSON.parse(text);
    return {
      status: response.status,
      headers: response.headers,
      body: parsed as T,
      text,
    } satisfies Answer<T>;
  }
  return {
    call,
    get: <T = unknown>(p: string, o?: CallOptions) => call<T>("GET", p, undefined, o),
    post: <T = unknown>(p: string, b?: unknown, o?: CallOptions) => call<T>("POST", p, b, o),
    get cookie() {
      return cookie;
    },
  };
}

export type Browser = ReturnType<typeof browser>;

/** Sends a raw HTTP/1.1 request (for targets and Host headers fetch would normalise). */
export async function rawRequest(port: number, head: string): Promise<{ status: number; text: string }> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      data += chunk;
    });
    socket.on("end", () => resolve({ status: Number(data.split(" ")[1]), text: data }));
    socket.on("error", reject);
  });
}

export { inject };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
