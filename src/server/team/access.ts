import { createHash, randomBytes } from "node:crypto";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { SPEND_CODES } from "../../contract/errors";
import { LOCAL_PERSON, type Role } from "../../contract/team";
import type { ProxyConfig } from "../config";
import { ConfigError } from "../config";
import type { ProxyEnv } from "../context";
import type { Database } from "../db/database";
import { everHadPeople } from "../db/integrity";
import { fail, ProxyProblem, problem, toResponse } from "../http/answer";
import { readLimited } from "../http/body";
import { loadUserEntries, USER_NAME, verifyPassword } from "./passwords";
import { passAudiencesOfRemoved } from "./people";
import {
  allRoles,
  countPeople,
  deletePeople,
  deleteSession,
  deleteSessionsIdleSince,
  deleteSessionsOf,
  insertFilePerson,
  insertSession,
  lockSetting,
  lockTeam,
  peopleForImport,
  readSetting,
  sessionOf,
  signInCandidate,
  touchSession,
  updateFilePerson,
  writeSetting,
} from "./people-store";

export const SESSION_COOKIE = "ab_session";

/**
 * Sessions live in the database, so they survive a restart and hold on every instance sharing it.
 * The browser's cookie is a random token; the table keeps only its hash. A read checks a session
 * against memory for up to `checkMs` (no database round trip per count); a spend always asks the
 * database, so a session ended anywhere cannot spend.
 */
export class Sessions {
  private readonly cache = new Map<
    string,
    { user: string; role: Role; checkedAt: number; touchedAt: number }
  >();

  constructor(
    private readonly database: Database,
    private readonly idleMs: number,
    private readonly checkMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: string, role?: Role): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const now = this.now();
    await insertSession(this.database.db, { idHash: hashOf(token), user, lastSeen: new Date(now) });
    if (role) this.cache.set(hashOf(token), { user, role, checkedAt: now, touchedAt: now });
    return token;
  }

  /** The user of a live session (and keeps it alive), or null. `fresh`: ask the database. */
  async userOf(token: string | undefined, fresh = false): Promise<string | null> {
    return (await this.personOf(token, fresh))?.name ?? null;
  }

  /**
   * The person of a live session and their role (and keeps it alive), or null. `fresh`: ask the
   * database; otherwise memory answers for up to `checkMs`, so a role changed on another instance
   * holds here within that time (spends always ask fresh).
   */
  async personOf(token: string | undefined, fresh = false): Promise<{ name: string; role: Role } | null> {
    if (!token) return null;
    const id = hashOf(token);
    const now = this.now();
    const known = this.cache.get(id);
    if (known && !fresh && now - known.checkedAt < this.checkMs && now - known.touchedAt < this.idleMs)
      return { name: known.user, role: known.role };
    const row = await sessionOf(this.database.db, id);
    if (!row || now - row.lastSeen.getTime() > this.idleMs) {
      this.cache.delete(id);
      if (row) await deleteSession(this.database.db, id);
      return null;
    }
    // last_seen is written at most once a minute per session: idle time is counted in minutes.
    let touchedAt = row.lastSeen.getTime();
    if (now - touchedAt > 60_000) {
      await touchSession(this.database.db, id, new Date(now));
      touchedAt = now;
    }
    // Bounded: the oldest entry goes first (a Map keeps insertion order).
    if (this.cache.size >= 10_000) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.delete(id);
    this.cache.set(id, { user: row.user, role: row.role, checkedAt: now, touchedAt });
    return { name: row.user, role: row.role };
  }

  /** Drops this instance's memory of a person's sessions (their rows were deleted). */
  forget(user: string) {
    for (const [id, s] of this.cache) if (s.user === user) this.cache.delete(id);
  }

  async destroy(token: string | undefined): Promise<void> {
    if (!token) return;
    this.cache.delete(hashOf(token));
    await deleteSession(this.database.db, hashOf(token));
  }

  async sweep(): Promise<void> {
    const oldest = this.now() - this.idleMs;
    for (const [id, s] of this.cache) if (s.touchedAt < oldest) this.cache.delete(id);
    await deleteSessionsIdleSince(this.database.db, new Date(oldest));
  }
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * USERS_FILE, a deployment's list of people: at start, whenever its content changed since the last
 * import, the file's people in the table are made to match it (new names added; a changed password
 * or role updated and that person's sessions ended; a name gone from the file removed, its sessions
 * with it). People added on the Team page or with `npm run users` (source `team`) are never touched;
 * a name in both becomes the file's (the file is whoever runs the proxy speaking).
 */
