/**
 * Beyond loopback: the proxy refuses to start without USERS_FILE; with it, people sign in (an
 * HttpOnly, SameSite=Strict session cookie), every /api call needs the session, and failed
 * sign-ins are slowed and limited per name and per address.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createProxy } from "../../../src/server/app";
import { configFromEnv } from "../../../src/server/config";
import { openDatabase } from "../../../src/server/db/database";
import { Sessions } from "../../../src/server/team/access";
import { hashPassword, loadUsers, verifyPassword } from "../../../src/server/team/passwords";
import { nodeArgsOf } from "../../support/processes";
import { builtProduct, sandboxOnTestDataset } from "../../support/product-build";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  startProxy,
  testDatabaseFor,
} from "../../support/proxy-server";

const upstream = fakeUpstream(() => json({ credits: 10, plan: "PAYG" }));
let usersFile: string;
const started: ProxyServer[] = [];

beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "proxy-users-"));
  usersFile = path.join(dir, "users");
  writeFileSync(
    usersFile,
    `# team\nalice:${await hashPassword("alice-password-1")}\nbob:${await hashPassword("bob-password-22")}\n`,
  );
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function withUsers(env: Record<string, string> = {}) {
  const server = await startProxy(upstream, { env: { USERS_FILE: usersFile, ...env } });
  started.push(server);
  return server;
}

/** Runs a script with tsx as `npm start` would, and collects its output. */
function run(args: string[], env: Record<string, string>, stdin?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

describe("refusal to start beyond loopback", () => {
  it("refuses a non-loopback HOST when nobody can sign in (people come from USERS_FILE or the database)", async () => {
    // The config cannot know who is in the database: createProxy decides, once it is open.
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com", "127.0.0.1"])
      expect(() => configFromEnv({ HOST: host }), host).not.toThrow();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-beyond-"));
    const store = await testDatabaseFor(dataDir, false);
    const config = {
      ...configFromEnv({ DATA_DIR: dataDir, ...(store.url ? { DATABASE_URL: store.url } : {}) }),
      host: "0.0.0.0",
    };
    const deps = store.database ? { database: store.database } : {};
    await expect(createProxy(config, upstream, deps)).rejects.toThrow(
      /nobody can sign in: add an admin with `npm run users -- add NAME --role admin` \(or list people in USERS_FILE\)/,
    );
    // With someone in the database (no USERS_FILE), it starts.
    const database = store.database ?? (await openDatabase(config));
    await database.db
      .insertInto("users")
      .values({
        name: "ada",
        password_hash: await hashPassword("ada-password-1"),
        role: "admin",
        source: "team",
      })
      .execute();
    const proxy = await createProxy(config, upstream, { database });
    await proxy.close();
    await database.close();
  });

  it("refuses TRUST_PROXY or PUBLIC_ORIGIN on loopback too when nobody can sign in: requests come from beyond this machine", async () => {
    for (const env of [{ TRUST_PROXY: "1" }, { PUBLIC_ORIGIN: "https://audiences.example.com" }]) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-beyond-"));
      const store = await testDatabaseFor(dataDir, false);
      const config = configFromEnv({
        DATA_DIR: dataDir,
        ...(store.url ? { DATABASE_URL: store.url } : {}),
        ...env,
      });
      expect(config.host).toBe("127.0.0.1");
      const deps = store.database ? { database: store.database } : {};
      await expect(createProxy(config, upstream, deps), Object.keys(env)[0]).rejects.toThrow(
        /would serve beyond this machine and nobody can sign in: add an admin with `npm run users -- add NAME --role admin`/,
      );
      await store.database?.close();
    }
    // With people to sign in, both start (the sign-in tests below run behind TRUST_PROXY).
    started.push(await withUsers({ TRUST_PROXY: "1", PUBLIC_ORIGIN: "https://audiences.example.com" }));
  });

  it("the launcher exits with a clear message instead of listening", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-launch-"));
    const result = await run(nodeArgsOf("start", builtProduct()), {
      HOST: "0.0.0.0",
      PORT: "0",
      DATA_DIR: dataDir,
      ...sandboxOnTestDataset(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refusing to start: .*USERS_FILE/);
    expect(result.stdout).not.toContain("ready on");
    // Waits for the process to end: the limit only catches a launcher that never does.
  }, 120_000);

  it("a port already taken: one line that says so, exit 1, no stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await run(nodeArgsOf("start", builtProduct()), {
        PORT: String(port),
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "proxy-port-")),
        ...sandboxOnTestDataset(),
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `refusing to start: 127.0.0.1:${port} is already in use (another proxy, or another program, listens there): stop it, or choose another PORT`,
      );
    } finally {
      taken.close();
    }
  }, 120_000);
});

