import { createHash, randomBytes } from "node:crypto";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { SPEND_CODES } from "../contract/errors";
import { fail, ProxyProblem, problem, toResponse } from "./answer";
import { readLimited } from "./body";
import type { ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import type { Database } from "./db/database";
import { loadUsers, USER_NAME, verifyPassword } from "./passwords";

export const SESSION_COOKIE = "ab_session";

/**
 * Sessions live in the database, so they survive a restart and hold on every instance sharing it.
 * The browser's cookie is a random token; the table keeps only its hash. A read checks a session
 * against memory for up to `checkMs` (no database round trip per count); a spend always asks the
 * database, so a session ended anywhere cannot spend.
 */
export class Sessions {
  private readonly cache = new Map<string, { user: string; checkedAt: number; touchedAt: number }>();

  constructor(
    private readonly database: Database,
    private readonly idleMs: number,
    private readonly checkMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: string): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const now = this.now();
    await this.database.db
      .insertInto("sessions")
      .values({ id_hash: hashOf(token), user_name: user, last_seen: new Date(now) })
      .execute();
    this.cache.set(hashOf(token), { user, checkedAt: now, touchedAt: now });
    return token;
  }

  /** The user of a live session (and keeps it alive), or null. `fresh`: ask the database. */
  async userOf(token: string | undefined, fresh = false): Promise<string | null> {
    if (!token) return null;
    const id = hashOf(token);
    const now = this.now();
    const known = this.cache.get(id);
    if (known && !fresh && now - known.checkedAt < this.checkMs && now - known.touchedAt < this.idleMs)
      return known.user;
    const row = await this.database.db
      .selectFrom("sessions")
      .select(["user_name", "last_seen"])
      .where("id_hash", "=", id)
      .executeTakeFirst();
    if (!row || now - row.last_seen.getTime() > this.idleMs) {
      this.cache.delete(id);
      if (row) await this.database.db.deleteFrom("sessions").where("id_hash", "=", id).execute();
      return null;
    }
    // last_seen is written at most once a minute per session: idle time is counted in minutes.
    let touchedAt = row.last_seen.getTime();
    if (now - touchedAt > 60_000) {
      await this.database.db
        .updateTable("sessions")
        .set({ last_seen: new Date(now) })
        .where("id_hash", "=", id)
        .execute();
      touchedAt = now;
    }
    // Bounded: the oldest entry goes first (a Map keeps insertion order).
    if (this.cache.size >= 10_000) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.delete(id);
    this.cache.set(id, { user: row.user_name, checkedAt: now, touchedAt });
    return row.user_name;
  }

  async destroy(token: string | undefined): Promise<void> {
    if (!token) return;
    this.cache.delete(hashOf(token));
    await this.database.db.deleteFrom("sessions").where("id_hash", "=", hashOf(token)).execute();
  }

  async sweep(): Promise<void> {
    const oldest = this.now() - this.idleMs;
    for (const [id, s] of this.cache) if (s.touchedAt < oldest) this.cache.delete(id);
    await this.database.db.deleteFrom("sessions").where("last_seen", "<", new Date(oldest)).execute();
  }
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * People who may sign in, in the database. Until the team model brings its own commands, USERS_FILE
 * is the list: at start, whenever its content changed since the last import, the table is made to
 * match it (new names added; a changed password updated and that person's sessions ended; a name
 * gone from the file removed, its sessions with it).
 */
export async function importUsersFile(database: Database, file: string): Promise<number> {
  const users = loadUsers(file);
  const digest = createHash("sha256")
    .update(JSON.stringify([...users].sort()))
    .digest("hex");
  const setting = `users-file:${file}`;
  const seen = await database.db
    .selectFrom("proxy_settings")
    .select("value")
    .where("name", "=", setting)
    .executeTakeFirst();
  if (seen?.value === digest) return 0;
  await database.db.transaction().execute(async (tx) => {
    const known = new Map(
      (await tx.selectFrom("users").select(["name", "password_hash"]).execute()).map((u) => [
        u.name,
        u.password_hash,
      ]),
    );
    const gone = [...known.keys()].filter((name) => !users.has(name));
    if (gone.length > 0) await tx.deleteFrom("users").where("name", "in", gone).execute();
    for (const [name, hash] of users) {
      if (known.get(name) === hash) continue;
      if (known.has(name)) {
        await tx.updateTable("users").set({ password_hash: hash }).where("name", "=", name).execute();
        await tx.deleteFrom("sessions").where("user_name", "=", name).execute();
      } else await tx.insertInto("users").values({ name, password_hash: hash }).execute();
    }
    await tx
      .insertInto("proxy_settings")
      .values({ name: setting, value: JSON.stringify(digest), updated_at: new Date() })
      .onConflict((oc) =>
        oc.column("name").doUpdateSet({ value: JSON.stringify(digest), updated_at: new Date() }),
      )
      .execute();
  });
  return users.size;
}

/** Runs `work`; a database failure becomes a 503 in plain words (nothing was sent anywhere). */
async function storeOr503<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProxyProblem) throw error;
    throw fail(
      503,
      "The proxy cannot check sign-ins right now (its database is unavailable), so nothing was sent and nothing charged. Try again in a moment.",
      { code: SPEND_CODES.journalUnavailable, headers: [["retry-after", "30"]] },
    );
  }
}