export async function importUsersFile(database: Database, file: string): Promise<number> {
  const users = loadUserEntries(file);
  const digest = createHash("sha256")
    .update(JSON.stringify([...users].sort(([a], [b]) => (a < b ? -1 : 1))))
    .digest("hex");
  const setting = `users-file:${file}`;
  if ((await readSetting(database.db, setting)) === digest) return 0;
  await database.db.transaction().execute(async (tx) => {
    // Instances starting together on one server import once: the second waits, then finds it done.
    await lockSetting(tx, setting);
    // The same lock as the Team page's and the CLI's changes: the LAST_ADMIN check below holds.
    await lockTeam(tx);
    if ((await readSetting(tx, setting)) === digest) return;
    const known = new Map((await peopleForImport(tx)).map((u) => [u.name, u]));
    const gone = [...known.values()]
      .filter((u) => u.source === "file" && !users.has(u.name))
      .map((u) => u.name);
    if (gone.length > 0) await deletePeople(tx, gone);
    for (const [name, { hash, role }] of users) {
      const before = known.get(name);
      if (before && before.password_hash === hash && before.role === role && before.source === "file")
        continue;
      if (before) {
        await updateFilePerson(tx, name, { hash, role });
        await deleteSessionsOf(tx, name);
      } else await insertFilePerson(tx, name, { hash, role });
    }
    // Owners are names: what a person gone from the file owned passes to an admin now, so a later
    // person of that name does not inherit it.
    if (gone.length > 0) await passAudiencesOfRemoved(tx, gone);
    // The file may not leave the team without an admin (the rule of the Team page and the CLI):
    // nothing is imported (the transaction rolls back) and the proxy does not start.
    const after = await allRoles(tx);
    if (after.length > 0 && !after.includes("admin"))
      throw new ConfigError(
        `USERS_FILE ${file} would leave the team without an admin (nobody left could manage people or the key): nothing was imported; give someone in it the admin role, or add an admin with \`npm run users -- add NAME --role admin\` first`,
      );
    await writeSetting(tx, setting, digest);
  });
  return users.size;
}

const SIGN_INS_UNAVAILABLE =
  "The proxy cannot check sign-ins right now (its database is unavailable), so nothing was sent and nothing charged. Try again in a moment.";

/**
 * Runs `work`; a database failure becomes a 503 in plain words (nothing was sent anywhere), and is
 * handed to `report` so the operator's log says why requests were refused.
 */
async function storeOr503<T>(
  work: () => Promise<T>,
  detail = SIGN_INS_UNAVAILABLE,
  report?: (error: unknown) => void,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProxyProblem) throw error;
    report?.(error);
    throw fail(503, detail, { code: SPEND_CODES.journalUnavailable, headers: [["retry-after", "30"]] });
  }
}

export interface ThrottleLimits {
  /** Failures of one name from one address before it must wait (then a wait that doubles). */
  pairMax: number;
  /** Failures of one name from any addresses before every try waits a little (growing, at most a minute). */
  nameMax: number;
  /** Failures from one address across names before it must wait: high, an office shares one. */
  addressMax: number;
  windowMs: number;
}