describe("sign-in", () => {
  it("keeps sessions across a restart; USERS_FILE changes end the sessions of removed or changed people", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-users-sync-"));
    const file = path.join(dataDir, "users");
    const carol = `carol:${await hashPassword("carol-password-1")}`;
    const dave = `dave:${await hashPassword("dave-password-1")}`;
    const erin = `erin:${await hashPassword("erin-password-1")}`;
    writeFileSync(file, `${carol}\n${dave}\n${erin}\n`);
    const signedIn = async (url: string, name: string) => {
      const person = browser(url);
      expect((await person.post("/auth/sign-in", { name, password: `${name}-password-1` })).status).toBe(200);
      return person.cookie!;
    };
    const own = fakeUpstream(() => json({ credits: 10, plan: "PAYG" }));
    let server = await startProxy(own, { env: { DATA_DIR: dataDir, USERS_FILE: file } });
    const cookies = {
      carol: await signedIn(server.url, "carol"),
      dave: await signedIn(server.url, "dave"),
      erin: await signedIn(server.url, "erin"),
    };
    await server.close();
    // dave leaves the team, erin's password changes, carol stays.
    writeFileSync(file, `${carol}\nerin:${await hashPassword("erin-new-password")}\n`);
    server = await startProxy(own, { env: { DATA_DIR: dataDir, USERS_FILE: file } });
    started.push(server);
    const as = (cookie: string) => browser(server.url).get("/api/session", { headers: { cookie } });
    expect((await as(cookies.carol)).status).toBe(200);
    expect((await as(cookies.dave)).status).toBe(401);
    expect((await as(cookies.erin)).status).toBe(401);
    const dave2 = await browser(server.url).post("/auth/sign-in", {
      name: "dave",
      password: "dave-password-1",
    });
    expect(dave2.status).toBe(401);
  });

  it("requires a session for every /api call, sets a strict cookie, and signs out", async () => {
    const server = await withUsers();
    const api = browser(server.url);
    const anonymous = await api.get("/api/session");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: expect.any(String) });
    expect((await api.get("/api/v2/credits")).status).toBe(401);
    expect(upstream.seen.length).toBe(0);
    // The app itself loads without a session (it shows the sign-in form).
    expect((await api.get("/")).status).not.toBe(401);

    expect(
      (await api.post("/auth/sign-in", { name: "alice", password: "alice-password-1" }, { noCsrf: true }))
        .status,
    ).toBe(403);
    const signIn = await api.post("/auth/sign-in", { name: "alice", password: "alice-password-1" });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toEqual({ user: "alice" });
    const cookie = signIn.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^ab_session=[A-Za-z0-9_-]{40,};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");

    const session = await api.get("/api/session");
    expect(session.status).toBe(200);
    expect(session.body).toEqual({
      mode: "sandbox",
      plan: "PAYG",
      user: "alice",
      role: "admin",
      keyLast4: "demo",
    });
    expect((await api.get("/api/v2/credits")).status).toBe(200);

    // A forged or foreign cookie is no session.
    const stranger = browser(server.url);
    expect((await stranger.get("/api/session", { headers: { cookie: "ab_session=forged" } })).status).toBe(
      401,
    );

    const out = await api.post("/auth/sign-out");
    expect(out.status).toBe(200);
    expect((await api.get("/api/session", { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(401);
  });

  it("marks the cookie Secure for an https PUBLIC_ORIGIN or SECURE_COOKIES=1", async () => {
    const envs: Record<string, string>[] = [
      { SECURE_COOKIES: "1" },
      { PUBLIC_ORIGIN: "https://audiences.example.com" },
    ];
    for (const env of envs) {
      const server = await withUsers(env);
      const answer = await browser(server.url).post("/auth/sign-in", {
        name: "bob",
        password: "bob-password-22",
      });
      expect(answer.headers.get("set-cookie")).toContain("Secure");
    }
  });

  it("slows wrong passwords (~300 ms) and limits them per name: 5, then 429 with Retry-After", async () => {
    const server = await withUsers();
    const api = browser(server.url);
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      const wrong = await api.post("/auth/sign-in", { name: "bob", password: `guess-${i}` });
      expect(wrong.status).toBe(401);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    }
    const limited = await api.post("/auth/sign-in", { name: "bob", password: "bob-password-22" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("set-cookie")).toBeNull();
  });

  it("a burst of parallel wrong passwords is limited like the same guesses one after another", async () => {
    const server = await withUsers({ SIGN_IN_DELAY_MS: "0", SIGN_IN_MAX_FAILURES: "3" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        browser(server.url).post("/auth/sign-in", { name: "bob", password: `guess-${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    // Each attempt is counted before its password is checked: only 3 get as far as scrypt.
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    // A right password is counted, then forgiven: it does not use up another's allowance.
    const other = await withUsers({ SIGN_IN_DELAY_MS: "0", SIGN_IN_MAX_FAILURES: "3" });
    for (let i = 0; i < 5; i++)
      expect(
        (await browser(other.url).post("/auth/sign-in", { name: "alice", password: "alice-password-1" }))
          .status,
      ).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await browser(other.url).post("/auth/sign-in", { name: "alice", password: "x" })).status).toBe(
        401,
      );
    expect(
      (await browser(other.url).post("/auth/sign-in", { name: "alice", password: "alice-password-1" }))
        .status,
    ).toBe(200);
  });

  it("signs in a name in any case as the stored person (names are unique without case)", async () => {
    const server = await withUsers();
    const api = browser(server.url);
    const signIn = await api.post("/auth/sign-in", { name: "ALICE", password: "alice-password-1" });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toEqual({ user: "alice" });
    const session = await api.get("/api/session");
    expect(session.status).toBe(200);
    expect((session.body as { user: string }).user).toBe("alice");
    // The password is not case-blind.
    expect(
      (await browser(server.url).post("/auth/sign-in", { name: "Alice", password: "ALICE-PASSWORD-1" }))
        .status,
    ).toBe(401);
  });

  it("says what is wrong with a sign-in body that is JSON, in plain words", async () => {
    const server = await withUsers();
    const api = browser(server.url);
    const rule = "A name is 1 to 64 letters, digits, dots, dashes, underscores or @.";
    for (const [sent, said] of [
      [{ name: "a".repeat(5000), password: "alice-password-1" }, rule],
      [{ name: ["a"], password: "alice-password-1" }, rule],
      [{ name: "no spaces", password: "alice-password-1" }, rule],
      [{ password: "alice-password-1" }, `Give your name. ${rule}`],
      [{ name: "alice" }, "Give your password."],
      [{ name: "alice", password: "" }, "Give your password."],
      [{ name: "alice", password: 12345678 }, "Send your password as text."],
      [{ name: "alice", password: "x".repeat(2000) }, "A password is at most 1,024 characters."],
      [{ name: "alice", password: "alice-password-1", remember: true }, "Send only your name and password."],
      [["alice", "alice-password-1"], "Send your name and password as JSON."],
    ] as const) {
      const answer = await api.post<{ detail: string }>("/auth/sign-in", sent);
      expect(answer.status, JSON.stringify(sent).slice(0, 80)).toBe(400);
      expect(answer.body.detail, JSON.stringify(sent).slice(0, 80)).toBe(said);
    }
    expect((await api.post("/auth/sign-in", { name: "alice", password: "alice-password-1" })).status).toBe(
      200,
    );
  });

  it("answers unknown names as slowly, in the same words", async () => {
    const server = await withUsers();
    const api = browser(server.url);
    const t0 = Date.now();
    const unknown = await api.post("/auth/sign-in", { name: "mallory", password: "whatever" });
    expect(unknown.status).toBe(401);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    const known = await api.post("/auth/sign-in", { name: "alice", password: "whatever" });
    expect(known.text).toBe(unknown.text);
  });

  it("limits per address across names (at SIGN_IN_ADDRESS_MAX_FAILURES: high by default, an office shares one)", async () => {
    const server = await withUsers({ SIGN_IN_DELAY_MS: "0", SIGN_IN_ADDRESS_MAX_FAILURES: "5" });
    const api = browser(server.url);
    for (let i = 0; i < 5; i++)
      expect((await api.post("/auth/sign-in", { name: `user${i}`, password: "x" })).status).toBe(401);
    expect((await api.post("/auth/sign-in", { name: "alice", password: "alice-password-1" })).status).toBe(
      429,
    );
  });

  it("counts per forwarded address behind a trusted reverse proxy (TRUST_PROXY=1)", async () => {
    const server = await withUsers({
      SIGN_IN_DELAY_MS: "0",
      TRUST_PROXY: "1",
      SIGN_IN_ADDRESS_MAX_FAILURES: "5",
    });
    const api = browser(server.url);
    const from = (ip: string) => ({ headers: { "x-forwarded-for": `203.0.113.9, ${ip}` } });
    for (let i = 0; i < 5; i++)
      expect(
        (await api.post("/auth/sign-in", { name: `user${i}`, password: "x" }, from("10.0.0.1"))).status,
      ).toBe(401);
    const good = { name: "alice", password: "alice-password-1" };
    expect((await api.post("/auth/sign-in", good, from("10.0.0.1"))).status).toBe(429);
    expect((await api.post("/auth/sign-in", good, from("10.0.0.2"))).status).toBe(200);
  });

  it("expires idle sessions", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "sessions-"));
    const { url, database } = await testDatabaseFor(dir, false);
    const store = database ?? (await openDatabase({ databaseUrl: url ?? null, dataDir: dir }));
    try {
      await store.db
        .insertInto("users")
        .values({ name: "alice", password_hash: "x", role: "admin", source: "team" })
        .execute();
      let now = Date.parse("2026-01-01T00:00:00Z");
      const sessions = new Sessions(store, 8 * 3600_000, 5000, () => now);
      const id = await sessions.create("alice");
      now += 7 * 3600_000;
      expect(await sessions.userOf(id)).toBe("alice");
      now += 7 * 3600_000; // idle time counts from the last use
      expect(await sessions.userOf(id)).toBe("alice");
      now += 8 * 3600_000 + 1;
      expect(await sessions.userOf(id)).toBeNull();
      expect(await sessions.userOf(id, true)).toBeNull();
    } finally {
      await store.close();
    }
  });
});

describe("USERS_FILE entries", () => {
  it("hash-password.ts makes a line that signs in; JSON files load too", async () => {
    const result = await run(
      ["--import", "tsx", "src/server/team/hash-password.ts", "carol"],
      {},
      "carol-secret-pw\n",
    );
    expect(result.code, result.stderr).toBe(0);
    const line = result.stdout.trim();
    expect(line).toMatch(/^carol:scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/);
    const dir = await mkdtemp(path.join(os.tmpdir(), "proxy-users-json-"));
    const file = path.join(dir, "users.json");
    writeFileSync(file, JSON.stringify({ carol: line.slice("carol:".length) }));
    const users = loadUsers(file);
    expect(await verifyPassword("carol-secret-pw", users.get("carol"))).toBe(true);
    expect(await verifyPassword("carol-secret-px", users.get("carol"))).toBe(false);
    // Same password, another salt.
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
    writeFileSync(file, "carol:plaintext\n");
    expect(() => loadUsers(file)).toThrow(/scrypt/);
    // tsx compiles the script as it starts: the limit only catches one that never ends.
  }, 120_000);
});
