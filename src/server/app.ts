import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import type { DestinationStream, Logger } from "pino";
import { responses } from "../contract/operations";
import { operationById } from "../contract/routes";
import { CANCELS, DOWNLOADS, mayCall, mayCancel, ROTATIONS, TEAM_CODES } from "../contract/team";
import { ConfigError, type ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { serveBackups } from "./db/backup";
import { type Database, openDatabase, PROXY_APPLICATION_NAME } from "./db/database";
import { forwardHandler, interruptedRotationMessage, runSpend, spendCall } from "./forward";
import { HostAllowlist, isLoopbackHost } from "./hosts";
import { API_PREFIX, registerOperations, unsafeTarget } from "./http/allowlist";
import { fail, ProxyProblem, problem, toResponse } from "./http/answer";
import { browserGuard, hostGuard, securityHeaders } from "./http/browser-guard";
import { LimitsSeen } from "./http/limits-seen";
import type { Input } from "./http/request-input";
import { staticSite } from "./http/static";
import { ProxyStats } from "./http/stats";
import { createLogger } from "./logger";
import { approvalRoutes } from "./spend/approval-routes";
import { type ExportDeps, sweepSettledExports } from "./spend/export-purchases";
import { ledgerRoutes } from "./spend/ledger";
import { sweepOwned } from "./spend/owned-store";
import { SETTLEMENTS } from "./spend/purchase-kinds";
import type { PurchaseDeps } from "./spend/purchases";
import { reviewRoutes } from "./spend/review";
import { SpendJournal } from "./spend/spend-journal";
import { admitPreview, SpendingPolicy } from "./spend/spending-policy";
import { spendingRoutes } from "./spend/spending-routes";
import { freeCount } from "./spend/suppression";
import { suppressionRoutes } from "./spend/suppression-routes";
import { Access, LOCAL_ADMIN } from "./team/access";
import { audit } from "./team/audit";
import { recordJob, startedBy } from "./team/jobs";
import { TEAM_PATH, teamRoutes } from "./team/routes";
import { KeyStore } from "./upstream/key-store";
import { PlanProbe } from "./upstream/plan-probe";
import { RateShaper } from "./upstream/rate-shaper";
import { ResponseCache } from "./upstream/response-cache";
import { type Upstream, UpstreamClient } from "./upstream/upstream";
import { PROBE_TIMEOUT_MS, UpstreamHealth } from "./upstream/upstream-health";

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
  /** The minute's look at the purchases this proxy started and has not settled (exports, batches), now. */
  checkSettlements(): Promise<void>;
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
  const keys = new KeyStore(config);
  const scrub = (text: string) => {
    let out = text;
    for (const secret of keys.secrets()) if (secret.length >= 6) out = out.split(secret).join("[redacted]");
    return out;
  };
  const logger =
    deps.logger ??
    createLogger({ level: config.logLevel, secrets: () => keys.secrets(), destination: deps.logDestination });
  const database =
    deps.database ??
    (await openDatabase({
      ...config,
      applicationName: PROXY_APPLICATION_NAME,
      onTrouble: (line) => logger.error(scrub(line)),
    }));
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
    access = await Access.open(config, database, (error) =>
      logger.error(
        { err: { message: scrub(String((error as Error)?.message ?? error)) } },
        "database unavailable: request refused",
      ),
    );
    await journal.start();
  } catch (error) {
    if (!deps.database) await database.close();
    throw error instanceof ConfigError
      ? error
      : new ConfigError(
          `the database at ${database.where} failed: ${String((error as Error)?.message ?? error)}`,
        );
  }
  // Beyond loopback people must sign in: from USERS_FILE or from the database (the Team page cannot
  // be reached to add the first one there, so `npm run users` does it). A trusted reverse proxy or
  // a public origin means the requests come from beyond this machine too, whatever HOST says.
  const beyond = !isLoopbackHost(config.host)
    ? `HOST=${config.host}`
    : config.trustProxy
      ? "TRUST_PROXY"
      : config.publicOrigin
        ? `PUBLIC_ORIGIN=${config.publicOrigin}`
        : null;
  if (beyond && !access.required) {
    access.close();
    await journal.close();
    if (!deps.database) await database.close();
    throw new ConfigError(
      `${beyond} would serve beyond this machine and nobody can sign in: add an admin with \`npm run users -- add NAME --role admin\` (or list people in USERS_FILE), or keep HOST=127.0.0.1 without TRUST_PROXY and PUBLIC_ORIGIN`,
    );
  }
  // A rotation cut off between the service and the key store: said at start, and with every refusal.
  const cutOff = await journal.cutOff(["rotateV1", "rotateV2"]);
  if (cutOff.length > 0) {
    keys.interruptedRotation = cutOff.at(-1)!.at;
    logger.error(interruptedRotationMessage(keys.interruptedRotation, keys.storedIn));
  }
  // `npm run backup` asks this process for a copy of the embedded database it holds.
  const backups = deps.database
    ? null
    : await serveBackups(config.dataDir, database, (line) => logger.info(scrub(line)));
  const hosts = new HostAllowlist(config.publicHosts, config.port);
  const shaper = new RateShaper(config.rate);
  const stats = new ProxyStats(() => shaper.queueLength);
  const cache = new ResponseCache(config.cacheTtlMs, config.cacheMaxEntries);
  // Probed with a free read of the balance (v2's; any answer below 500 says the service is there).
  const probeOp = operationById("creditsV2");
  const health = new UpstreamHealth(() =>
    client.probe(
      { op: probeOp, target: probeOp.path, body: { kind: "none" }, stream: false },
      PROBE_TIMEOUT_MS,
    ),
  );
  const client = new UpstreamClient({
    upstream,
    keys,
    shaper,
    stats,
    config,
    sleep: deps.sleep,
    random: deps.random,
    onOutcome: (outcome, sentAt) => health.seen(outcome, sentAt),
  });
  const plan = new PlanProbe(client, config);
  const purchases: PurchaseDeps = {
    db: database.db,
    retentionDays: config.ownedRetentionDays,
    readBalance: async () => {
      // v2's balance, else v2's credits (a read: nothing spent).
      for (const id of ["balanceV2", "creditsV2"] as const) {
        const op = operationById(id);
        const outcome = await client.send({ op, target: op.path, body: { kind: "none" }, stream: false });
        if (outcome.kind !== "answer") return null;
        if (outcome.status === 404 || outcome.status === 405) continue;
        if (outcome.status !== 200) return null;
        try {
          const parsed = responses.balance.safeParse(JSON.parse(outcome.text));
          return parsed.success ? parsed.data.credits : null;
        } catch {
          return null;
        }
      }
      return null;
    },
    count: freeCount(client),
    reserve: (purchaseId, ids) => journal.reserve(purchaseId, ids, config.spendJoinWaitMs),
  };
  // Contacts past the retention are deleted (not only no longer served): at start, then hourly.
  const sweepContacts = () =>
    void Promise.all([
      sweepOwned(database.db, config.ownedRetentionDays),
      sweepSettledExports(database.db, config.ownedRetentionDays),
    ]).catch((error) =>
      logger.error({ err: { message: String(error?.message) } }, "owned contacts: sweep failed"),
    );
  sweepContacts();
  const contactSweeper = setInterval(sweepContacts, 3600_000);
  contactSweeper.unref();
  const exportDeps: ExportDeps = {
    db: database.db,
    retentionDays: config.ownedRetentionDays,
    client,
    claimer: journal.claimer(),
    onError: (message, error) =>
      logger.error({ err: { message: scrub(String((error as Error)?.message ?? error)) } }, message),
  };
  // Settlements started by a status seen ended, under way in the background (awaited at close).
  const settling = {
    under: new Set<Promise<void>>(),
    run(work: Promise<void>, message: string) {
      const done = work
        .catch((error) => exportDeps.onError?.(message, error))
        .finally(() => settling.under.delete(done));
      settling.under.add(done);
    },
  };
  // Exports and batch verifications the proxy started and has not seen end: looked at every minute
  // (polls settle them sooner).
  const checkSettlements = async () => {
    for (const settlement of SETTLEMENTS)
      await settlement
        .check(exportDeps)
        .catch((error) => exportDeps.onError?.(`unsettled ${settlement.what}s: check failed`, error));
  };
  let checking = false;
  const exportChecker = setInterval(() => {
    if (checking) return;
    checking = true;
    void checkSettlements().finally(() => {
      checking = false;
    });
  }, 60_000);
  exportChecker.unref();
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
    c.set("caller", LOCAL_ADMIN.name);
    c.set("role", LOCAL_ADMIN.role);
    await next();
    // Set on the answer's own headers: c.header() on a finished answer copies it into a new
    // Response, which costs Node's fast path for every request.
    try {
      c.res.headers.set("x-request-id", c.get("requestId"));
    } catch {
      // Headers that cannot change (an answer fetched as it is): copied once, then set.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("x-request-id", c.get("requestId"));
    }
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
    const method = c.req.method;
    // The service's operations are GET and POST; only the proxy's own team routes add PUT and DELETE.
    if (
      method !== "GET" &&
      method !== "POST" &&
      !((method === "PUT" || method === "DELETE") && TEAM_PATH.test(new URL(c.req.url).pathname))
    )
      throw fail(404, "Not Found");
    // Local mode (nobody to sign in) costs no await on most reads (see localModeCheck).
    const check = access.localModeCheck();
    if (check) await check;
    if (access.required) {
      const person = await access.personOf(c);
      if (person) {
        c.set("caller", person.name);
        c.set("role", person.role);
      }
    }
    await next();
  });
  access.routes(app);
  teamRoutes(app, { database, access, maxBodyBytes: config.maxBodyBytes });
  ledgerRoutes(app, { db: database.db, access });
  suppressionRoutes(app, { db: database.db, access, maxBodyBytes: config.maxBodyBytes });
  reviewRoutes(app, {
    db: database.db,
    access,
    client,
    plan,
    retentionDays: config.ownedRetentionDays,
    maxBodyBytes: config.maxBodyBytes,
    // The team's verdict on the review's estimate (caps, approval threshold), nothing held.
    admit: (person, estimate) => admitPreview(database.db, person, estimate),
  });

  app.get(`${API_PREFIX}/session`, async (c) => {
    const { plan: current } = await plan.get();
    return c.json({
      mode: config.mode,
      plan: current,
      user: access.required ? c.get("caller") : null,
      role: c.get("role"),
      keyLast4: keys.last4(),
    });
  });
  // Whether the service answers, for the app's recovery after an outage: free; while the service
  // is down, a probe at most once a second (upstream-health.ts).
  app.get(`${API_PREFIX}/health`, async (c) => c.json({ upstream: (await health.check()) ? "up" : "down" }));
  // The proxy's own record of the limits it saw pass (not an upstream operation: asking spends nothing).
  app.get(`${API_PREFIX}/limits`, (c) =>
    c.json({ viewBudget: limits.viewBudget(), proxyPerMinute: shaper.currentLimit }),
  );
  const refuse = (reason: string) => fail(403, reason, { code: TEAM_CODES.roleRequired });
  // The plan behind the key: the caps' prices and a company discover's charge depend on it.
  const planOfKey = async () => (await plan.get()).plan;
  // Caps and approvals: every spend but key rotation is priced and admitted before the journal.
  const policy = new SpendingPolicy({ db: database.db, journal, client, plan: planOfKey, purchases });
  const spendDeps = {
    config,
    client,
    keys,
    cache,
    journal,
    stats,
    scrub,
    log: logger,
    purchases,
    policy,
    plan: planOfKey,
  };
  spendingRoutes(app, { db: database.db, access, maxBodyBytes: config.maxBodyBytes });
  approvalRoutes(app, {
    db: database.db,
    access,
    policy,
    maxBodyBytes: config.maxBodyBytes,
    // An approved request runs as its requester would have sent it: the same spend path and journal.
    run: async (order) => {
      const op = operationById(order.operation as Parameters<typeof operationById>[0]);
      const input = {
        params: {},
        query: order.query,
        // An upload goes as it was sent (the body stored with it is empty).
        ...(order.file ? { file: order.file } : { json: order.body }),
      };
      const done = await runSpend(
        {
          op,
          caller: order.caller,
          key: order.key,
          input,
          call: spendCall(op, input),
          headers: order.headers,
          fingerprint: order.fingerprint,
        },
        { ...spendDeps, confirmCaller: async () => order.caller },
        undefined,
        { estimate: order.estimate },
      );
      const started = JOB_STARTS[op.id];
      if (started && done.answer.status >= 200 && done.answer.status < 300) {
        const jobId = await jobIdOf(new Response(done.answer.body), started.field);
        if (jobId)
          await recordJob(database.db, started.kind, jobId, order.caller).catch((error) =>
            logger.error({ err: { message: String(error?.message) } }, "who started a job not recorded"),
          );
      }
      return { answer: done.answer, outcome: done.outcome === "approval" ? "nothing-done" : done.outcome };
    },
  });
  registerOperations(app, (op) => {
    const handler = forwardHandler(op, {
      ...spendDeps,
      // Spends ask the database for the person and their role (a role changed anywhere counts at
      // once; in local mode, whether people exist by now).
      confirmCaller: async (c) => {
        const person = await access.confirm(c);
        const verdict = mayCall(person.role, op);
        if (!verdict.ok) throw refuse(verdict.reason);
        return person.name;
      },
      // Only a cancel asks who started the job; every other operation skips the step.
      authorize: CANCELS[op.id]
        ? async (c, _op, input) => {
            const kind = CANCELS[op.id]!;
            const jobId = jobOfCancel(op.id, input);
            const by = await access.store(() => startedBy(database.db, kind, jobId));
            const verdict = mayCancel({ name: c.get("caller"), role: c.get("role") }, by, kind);
            if (!verdict.ok) throw refuse(verdict.reason);
          }
        : undefined,
    });
    const settlements = SETTLEMENTS.filter((settlement) => settlement.statusOperations.has(op.id));
    const started = JOB_STARTS[op.id];
    const fresh = DOWNLOADS.has(op.id) || op.id in CANCELS;
    return async (c, next) => {
      // Downloads of purchased data and cancels ask the database for the person and their role, as
      // spends do (confirmCaller): a demoted or removed person is refused on every instance at once.
      if (fresh) {
        const person = await access.confirm(c);
        c.set("caller", person.name);
        c.set("role", person.role);
      }
      // The caller's role, before anything is read or sent.
      const verdict = mayCall(c.get("role"), op);
      if (!verdict.ok) throw refuse(verdict.reason);
      const response = (await handler(c, next)) as Response;
      if (op.id === "view") limits.learnView(response.headers);
      // A status seen ended settles its purchase in the background: the poll never waits for it.
      for (const settlement of settlements)
        if (response.status === 200)
          settling.run(
            settlement.seen(exportDeps, op.id, await response.clone().text()),
            `${settlement.what} not settled`,
          );
      if (ROTATIONS.has(op.id)) {
        plan.forget();
        if (response.status === 200)
          await audit(database.db, {
            actor: c.get("caller"),
            action: "key.rotate",
            target: null,
            summary: `rotated the team's key; the new one ends in ${keys.last4()}`,
          }).catch((error) =>
            logger.error({ err: { message: String(error?.message) } }, "key rotation not audited"),
          );
      }
      if (started && response.status >= 200 && response.status < 300) {
        const jobId = await jobIdOf(response, started.field);
        if (jobId)
          await recordJob(database.db, started.kind, jobId, c.get("caller")).catch((error) =>
            logger.error({ err: { message: String(error?.message) } }, "who started a job not recorded"),
          );
      }
      return response;
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
    checkSettlements: () => checkSettlements(),
    async close() {
      clearInterval(contactSweeper);
      clearInterval(exportChecker);
      await Promise.allSettled([...settling.under]);
      shaper.close();
      access.close();
      await backups?.close();
      await journal.close();
      if (!deps.database) await database.close();
    },
  };
}

/** Operations that start a job, and where its id is in their answer. */
const JOB_STARTS: Record<string, { kind: "export" | "verification"; field: string }> = {
  exportStart: { kind: "export", field: "exportId" },
  batchV1: { kind: "verification", field: "process_id" },
  batchUploadV1: { kind: "verification", field: "process_id" },
  batchV2: { kind: "verification", field: "process_id" },
};

async function jobIdOf(response: Response, field: string): Promise<string | null> {
  try {
    const body = (await response.clone().json()) as Record<string, unknown>;
    const id = body?.[field];
    return typeof id === "string" || typeof id === "number" ? String(id) : null;
  } catch {
    return null;
  }
}

/** The job a cancel names: in its path (exports, v2 jobs) or its body (v1). */
function jobOfCancel(id: string, input: Input): string {
  if (id === "exportCancel") return input.params.exportId ?? "";
  if (id === "jobCancelV2") return input.params.process_id ?? "";
  return String((input.json as { process_id?: unknown } | undefined)?.process_id ?? "");
}