/**
 * Failed sign-ins, counted so that guessing is slow and an office is not locked out:
 * - per (name, address), tightly: after `pairMax` failures, a wait of a minute that doubles with
 *   each further failure (at most the window); a success clears the pair;
 * - per name, across addresses: after `nameMax`, a growing delay between tries (1 s, 2 s, … at most
 *   60 s), so a distributed guess at one name is slowed to a crawl, but never locked; and an address
 *   that signed in as that name before is exempt, so the person keeps signing in while it lasts;
 * - per address, across names: only after `addressMax` (one NAT may be a whole office).
 * Kept in memory, per instance: several instances each count their own (an attacker spread over n
 * instances gets n times the tries; the delays still apply on each).
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();
  /** name + address pairs that signed in (exempt from the per-name delay), with when. */
  private readonly trusted = new Map<string, number>();
  private static readonly MAX_KEYS = 100_000;
  private static readonly TRUST_MS = 30 * 24 * 3600_000;

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait before another try of this name from this address, or 0. */
  blockedFor(name: string, address: string): number {
    const now = this.now();
    const n = name.toLowerCase();
    let until = 0;
    const pair = this.recent(`pair:${n}\n${address}`, now);
    if (pair.length >= this.limits.pairMax) {
      const wait = Math.min(this.limits.windowMs, 60_000 * 2 ** (pair.length - this.limits.pairMax));
      until = Math.max(until, pair.at(-1)! + wait);
    }
    const byName = this.recent(`name:${n}`, now);
    const trusted = (this.trusted.get(`${n}\n${address}`) ?? -Infinity) > now - SignInThrottle.TRUST_MS;
    if (byName.length >= this.limits.nameMax && !trusted) {
      const wait = Math.min(60_000, 1000 * 2 ** (byName.length - this.limits.nameMax));
      until = Math.max(until, byName.at(-1)! + wait);
    }
    const byAddress = this.recent(`ip:${address}`, now);
    if (byAddress.length >= this.limits.addressMax)
      until = Math.max(until, byAddress[byAddress.length - this.limits.addressMax]! + this.limits.windowMs);
    return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : 0;
  }

  fail(name: string, address: string) {
    const now = this.now();
    const n = name.toLowerCase();
    for (const key of [`pair:${n}\n${address}`, `name:${n}`, `ip:${address}`]) {
      const times = this.recent(key, now);
      times.push(now);
      this.failures.delete(key);
      this.failures.set(key, times);
    }
    this.bound(this.failures);
  }

  /** Takes back one failure counted for an attempt that did not fail (see `Access.signIn`). */
  forgive(name: string, address: string) {
    const n = name.toLowerCase();
    for (const key of [`pair:${n}\n${address}`, `name:${n}`, `ip:${address}`]) {
      const times = this.failures.get(key);
      if (!times) continue;
      times.pop();
      if (times.length === 0) this.failures.delete(key);
    }
  }

  succeed(name: string, address: string) {
    const n = name.toLowerCase();
    this.failures.delete(`pair:${n}\n${address}`);
    this.trusted.delete(`${n}\n${address}`);
    this.trusted.set(`${n}\n${address}`, this.now());
    this.bound(this.trusted);
  }

  /** Forgets what no longer counts (called every minute): memory follows the attack, not history. */
  sweep() {
    const now = this.now();
    for (const [key, times] of this.failures)
      if ((times.at(-1) ?? 0) <= now - this.limits.windowMs) this.failures.delete(key);
    for (const [key, at] of this.trusted) if (at <= now - SignInThrottle.TRUST_MS) this.trusted.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((t) => t > now - this.limits.windowMs);
    if (times.length === 0) this.failures.delete(key);
    // At most what any limit needs, so one key cannot grow without end.
    return times.slice(-Math.max(this.limits.addressMax, this.limits.nameMax + 16, this.limits.pairMax + 16));
  }

  /** Memory is bounded: the least recently touched keys go first (a Map keeps insertion order). */
  private bound(map: Map<string, unknown>) {
    while (map.size > SignInThrottle.MAX_KEYS) map.delete(map.keys().next().value as string);
  }
}

