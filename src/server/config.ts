import path from "node:path";
import { z } from "zod";
import { findOperation } from "../contract/routes";
import { isLoopbackHost } from "./hosts";

/**
 * The proxy's environment, validated once at start. Every combination that would expose the key or
 * the data (a key sent in clear, a listener beyond loopback without sign-in) is refused here with a
 * message that says what to set.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** Operations whose answers take long to produce (files, uploads, big lists). */
const LONG_OPERATIONS = [
  "exportStart",
  "exportDownload",
  "enrich",
  "batchV1",
  "batchUploadV1",
  "batchDownloadV1",
  "batchV2",
  "jobDownloadV2",
  "organizationDiscover",
];

// Empty variables count as unset, so `FOO= npm start` does what it looks like.
const unsetIfEmpty = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const text = () => z.preprocess(unsetIfEmpty, z.string().optional());
const int = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).default(fallback));
const flag = () =>
  z.preprocess(
    unsetIfEmpty,
    z
      .enum(["1", "0", "true", "false", "yes", "no"])
      .optional()
      .transform((v) => v === "1" || v === "true" || v === "yes"),
  );

const envSchema = z.object({
  PORT: int(5173, 0, 65535),
  HOST: z.preprocess(unsetIfEmpty, z.string().default("127.0.0.1")),
  DATA_DIR: z.preprocess(unsetIfEmpty, z.string().default(".data")),
  /** A PostgreSQL server (postgres://…); without it the embedded one under DATA_DIR. */
  DATABASE_URL: text(),
  STATIC_DIR: z.preprocess(unsetIfEmpty, z.string().default("dist/app")),
  UPSTREAM_URL: text(),
  API_KEY: text(),
  API_KEY_FILE: text(),
  SANDBOX_KEY: z.preprocess(unsetIfEmpty, z.string().default("sbx_payg_demo")),
  ALLOW_INSECURE_UPSTREAM: flag(),
  PUBLIC_HOSTS: text(),
  PUBLIC_ORIGIN: text(),
  USERS_FILE: text(),
  SECURE_COOKIES: flag(),
  /** Behind a reverse proxy: take the client address from the last X-Forwarded-For hop. */
  TRUST_PROXY: flag(),
  SESSION_IDLE_MS: int(8 * 3600_000, 60_000),
  /** How long a read trusts a session checked in the database (spends always ask it). */
  SESSION_CHECK_MS: int(5000, 0, 60_000),
  SIGN_IN_DELAY_MS: int(300, 0, 10_000),
  /** Failed sign-ins of one name from one address before it must wait. */
  SIGN_IN_MAX_FAILURES: int(5, 1),
  /** Failed sign-ins of one name from any addresses before each try is delayed (growing, ≤ 60 s). */
  SIGN_IN_NAME_MAX_FAILURES: int(10, 1),
  /** Failed sign-ins from one address across names before it must wait (an office shares one). */
  SIGN_IN_ADDRESS_MAX_FAILURES: int(100, 1),
  SIGN_IN_WINDOW_MS: int(15 * 60_000, 1000),
  CACHE_TTL_MS: int(60_000, 0),
  CACHE_MAX_ENTRIES: int(5000, 1),
  UPSTREAM_RATE_PER_MIN: int(60, 1),
  // The shaper's window: a minute, like the service's; shorter only in tests.
  UPSTREAM_RATE_WINDOW_MS: int(60_000, 100),
  QUEUE_TIMEOUT_MS: int(15_000, 1),
  UPSTREAM_TIMEOUT_MS: int(10_000, 1),
  UPSTREAM_LONG_TIMEOUT_MS: int(30_000, 1),
  /** Per-operation overrides: `count=5000,exportStart=60000`. */
  UPSTREAM_TIMEOUTS: text(),
  UPSTREAM_RETRIES: int(2, 0, 5),
  UPSTREAM_RETRY_BASE_MS: int(200, 0),
  MAX_BODY_BYTES: int(1024 * 1024, 1024),
  IDEMPOTENCY_TTL_MS: int(24 * 3600_000, 1000),
  /** How long a retry waits for the same spend under way in another instance. */
  SPEND_JOIN_WAIT_MS: int(120_000, 100),
  OWNED_RETENTION_DAYS: int(180, 0, 36_500),
  SESSION_CACHE_MS: int(30_000, 0),
  LOG_LEVEL: z.preprocess(unsetIfEmpty, z.enum(LOG_LEVELS).default("info")),
});

