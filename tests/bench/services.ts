import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, startProcess } from "../support/processes";

/**
 * The processes the proxy and download benchmarks run against, each in its own process on
 * 127.0.0.1: the sandbox as a live upstream, and the proxy of `npm start` (in front of that
 * sandbox, or with a sandbox embedded as deployed). All on the AYCE demo key: nothing costs credits.
 */
export const KEY = "sbx_ayce_demo";

/** Limits high enough that a benchmark never meets them. */
const SANDBOX_LIMITS = {
  SANDBOX_RATE_PER_MIN: "100000000",
  SANDBOX_RATE_PER_DAY: "1000000000",
  SANDBOX_VIEW_BUDGET: "100000000",
};

/** The sandbox (`npm run sandbox`) with its own dataset under `<dir>/sandbox` (generated on start). */
export async function startSandboxProcess(dir: string, rows: number, env: Record<string, string> = {}) {
  const port = await freePort();
  const started = await startProcess(
    "sandbox",
    {
      SANDBOX_DATA_DIR: path.join(dir, "sandbox"),
      SANDBOX_ROWS: String(rows),
      SANDBOX_PORT: String(port),
      SANDBOX_HOST: "127.0.0.1",
      ...SANDBOX_LIMITS,
      ...env,
    },
    /ready on/,
    300_000,
  );
  return { ...started, url: `http://127.0.0.1:${port}` };
}

/**
 * The proxy exactly as `npm start` runs it: the sandbox embedded in its process. It reads the
 * same dataset file as the sandbox child of `startSandboxProcess(dir)` (linked, not generated
 * again) with a state of its own.
 */
export async function startEmbeddedProxy(dir: string, rows: number, name = "embedded") {
  const dataDir = path.join(dir, `${name}-sandbox`);
  mkdirSync(dataDir, { recursive: true });
  // Started again on the same state (a restart), the link is already there.
  if (!existsSync(path.join(dataDir, "dataset")))
    symlinkSync(path.join(dir, "sandbox", "dataset"), path.join(dataDir, "dataset"));
  return startProxy(dir, name, "", {
    CACHE_TTL_MS: "0",
    API_KEY: "",
    SANDBOX_KEY: KEY,
    SANDBOX_DATA_DIR: dataDir,
    SANDBOX_ROWS: String(rows),
    ...SANDBOX_LIMITS,
  });
}

/** The proxy as `npm start` runs it, with the sandbox child as its live upstream. */
export async function startProxy(
  dir: string,
  name: string,
  upstreamUrl: string,
  env: Record<string, string>,
) {
  const port = await freePort();
  // No app is served here: a placeholder page, dated ahead of any edit to the app's sources, keeps
  // the launcher from building the SPA (seconds of CPU in the middle of a measurement).
  const staticDir = path.join(dir, "no-app");
  const page = path.join(staticDir, "index.html");
  mkdirSync(staticDir, { recursive: true });
  if (!existsSync(page)) {
    writeFileSync(page, "<!doctype html><title>bench</title>\n");
    const later = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    utimesSync(page, later, later);
  }
  const { child, logFile } = await startProcess(
    "start",
    {
      // Whatever the caller's shell holds for these is not this benchmark's proxy.
      API_KEY_FILE: "",
      USERS_FILE: "",
      PUBLIC_HOSTS: "",
      PUBLIC_ORIGIN: "",
      TRUST_PROXY: "",
      UPSTREAM_TIMEOUTS: "",
      CACHE_TTL_MS: "",
      SESSION_CACHE_MS: "",
      LOG_LEVEL: "info", // as deployed: one log line per request is part of the cost
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: path.join(dir, name),
      STATIC_DIR: staticDir,
      UPSTREAM_URL: upstreamUrl,
      API_KEY: KEY,
      UPSTREAM_RATE_PER_MIN: "100000000",
      ...env,
    },
    /ready on/,
  );
  return { child, logFile, url: `http://127.0.0.1:${port}` };
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

export const post = (url: string, body: unknown, headers: Record<string, string>) =>
  call(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

export const get = (url: string, headers: Record<string, string>) => call(url, { headers });

export interface ProxyCounters {
  upstreamCalls: Record<string, number>;
  cacheHits: number;
  cacheMisses: number;
  singleFlightJoins: number;
}

export async function counters(proxyUrl: string): Promise<ProxyCounters> {
  const response = await fetch(`${proxyUrl}/healthz`);
  if (!response.ok) throw new Error(`/healthz: ${response.status} ${await response.text()}`);
  return (await response.json()) as ProxyCounters;
}

export const callsOf = (c: ProxyCounters, op: string) => c.upstreamCalls[op] ?? 0;

/**
 * The app as `npm start` runs it (proxy, embedded sandbox of `rows` contacts) for a benchmark that
 * drives it in Chromium: whatever the caller's shell holds for its settings is not this app's, and
 * every count the browser sends reaches the upstream (no proxy cache, no rate limit), so the
 * browser's own restraint is what is measured. `staticDir` serves another build of the web app.
 */
export async function startBrowserApp(
  dir: string,
  rows: number,
  options: { staticDir?: string; logLevel?: string; timeoutMs?: number } = {},
) {
  const port = await freePort();
  const { child } = await startProcess(
    "start",
    {
      UPSTREAM_URL: "",
      API_KEY: "",
      API_KEY_FILE: "",
      SANDBOX_KEY: "",
      USERS_FILE: "",
      PUBLIC_HOSTS: "",
      PUBLIC_ORIGIN: "",
      TRUST_PROXY: "",
      UPSTREAM_TIMEOUTS: "",
      SESSION_CACHE_MS: "",
      LOG_LEVEL: options.logLevel ?? "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: path.join(dir, "proxy"),
      ...(options.staticDir ? { STATIC_DIR: options.staticDir } : {}),
      CACHE_TTL_MS: "0",
      UPSTREAM_RATE_PER_MIN: "100000000",
      SANDBOX_DATA_DIR: path.join(dir, "sandbox"),
      SANDBOX_ROWS: String(rows),
      ...SANDBOX_LIMITS,
    },
    /ready on/,
    options.timeoutMs ?? 600_000,
  );
  return { child, url: `http://127.0.0.1:${port}` };
}