const NAME_RULE = "A name is 1 to 64 letters, digits, dots, dashes, underscores or @.";
const signInBody = z.strictObject({
  name: z.string(NAME_RULE).regex(USER_NAME, NAME_RULE),
  password: z
    .string("Send your password as text.")
    .min(1, "Give your password.")
    .max(1024, "A password is at most 1,024 characters."),
});

/** What is wrong with a sign-in body, in plain words (it was JSON, so not "send JSON"). */
function signInMistake(body: unknown, issues: readonly z.core.$ZodIssue[]): string {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return "Send your name and password as JSON.";
  const issue = issues[0];
  if (!issue) return "Send your name and password as JSON.";
  if (issue.code === "unrecognized_keys") return "Send only your name and password.";
  const field = issue.path[0];
  if (field === "name" && !("name" in body)) return `Give your name. ${NAME_RULE}`;
  if (field === "password" && !("password" in body)) return "Give your password.";
  return issue.message;
}

/** The one person of local mode (nobody to sign in, loopback only): the admin. */
export const LOCAL_ADMIN = { name: LOCAL_PERSON, role: "admin" } as const satisfies {
  name: string;
  role: Role;
};

/**
 * Sign-in, when the database knows anyone (USERS_FILE, the Team page, `npm run users`). A store that
 * never had people serves one local person, an admin, on loopback, and `/auth/*` signs nobody in;
 * once someone is added (here or on another instance), everyone must sign in, for good.
 */
export class Access {
  readonly sessions: Sessions;
  private readonly throttle: SignInThrottle;
  private readonly sweeper: NodeJS.Timeout;
  private checkedPeopleAt = Date.now();

  private constructor(
    private readonly config: ProxyConfig,
    private readonly database: Database,
    private requiredNow: boolean,
  ) {
    this.sessions = new Sessions(database, config.sessionIdleMs, config.sessionCheckMs);
    this.throttle = new SignInThrottle({
      pairMax: config.signIn.maxFailures,
      nameMax: config.signIn.nameMaxFailures,
      addressMax: config.signIn.addressMaxFailures,
      windowMs: config.signIn.windowMs,
    });
    this.sweeper = setInterval(() => {
      this.throttle.sweep();
      void this.sessions.sweep().catch(() => {});
    }, 60_000);
    this.sweeper.unref();
  }

  static async open(
    config: ProxyConfig,
    database: Database,
    reportStoreDown: (error: unknown) => void = () => {},
  ): Promise<Access> {
    if (config.usersFile) await importUsersFile(database, config.usersFile);
    // Local mode only for a store that never had people: one whose people were lost is refused at
    // its start (db/integrity.ts), and one whose people were all removed needs one added again.
    const required = (await countPeople(database.db)) > 0 || (await everHadPeople(database.db));
    const access = new Access(config, database, required);
    access.reportStoreDown = reportStoreDown;
    return access;
  }

  /** Told of every database failure that refused a request (the proxy logs it). */
  reportStoreDown: (error: unknown) => void = () => {};

  /** `storeOr503` that reports to this proxy's log. */
  store<T>(work: () => Promise<T>, detail?: string): Promise<T> {
    return storeOr503(work, detail, this.reportStoreDown);
  }

  /** Whether people must sign in (someone is on the team). Never goes back to local mode by itself. */
  get required(): boolean {
    return this.requiredNow;
  }

  /** Someone was added: from now on everyone signs in. */
  peopleExist() {
    this.requiredNow = true;
  }

  /**
   * In local mode, whether another instance (or `npm run users`) has added someone meanwhile:
   * asked at most once per SESSION_CHECK_MS, so local mode costs no await on most reads (null:
   * nothing to ask now).
   */
  localModeCheck(): Promise<void> | null {
    if (this.requiredNow || Date.now() - this.checkedPeopleAt < this.config.sessionCheckMs) return null;
    this.checkedPeopleAt = Date.now();
    // A database that cannot say leaves local mode as it is: reads go on, spends are refused anyway.
    return countPeople(this.database.db).then(
      (n) => {
        if (n > 0) this.requiredNow = true;
      },
      () => {},
    );
  }