export interface ProxyConfig {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL server address, or null for the embedded database in DATA_DIR/db. */
  databaseUrl: string | null;
  staticDir: string;
  /** Only `/api/session` reports it; nothing else in the proxy reads it. */
  mode: "sandbox" | "live";
  /** The upstream's base address (live mode); null for the embedded sandbox. */
  upstreamUrl: string | null;
  /** Names the upstream a persisted key belongs to, so a key never crosses upstreams. */
  upstreamLabel: string;
  /** The key from the environment (API_KEY or SANDBOX_KEY); null when it comes from a file. */
  apiKey: string | null;
  apiKeyFile: string | null;
  /** Extra `host[:port]` names the proxy answers to, beyond loopback. */
  publicHosts: string[];
  publicOrigin: string | null;
  usersFile: string | null;
  secureCookies: boolean;
  trustProxy: boolean;
  sessionIdleMs: number;
  sessionCheckMs: number;
  signIn: {
    delayMs: number;
    maxFailures: number;
    nameMaxFailures: number;
    addressMaxFailures: number;
    windowMs: number;
  };
  cacheTtlMs: number;
  cacheMaxEntries: number;
  rate: { perWindow: number; windowMs: number; queueTimeoutMs: number };
  timeouts: { defaultMs: number; byOperation: Record<string, number> };
  retry: { max: number; baseMs: number };
  maxBodyBytes: number;
  idempotencyTtlMs: number;
  spendJoinWaitMs: number;
  /** How long a contact the team bought is served again from its store for nothing (0: never). */
  ownedRetentionDays: number;
  sessionCacheMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ProxyConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`invalid proxy configuration: ${problems}`);
  }
  const e = parsed.data;

  const upstreamUrl = e.UPSTREAM_URL ? checkUpstreamUrl(e.UPSTREAM_URL, e.ALLOW_INSECURE_UPSTREAM) : null;
  if (upstreamUrl) {
    if (!e.API_KEY && !e.API_KEY_FILE)
      throw new ConfigError(
        "UPSTREAM_URL is set but no key: set API_KEY or API_KEY_FILE (a file holding the key)",
      );
    if (e.API_KEY && e.API_KEY_FILE) throw new ConfigError("set either API_KEY or API_KEY_FILE, not both");
  } else if (e.API_KEY || e.API_KEY_FILE) {
    throw new ConfigError(
      "API_KEY / API_KEY_FILE are for the real service and need UPSTREAM_URL; the embedded sandbox uses SANDBOX_KEY",
    );
  }

  const publicOrigin = e.PUBLIC_ORIGIN ? checkOrigin(e.PUBLIC_ORIGIN) : null;
  const publicHosts = (e.PUBLIC_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "")
    .map(checkHostName);
  if (publicOrigin) publicHosts.push(new URL(publicOrigin).host);

  // Beyond loopback, people must be able to sign in: they may come from USERS_FILE or from the
  // database (the Team page, `npm run users`), so createProxy checks it once the database is open.

  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL ? checkDatabaseUrl(e.DATABASE_URL) : null,
    staticDir: path.resolve(e.STATIC_DIR),
    mode: upstreamUrl ? "live" : "sandbox",
    upstreamUrl,
    upstreamLabel: upstreamUrl ? new URL(upstreamUrl).origin : "sandbox",
    apiKey: upstreamUrl ? (e.API_KEY ?? null) : e.SANDBOX_KEY,
    apiKeyFile: e.API_KEY_FILE ? path.resolve(e.API_KEY_FILE) : null,
    publicHosts: [...new Set(publicHosts)],
    publicOrigin,
    usersFile: e.USERS_FILE ? path.resolve(e.USERS_FILE) : null,
    secureCookies: e.SECURE_COOKIES || publicOrigin?.startsWith("https:") === true,
    trustProxy: e.TRUST_PROXY,
    sessionIdleMs: e.SESSION_IDLE_MS,
    sessionCheckMs: e.SESSION_CHECK_MS,
    signIn: {
      delayMs: e.SIGN_IN_DELAY_MS,
      maxFailures: e.SIGN_IN_MAX_FAILURES,
      nameMaxFailures: e.SIGN_IN_NAME_MAX_FAILURES,
      addressMaxFailures: e.SIGN_IN_ADDRESS_MAX_FAILURES,
      windowMs: e.SIGN_IN_WINDOW_MS,
    },
    cacheTtlMs: e.CACHE_TTL_MS,
    cacheMaxEntries: e.CACHE_MAX_ENTRIES,
    rate: {
      perWindow: e.UPSTREAM_RATE_PER_MIN,
      windowMs: e.UPSTREAM_RATE_WINDOW_MS,
      queueTimeoutMs: e.QUEUE_TIMEOUT_MS,
    },
    timeouts: {
      defaultMs: e.UPSTREAM_TIMEOUT_MS,
      byOperation: {
        ...Object.fromEntries(LONG_OPERATIONS.map((id) => [id, e.UPSTREAM_LONG_TIMEOUT_MS])),
        ...parseTimeouts(e.UPSTREAM_TIMEOUTS),
      },
    },
    retry: { max: e.UPSTREAM_RETRIES, baseMs: e.UPSTREAM_RETRY_BASE_MS },
    maxBodyBytes: e.MAX_BODY_BYTES,
    idempotencyTtlMs: e.IDEMPOTENCY_TTL_MS,
    spendJoinWaitMs: e.SPEND_JOIN_WAIT_MS,
    ownedRetentionDays: e.OWNED_RETENTION_DAYS,
    sessionCacheMs: e.SESSION_CACHE_MS,
    logLevel: e.LOG_LEVEL,
  };
}

