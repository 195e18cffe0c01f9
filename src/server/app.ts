import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import type { DestinationStream, Logger } from "pino";
import { Access } from "./access";
import { API_PREFIX, registerOperations, unsafeTarget } from "./allowlist";
import { fail, ProxyProblem, problem, toResponse } from "./answer";
import { browserGuard, hostGuard, securityHeaders } from "./browser-guard";
import { ConfigError, type ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { type Database, openDatabase } from "./db/database";
import { forwardHandler, interruptedRotationMessage } from "./forward";
import { HostAllowlist, isLoopbackHost } from "./hosts";
import { KeyStore } from "./key-store";
import { LimitsSeen } from "./limits-seen";
import { createLogger } from "./logger";
import { RateShaper } from "./rate-shaper";
import { ResponseCache } from "./response-cache";
import { PlanProbe } from "./session-info";
import { SpendJournal } from "./spend-journal";
import { staticSite } from "./static";
import { ProxyStats } from "./stats";
import { type Upstream, UpstreamClient } from "./upstream";

export interface ProxyDeps {
  /** A logger of your own; otherwise one is made (to `logDestination`, or stdout). */
  logger?: Logger;
  logDestination?: DestinationStream;
  /** Backoff sleeps and jitter (tests make retries instant). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The clock of the remembered View budget (tests jump past UTC midnight). */
  now?: () => number;
  /** The store, already open (tests); otherwise opened from the config. Closed with the proxy. */
  database?: Database;
}

export interface BffProxy {
  app: Hono<ProxyEnv>;
  stats: ProxyStats;
  database: Database;
  /** Tell the proxy the port it listens on (needed for the Host check when started on port 0). */
  listening(port: number): void;
  close(): Promise<void>;
  logger: Logger;
}

/**
 * The backend-for-frontend: pure composition of the pieces, no listening socket (see serve.ts).
 * Order on every request: request id and logging, raw-target check, Host check, security headers;
 * then for /api: browser boundary, session, the operation allowlist.
 */
export async function createProxy(
  config: ProxyConfig,
  upstream: Upstream,
  deps: ProxyDeps = {},
): Promise<BffProxy> {
  // Defence in depth: config.ts refuses this too, but a hand-built config must not slip past.
  if (!isLoopbackHost(config.host) && !config.usersFile)
    throw new ConfigError(
      `HOST=${config.host} is beyond loopback: set USERS_FILE so that people must sign in`,
    );

  const keys = new KeyStore(config);
  const scrub = (text: string) => {
    let out = text;
    for (const secret of keys.secrets()) if (secret.length >= 6) out = out.split(secret).join("[redacted]");
    return out;
  };
  const logger =
    deps.logger ??
    createLogger({ level: config.logLevel, secrets: () => keys.secrets(), destination: deps.logDestination });
  const database = deps.database ?? (await openDatabase(config));
  let access: Access;
  const journal = new SpendJournal(database, {
    ttlMs: config.idempotencyTtlMs,
    joinWaitMs: config.spendJoinWaitMs,
    onCommitError: (error) =>
      logger.error(
        { err: { message: String((error as Error)?.message) } },
        "spend journal: answer not recorded",
      ),
  });
  try {
    access = await Access.open(config, database);
    await journal.start();
  } catch (error) {
    if (!deps.database) await database.close();
    throw error instanceof ConfigError
      ? error
      : new ConfigError(
          `the database at ${database.where} failed: ${String((error as Error)?.message ?? error)}`,
        );
  }
  // A rotation cut off between the service and the key store: said at start, and with every refusal.
  const cutOff = await journal.cutOff(["rotateV1", "rotateV2"]);
  if (cutOff.length > 0) {
    keys.interruptedRotation = cutOff.at(-1)!.at;
    logger.error(interruptedRotationMessage(keys.interruptedRotation, keys.storedIn));
  }
  const hosts = new HostAllowlist(config.publicHosts, config.port);
  const shaper = new RateShaper(config.rate);
  const stats = new ProxyStats(() => shaper.queueLength);
  const cache = new ResponseCache(config.cacheTtlMs, config.cacheMaxEntries);
  const client = new UpstreamClient({
    upstream,
    keys,
    shaper,
    stats,
    config,
    sleep: deps.sleep,
    random: deps.random,
  });
  const plan = new PlanProbe(client, config);
  const limits = new LimitsSeen(deps.now);

  const app = new Hono<ProxyEnv>();

  // Our own id for every request, never one a client sends (it would reach our logs as theirs).
  app.use("*", requestId({ headerName: "", generator: () => randomUUID() }));
  app.use("*", async (c, next) => {
    const started = performance.now();
    const peer = c.env?.incoming?.socket?.remoteAddress ?? "in-process";
    // Sign-in limits count per address: behind a reverse proxy, the address it saw.
    const forwarded = config.trustProxy
      ? c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim()
      : undefined;
    c.set("clientIp", forwarded || peer);
    c.set("caller", "local");
    await next();
    c.header("x-request-id", c.get("requestId"));
    const pathname = new URL(c.req.url).pathname;
    logger.info(
      {
        reqId: c.get("requestId"),
        method: c.req.method,
        path: pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname,
        op: c.get("op"),
        status: c.res.status,
        ms: Math.round(performance.now() - started),
        upstreamMs: c.get("upstreamMs"),
        cache: c.get("cache"),
        replayed: c.get("replayed"),
      },
      "request",
    );
  });
  app.use("*", securityHeaders());
  app.use("*", async (c, next) => {
    const raw = c.env?.incoming?.url ?? `${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (unsafeTarget(raw)) throw fail(400, "This address is not allowed.");
    await next();
  });
  app.use("*", hostGuard(hosts));

  app.get("/healthz", async (c) => {
    const { up } = await plan.get();
    return c.json({ ok: true, upstream: up ? "up" : "down", ...stats.snapshot() });
  });

  const guard = browserGuard(config.publicOrigin);
  app.use("/auth/*", guard);
  app.use(`${API_PREFIX}/*`, guard);
  app.use(API_PREFIX, guard);
  app.use(`${API_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "POST") throw fail(404, "Not Found");
    // Local mode (nobody to sign in) costs no await on every read.
    c.set("caller", access.required ? ((await access.userOf(c)) ?? "local") : "local");
    await next();
  });
  access.routes(app);

  app.get(`${API_PREFIX}/session`, async (c) => {
    const { plan: current } = await plan.get();
    return c.json({
      mode: config.mode,
      plan: current,
      user: access.required ? c.get("caller") : null,
      keyLast4: keys.last4(),
    });
  });
  // The proxy's own record of the limits it saw pass (not an upstream operation: asking spends nothing).
  app.get(`${API_PREFIX}/limits`, (c) =>
    c.json({ viewBudget: limits.viewBudget(), proxyPerMinute: shaper.currentLimit }),
  );
  registerOperations(app, (op) => {
    const handler = forwardHandler(op, {
      config,
      client,
      keys,
      cache,
      journal,
      stats,
      scrub,
      log: logger,
      confirmCaller: async (c) => (await access.userOf(c, true)) ?? "local",
    });
    if (op.id === "view")
      return async (c, next) => {
        const response = (await handler(c, next)) as Response;
        limits.learnView(response.headers);
        return response;
      };
    if (op.id !== "rotateV1" && op.id !== "rotateV2") return handler;
    return async (c, next) => {
      const response = await handler(c, next);
      plan.forget();
      return response as Response;
    };
  });
  app.all(API_PREFIX, () => toResponse(problem(404, "Not Found")));
  app.all(`${API_PREFIX}/*`, () => toResponse(problem(404, "Not Found")));
  app.all("*", staticSite(config.staticDir));

  app.notFound(() => toResponse(problem(404, "Not Found")));
  app.onError((error, c) => {
    if (error instanceof ProxyProblem) return error.getResponse();
    logger.error(
      { reqId: c.get("requestId"), err: { message: scrub(String(error?.message)), name: error?.name } },
      "unexpected error",
    );
    return toResponse(
      problem(
        500,
        "Something went wrong in the proxy. Try again; if it keeps happening, tell whoever runs it.",
      ),
    );
  });

  return {
    app,
    stats,
    database,
    logger,
    listening: (port) => hosts.listening(port),
    async close() {
      shaper.close();
      access.close();
      await journal.close();
      if (!deps.database) await database.close();
    },
  };
}
