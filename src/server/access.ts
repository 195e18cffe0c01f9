import { randomBytes } from "node:crypto";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { fail, ProxyProblem, problem, toResponse } from "./answer";
import { readLimited } from "./body";
import type { ProxyConfig } from "./config";
import type { ProxyEnv } from "./context";
import { loadUsers, USER_NAME, verifyPassword } from "./passwords";

export const SESSION_COOKIE = "ab_session";

/** Sessions in memory: a restart signs everyone out, which is the safe direction. */
export class Sessions {
  private readonly sessions = new Map<string, { user: string; lastSeen: number }>();

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  create(user: string): string {
    const id = randomBytes(32).toString("base64url");
    this.sessions.set(id, { user, lastSeen: this.now() });
    return id;
  }

  /** The user of a live session (and keeps it alive), or null. */
  touch(id: string | undefined): string | null {
    if (!id) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    const now = this.now();
    if (now - session.lastSeen > this.idleMs) {
      this.sessions.delete(id);
      return null;
    }
    session.lastSeen = now;
    return session.user;
  }

  destroy(id: string | undefined) {
    if (id) this.sessions.delete(id);
  }

  sweep() {
    const now = this.now();
    for (const [id, s] of this.sessions) if (now - s.lastSeen > this.idleMs) this.sessions.delete(id);
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
 * Sign-in for deployments beyond loopback (USERS_FILE). Without it the proxy serves one local user
 * and `/auth/*` does not exist.
 */
export class Access {
  readonly users: Map<string, string> | null;
  readonly sessions: Sessions;
  private readonly limiter: SignInLimiter;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly config: ProxyConfig) {
    this.users = config.usersFile ? loadUsers(config.usersFile) : null;
    this.sessions = new Sessions(config.sessionIdleMs);
    this.limiter = new SignInLimiter(config.signIn.maxFailures, config.signIn.windowMs);
    this.sweeper = setInterval(() => this.sessions.sweep(), 60_000);
    this.sweeper.unref();
  }

  get required(): boolean {
    return this.users !== null;
  }

  /** The signed-in user, null in local mode; throws 401 when a session is needed and missing. */
  userOf(c: Context<ProxyEnv>): string | null {
    if (!this.users) return null;
    const user = this.sessions.touch(getCookie(c, SESSION_COOKIE));
    if (!user) throw fail(401, "Please sign in first.");
    return user;
  }

  routes(app: Hono<ProxyEnv>) {
    app.post("/auth/sign-in", (c) => this.signIn(c));
    app.post("/auth/sign-out", (c) => {
      this.sessions.destroy(getCookie(c, SESSION_COOKIE));
      deleteCookie(c, SESSION_COOKIE, { path: "/", secure: this.config.secureCookies });
      return c.json({ signedOut: true });
    });
    app.all("/auth/*", () => toResponse(problem(404, "Not Found")));
  }

  close() {
    clearInterval(this.sweeper);
  }

  private async signIn(c: Context<ProxyEnv>): Promise<Response> {
    if (!this.users) throw fail(404, "Sign-in is off: this proxy serves a single local user.");
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
    const ok = await verifyPassword(password, this.users.get(name));
    if (!ok) {
      this.limiter.fail(keys);
      const left = this.config.signIn.delayMs - (Date.now() - started);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      throw fail(401, "That name and password do not match.");
    }
    this.limiter.forgive(keys[0]!);
    const id = this.sessions.create(name);
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
