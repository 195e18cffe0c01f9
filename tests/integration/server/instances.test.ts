/**
 * Several proxies on one PostgreSQL server (the `postgres` project; the embedded database belongs
 * to one process by design): a session made on one is valid on the other and ends on both when
 * its person signs out; one Idempotency-Key sent to both at once is carried out and charged once.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PERSON } from "../../../src/contract/team";
import type { Sandbox } from "../../../src/sandbox/app";
import { openDatabase } from "../../../src/server/db/database";
import { ProxyProblem } from "../../../src/server/http/answer";
import { hashPassword } from "../../../src/server/team/passwords";
import { addPerson, changePerson } from "../../../src/server/team/people";
import { createDatabase } from "../../support/postgres";
import {
  browser,
  inject,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const server = inject("postgresUrl");

describe.skipIf(!server)("two proxy instances on one PostgreSQL", () => {
  let sandbox: Sandbox;
  const upstream = recording((request) => sandbox.fetch(request));
  let a: ProxyServer;
  let b: ProxyServer;

  beforeAll(async () => {
    ({ sandbox } = await startSandbox());
    const dir = await mkdtemp(path.join(os.tmpdir(), "instances-"));
    const usersFile = path.join(dir, "users");
    writeFileSync(usersFile, `ada:${await hashPassword("ada-password-1")}\n`);
    const env = {
      DATABASE_URL: await createDatabase(server!),
      USERS_FILE: usersFile,
      SESSION_CHECK_MS: "1000",
    };
    // Started together: the migrations run once, under their lock.
    [a, b] = await Promise.all([startProxy(upstream, { env }), startProxy(upstream, { env })]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sandbox?.close();
  });

  it("a session made on one works on the other, and signing out ends it on both", async () => {
    const onA = browser(a.url);
    expect((await onA.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
    const onB = browser(b.url);
    const cookie = { headers: { cookie: onA.cookie! } };
    expect((await onB.get("/api/session", cookie)).status).toBe(200);
    expect((await onA.post("/auth/sign-out")).status).toBe(200);
    // A spend asks the database itself: refused at once on the other instance.
    const spend = await onB.post(
      "/api/v2/email/verify",
      { email: "a@example.com" },
      { ...cookie, idempotencyKey: "after-sign-out-1" },
    );
    expect(spend.status).toBe(401);
    // A read trusts its check for SESSION_CHECK_MS (here 1 s), then asks again.
    await sleep(1100);
    expect((await onB.get("/api/session", cookie)).status).toBe(401);
  });

  it("one Idempotency-Key sent to both at once is charged once", async () => {
    const people = [browser(a.url), browser(b.url)];
    for (const person of people)
      expect((await person.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(
        200,
      );
    const credits = async () => (await people[0]!.get<{ credits: number }>("/api/v2/credits")).body.credits;
    const before = await credits();
    const calls = () => upstream.seen.filter((s) => s.path === "/v2/contact/preview").length;
    const seen = calls();
    const body = { filter: null, reveal: "email", limit: 3 };
    const answers = await Promise.all(
      people.map((p) => p.post("/api/v2/contact/preview", body, { idempotencyKey: "both-instances-1" })),
    );
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    expect(answers[0]!.text).toBe(answers[1]!.text);
    expect(calls() - seen).toBe(1);
    const charged = (answers[0]!.body as { creditsCharged: number }).creditsCharged;
    expect(charged).toBeGreaterThan(0);
    expect(before - (await credits())).toBe(charged);
  });

  it("a spend still under way on one is never judged lost on the other: SPEND_IN_PROGRESS, then its answer", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = recording(async (request) => {
      const answer = await sandbox.fetch(request);
      if (new URL(request.url).pathname === "/v2/contact/preview") await gate;
      return answer;
    });
    const env = { DATABASE_URL: await createDatabase(server!), SPEND_JOIN_WAIT_MS: "500" };
    const [one, two] = await Promise.all([startProxy(slow, { env }), startProxy(slow, { env })]);
    try {
      const body = { filter: null, reveal: "email", limit: 2 };
      const key = { idempotencyKey: "slow-on-one-1" };
      const first = browser(one.url).post("/api/v2/contact/preview", body, key);
      while (!slow.seen.some((s) => s.path === "/v2/contact/preview")) await sleep(20);
      const waiting = await browser(two.url).post("/api/v2/contact/preview", body, key);
      expect(waiting.status).toBe(409);
      expect(waiting.body).toMatchObject({ code: "SPEND_IN_PROGRESS" });
      release();
      const answered = await first;
      expect(answered.status).toBe(200);
      const later = await browser(two.url).post("/api/v2/contact/preview", body, key);
      expect(later.status).toBe(200);
      expect(later.text).toBe(answered.text);
      expect(slow.seen.filter((s) => s.path === "/v2/contact/preview")).toHaveLength(1);
    } finally {
      release();
      await one.close();
      await two.close();
    }
  });

  it("an audience saved on one is listed on the other at once; a role changed on one holds on the other's next spend", async () => {
    const adaA = browser(a.url);
    expect((await adaA.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
    const saved = await adaA.post<{ id: string }>("/api/audiences", {
      name: "Seen everywhere",
      filter: { type: "group", children: [] },
      shared: true,
    });
    expect(saved.status).toBe(201);
    const adaB = browser(b.url);
    expect((await adaB.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
    const listed = await adaB.get<{ audiences: { id: string; version: number }[] }>("/api/audiences");
    expect(listed.body.audiences.map((x) => x.id)).toContain(saved.body.id);
    // A save on B is a conflict for A's stale version at once.
    expect(
      (await adaB.call("PUT", `/api/audiences/${saved.body.id}`, { version: 1, name: "On B" })).status,
    ).toBe(200);
    expect(
      (await adaA.call("PUT", `/api/audiences/${saved.body.id}`, { version: 1, name: "On A" })).status,
    ).toBe(409);

    // bo, a buyer added on A, signed in on B; made an analyst on A: B refuses bo's next spend at once.
    expect(
      (await adaA.post("/api/team/people", { name: "bo", role: "buyer", password: "bo-password-1" })).status,
    ).toBe(201);
    const boB = browser(b.url);
    expect((await boB.post("/auth/sign-in", { name: "bo", password: "bo-password-1" })).status).toBe(200);
    expect((await boB.get("/api/session")).body).toMatchObject({ role: "buyer" });
    expect((await adaA.call("PUT", "/api/team/people/bo", { role: "analyst" })).status).toBe(200);
    const spend = await boB.post(
      "/api/v2/email/verify",
      { email: "a@example.com" },
      { idempotencyKey: "after-role-change-1" },
    );
    expect(spend.status).toBe(401);
    await sleep(1100);
    expect((await boB.get("/api/session")).status).toBe(401);
  });

  it("a demoted or removed admin loses the team's pages, downloads and cancels on the other instance at once", async () => {
    const adaA = browser(a.url);
    expect((await adaA.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(200);
    for (const [name, role] of [
      ["eve", "admin"],
      ["dan", "admin"],
      ["di", "buyer"],
    ] as const)
      expect(
        (await adaA.post("/api/team/people", { name, role, password: `${name}-password-1` })).status,
      ).toBe(201);
    const onB = async (name: string) => {
      const person = browser(b.url);
      expect((await person.post("/auth/sign-in", { name, password: `${name}-password-1` })).status).toBe(200);
      return person;
    };
    const eveB = await onB("eve");
    const danB = await onB("dan");
    const diB = await onB("di");
    // B has checked them all just now (its memory would trust that for SESSION_CHECK_MS).
    expect((await eveB.get("/api/team/people")).status).toBe(200);
    expect((await danB.get("/api/team/audit")).status).toBe(200);
    expect((await diB.get("/api/session")).body).toMatchObject({ role: "buyer" });

    expect((await adaA.call("PUT", "/api/team/people/eve", { role: "analyst" })).status).toBe(200);
    expect((await adaA.call("DELETE", "/api/team/people/dan")).status).toBe(200);
    expect((await adaA.call("PUT", "/api/team/people/di", { role: "analyst" })).status).toBe(200);
    const seen = upstream.seen.length;
    // At once on B: nothing added, nothing read, nothing downloaded or cancelled.
    const add = await eveB.post("/api/team/people", {
      name: "eve2",
      role: "admin",
      password: "eve2-password-1",
    });
    expect([401, 403]).toContain(add.status);
    expect((await danB.get("/api/team/audit")).status).toBe(401);
    expect((await danB.call("PUT", "/api/team/people/eve", { role: "admin" })).status).toBe(401);
    expect((await diB.get("/api/v2/contact/export/exp-1/download")).status).toBe(401);
    expect((await diB.post("/api/v2/contact/export/exp-1/cancel")).status).toBe(401);
    expect(upstream.seen.length).toBe(seen);
    const names = (await adaA.get<{ people: { name: string; role: string }[] }>("/api/team/people")).body
      .people;
    const roles = names.map((p) => `${p.name}:${p.role}`);
    expect(roles).toEqual(expect.arrayContaining(["ada:admin", "di:analyst", "eve:analyst"]));
    expect(roles.filter((r) => /^(dan|eve2):/.test(r))).toEqual([]);
  });

  it("two admins demoting each other at once: one wins, the other is told LAST_ADMIN, never a deadlock (5 rounds)", async () => {
    const url = await createDatabase(server!);
    const one = await openDatabase({ databaseUrl: url, dataDir: os.tmpdir() });
    const two = await openDatabase({ databaseUrl: url, dataDir: os.tmpdir() });
    try {
      await addPerson(one.db, CLI_PERSON, { name: "ada", role: "admin", password: "ada-password-1" });
      await addPerson(one.db, CLI_PERSON, { name: "eve", role: "admin", password: "eve-password-1" });
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.allSettled([
          changePerson(one.db, "ada", "eve", { role: "analyst" }),
          changePerson(two.db, "eve", "ada", { role: "analyst" }),
        ]);
        expect(
          outcomes.filter((o) => o.status === "fulfilled"),
          `round ${round}`,
        ).toHaveLength(1);
        const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
        expect(refused.reason, `round ${round}`).toBeInstanceOf(ProxyProblem);
        const answer = (refused.reason as ProxyProblem).answer;
        expect(answer.status).toBe(409);
        expect(JSON.parse(answer.body).code).toBe("LAST_ADMIN");
        const admins = await one.db.selectFrom("users").select("name").where("role", "=", "admin").execute();
        expect(admins).toHaveLength(1);
        await one.db.updateTable("users").set({ role: "admin" }).execute();
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("two instances in local mode: once someone is added on one, the other asks for sign-in within SESSION_CHECK_MS", async () => {
    const env = { DATABASE_URL: await createDatabase(server!), SESSION_CHECK_MS: "1000" };
    const [one, two] = await Promise.all([startProxy(upstream, { env }), startProxy(upstream, { env })]);
    try {
      expect((await browser(two.url).get("/api/session")).body).toMatchObject({ user: null, role: "admin" });
      const added = await browser(one.url).post("/api/team/people", {
        name: "ann",
        role: "admin",
        password: "ann-password-1",
      });
      expect(added.status).toBe(201);
      expect((await browser(one.url).get("/api/session")).status).toBe(401);
      await sleep(1100);
      expect((await browser(two.url).get("/api/session")).status).toBe(401);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