/** Failed sign-ins per name and per address within a window; both are checked. */
export class SignInLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait before another try, or 0. */
  blockedFor(keys: string[]): number {
    const now = this.now();
    let wait = 0;
    for (const key of keys) {
      const times = (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs);
      this.failures.set(key, times);
      if (times.length >= this.max) wait = Math.max(wait, times[0]! + this.windowMs - now);
    }
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  fail(keys: string[]) {
    const now = this.now();
    for (const key of keys) this.failures.set(key, [...(this.failures.get(key) ?? []), now]);
  }

  forgive(key: string) {
    this.failures.delete(key);
  }
}

const signInBody = z.strictObject({
  name: z.string().regex(USER_NAME),
  password: z.string().min(1).max(1024),
});

/**
 * Sign-in, when the database knows anyone (imported from USERS_FILE). Without users the proxy
 * serves one local person on loopback and `/auth/*` does not exist.
 */
export class Access {
  readonly sessions: Sessions;
  private readonly limiter: SignInLimiter;
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly config: ProxyConfig,
    private readonly database: Database,
    readonly required: boolean,
  ) {
    this.sessions = new Sessions(database, config.sessionIdleMs, config.sessionCheckMs);
    this.limiter = new SignInLimiter(config.signIn.maxFailures, config.signIn.windowMs);
    this.sweeper = setInterval(() => void this.sessions.sweep().catch(() => {}), 60_000);
    this.sweeper.unref();
  }

  static async open(config: ProxyConfig, database: Database): Promise<Access> {
    if (config.usersFile) await importUsersFile(database, config.usersFile);
    const { n } = await database.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return new Access(config, database, Number(n) > 0);
  }

  /**
   * The signed-in user, null in local mode; throws 401 when a session is needed and missing, and
   * 503 (nothing sent) when the database cannot say.
   */
  async userOf(c: Context<ProxyEnv>, fresh = false): Promise<string | null> {
    if (!this.required) return null;
    const user = await storeOr503(() => this.sessions.userOf(getCookie(c, SESSION_COOKIE), fresh));
    if (!user) throw fail(401, "Please sign in first.");
    return user;
  }

  routes(app: Hono<ProxyEnv>) {
    app.post("/auth/sign-in", (c) => storeOr503(() => this.signIn(c)));
    app.post("/auth/sign-out", async (c) => {
      await storeOr503(() => this.sessions.destroy(getCookie(c, SESSION_COOKIE)));
      deleteCookie(c, SESSION_COOKIE, { path: "/", secure: this.config.secureCookies });
      return c.json({ signedOut: true });
    });
    app.all("/auth/*", () => toResponse(problem(404, "Not Found")));
  }

  close() {
    clearInterval(this.sweeper);
  }

  private async signIn(c: Context<ProxyEnv>): Promise<Response> {
    if (!this.required) throw fail(404, "Sign-in is off: this proxy serves a single local user.");
    const started = Date.now();
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(await readLimited(c.req.raw, 16 * 1024)));
    } catch (error) {
      if (error instanceof ProxyProblem) throw error;
      throw fail(400, "Send your name and password as JSON.");
    }
    const parsed = signInBody.safeParse(body);
    if (!parsed.success) throw fail(400, "Send your name and password as JSON.");
    const { name, password } = parsed.data;
    const keys = [`name:${name.toLowerCase()}`, `ip:${c.get("clientIp")}`];

    const wait = this.limiter.blockedFor(keys);
    if (wait > 0)
      throw fail(429, "Too many failed sign-ins. Wait a few minutes, then try again.", {
        headers: [["retry-after", String(wait)]],
      });

    // Unknown names run scrypt against a stand-in, so timing does not tell which names exist.
    const known = await this.database.db
      .selectFrom("users")
      .select("password_hash")
      .where("name", "=", name)
      .executeTakeFirst();
    const ok = await verifyPassword(password, known?.password_hash);
    if (!ok) {
      this.limiter.fail(keys);
      const left = this.config.signIn.delayMs - (Date.now() - started);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      throw fail(401, "That name and password do not match.");
    }
    this.limiter.forgive(keys[0]!);
    const id = await this.sessions.create(name);
    setCookie(c, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: this.config.secureCookies,
      maxAge: Math.floor(this.config.sessionIdleMs / 1000),
    });
    return c.json({ user: name });
  }
}