function checkDatabaseUrl(raw: string): string {
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError("DATABASE_URL must be a postgres:// address");
  return raw;
}

function checkUpstreamUrl(raw: string, allowInsecure: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`UPSTREAM_URL is not an address: ${raw}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ConfigError("UPSTREAM_URL must be an http(s) address, e.g. https://api.revenuebase.ai");
  if (url.username || url.password || url.search || url.hash)
    throw new ConfigError("UPSTREAM_URL must be a plain base address (no credentials, query or fragment)");
  // The key travels in every request: never in clear beyond this machine.
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname) && !allowInsecure)
    throw new ConfigError(
      "UPSTREAM_URL uses http:// to another machine, which would send the API key in clear; use https:// " +
        "(or ALLOW_INSECURE_UPSTREAM=1 on a network you trust)",
    );
  return url.href.replace(/\/+$/, "");
}

function checkOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_ORIGIN is not an origin: ${raw}`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== raw.replace(/\/$/, ""))
    throw new ConfigError(
      `PUBLIC_ORIGIN must be a bare origin such as https://audiences.example.com (got ${raw})`,
    );
  return url.origin;
}

function checkHostName(host: string): string {
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host))
    throw new ConfigError(`PUBLIC_HOSTS entry '${host}' is not a host name (host or host:port, no scheme)`);
  return host;
}

function parseTimeouts(raw: string | undefined): Record<string, number> {
  if (!raw) return {};
  const out: Record<string, number> = {};
  for (const part of raw.split(",")) {
    const [id, ms] = part.split("=").map((s) => s.trim());
    const value = Number(ms);
    if (!id || !findOperation(id) || !Number.isInteger(value) || value <= 0)
      throw new ConfigError(`UPSTREAM_TIMEOUTS entry '${part}' must be <operation id>=<milliseconds>`);
    out[id] = value;
  }
  return out;
}