  /**
   * The signed-in user, null in local mode; throws 401 when a session is needed and missing, and
   * 503 (nothing sent) when the database cannot say.
   */
  async userOf(c: Context<ProxyEnv>, fresh = false): Promise<string | null> {
    return (await this.personOf(c, fresh))?.name ?? null;
  }

  /** The signed-in person and their role, null in local mode (the local admin); else as `userOf`. */
  async personOf(c: Context<ProxyEnv>, fresh = false): Promise<{ name: string; role: Role } | null> {
    if (!this.required) return null;
    const person = await this.store(() => this.sessions.personOf(getCookie(c, SESSION_COOKIE), fresh));
    if (!person) throw fail(401, "Please sign in first.");
    return person;
  }

  /**
   * The caller as the database has them now (never this instance's memory): for spends, downloads
   * of purchased data, cancels and the team's admin routes, so a role changed or a person removed
   * on another instance counts here at once. In local mode the database is asked whether people
   * exist meanwhile (`npm run users`, another instance): then it is a 401 at once.
   */
  async confirm(c: Context<ProxyEnv>): Promise<{ name: string; role: Role }> {
    if (!this.required) {
      const n = await this.store(() => countPeople(this.database.db));
      if (n === 0) return LOCAL_ADMIN;
      this.requiredNow = true;
    }
    const person = await this.store(() => this.sessions.personOf(getCookie(c, SESSION_COOKIE), true));
    if (!person) throw fail(401, "Please sign in first.");
    return person;
  }

  routes(app: Hono<ProxyEnv>) {
    app.post("/auth/sign-in", (c) => this.store(() => this.signIn(c)));
    app.post("/auth/sign-out", async (c) => {
      await this.store(() => this.sessions.destroy(getCookie(c, SESSION_COOKIE)));
      deleteCookie(c, SESSION_COOKIE, { path: "/", secure: this.config.secureCookies });
      return c.json({ signedOut: true });
    });
    app.all("/auth/*", () => toResponse(problem(404, "Not Found")));
  }

  close() {
    clearInterval(this.sweeper);
  }

  private async signIn(c: Context<ProxyEnv>): Promise<Response> {
    // People added meanwhile (the CLI, another instance) may sign in at once.
    if (!this.required && (await countPeople(this.database.db)) > 0) this.requiredNow = true;
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
    if (!parsed.success) throw fail(400, signInMistake(body, parsed.error.issues));
    const { name, password } = parsed.data;
    const address = c.get("clientIp");

    const wait = this.throttle.blockedFor(name, address);
    if (wait > 0)
      throw fail(429, "Too many failed sign-ins. Wait a few minutes, then try again.", {
        headers: [["retry-after", String(wait)]],
      });

    // The attempt counts as a failure before anything is awaited (forgiven on success), so a burst
    // of parallel guesses is limited like the same guesses one after another.
    this.throttle.fail(name, address);
    // Unknown names run scrypt against a stand-in, so timing does not tell which names exist.
    let known: { name: string; password_hash: string; role: Role } | undefined;
    let ok = false;
    try {
      // Names are unique without case (the Team page and the CLI refuse `Bo` when `bo` exists), so
      // `ADA` is the person `ada`; an exact match wins should an old USERS_FILE hold both.
      known = await signInCandidate(this.database.db, name);
      ok = await verifyPassword(password, known?.password_hash);
    } catch (error) {
      this.throttle.forgive(name, address);
      throw error;
    }
    if (!ok) {
      const left = this.config.signIn.delayMs - (Date.now() - started);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      throw fail(401, "That name and password do not match.");
    }
    this.throttle.forgive(name, address);
    this.throttle.succeed(name, address);
    // The session is the stored name's: owners, roles and the Team page compare names exactly.
    const id = await this.sessions.create(known!.name, known!.role);
    setCookie(c, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: this.config.secureCookies,
      maxAge: Math.floor(this.config.sessionIdleMs / 1000),
    });
    return c.json({ user: known!.name });
  }
}
