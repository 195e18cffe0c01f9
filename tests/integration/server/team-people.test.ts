/**
 * People and roles on the server: local mode's admin adds the first person (an admin), then
 * everyone signs in; admins add, change and remove people; a change of role or password, or a
 * removal, ends that person's sessions at once (here, and within SESSION_CHECK_MS on other
 * instances; spends always ask the database); the team never loses its last admin; USERS_FILE
 * people are changed in the file only. Run on PGlite and on PostgreSQL.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  audiencesAnswer,
  auditAnswer,
  CLI_PERSON,
  peopleAnswer,
  personSchema,
} from "../../../src/contract/team";
import { openDatabase } from "../../../src/server/db/database";
import { Sessions } from "../../../src/server/team/access";
import { hashPassword } from "../../../src/server/team/passwords";
import { addPerson, changePerson, removePerson } from "../../../src/server/team/people";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  startProxy,
  testDatabaseFor,
} from "../../support/proxy-server";
import { FILTER, PASSWORD, signIn, startTeam, type Team } from "../../support/team";

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});
async function team(): Promise<Team> {
  const t = await startTeam();
  running.push(t.server);
  return t;
}

describe("local mode and the first person", () => {
  it("the local person is an admin; the first person must be an admin; then everyone signs in", async () => {
    const server = await startProxy(fakeUpstream(() => json({ credits: 1, plan: "PAYG" })));
    running.push(server);
    const local = browser(server.url);
    const session = await local.get<{ user: unknown; role: string }>("/api/session");
    expect(session.body).toMatchObject({ user: null, role: "admin" });
    expect(peopleAnswer.parse((await local.get("/api/team/people")).body).people).toEqual([]);
    // Saved in local mode: the first admin takes it over.
    const saved = await local.post<{ id: string }>("/api/audiences", {
      name: "Before the team",
      filter: { type: "group", children: [] },
    });
    expect(saved.status).toBe(201);

    const buyerFirst = await local.post<{ detail: { loc: unknown[] }[] }>("/api/team/people", {
      name: "bo",
      role: "buyer",
      password: PASSWORD("bo"),
    });
    expect(buyerFirst.status).toBe(422);
    expect(buyerFirst.body.detail[0]!.loc).toEqual(["body", "role"]);

    const first = await local.post("/api/team/people", {
      name: "ada",
      role: "admin",
      password: PASSWORD("ada"),
    });
    expect(first.status).toBe(201);
    expect(personSchema.parse(first.body)).toMatchObject({
      name: "ada",
      role: "admin",
      source: "team",
      createdBy: "local",
    });
    expect((await local.get("/api/session")).status).toBe(401);
    expect((await local.get("/api/team/people")).status).toBe(401);
    const ada = await signIn(server.url, "ada");
    expect((await ada.get("/api/session")).body).toMatchObject({ user: "ada", role: "admin" });
    const mine = await ada.get<{ owner: string }>(`/api/audiences/${saved.body.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.owner).toBe("ada");
  });
});

describe("people (admins)", () => {
  it("lists, adds, refuses taken names and bad bodies (422), and is for admins only (403)", async () => {
    const { admin, buyer, analyst } = await team();
    const people = peopleAnswer.parse((await admin.get("/api/team/people")).body).people;
    expect(people.map((p) => [p.name, p.role, p.source, p.createdBy])).toEqual([
      ["ada", "admin", "team", "local"],
      ["bo", "buyer", "team", "ada"],
      ["cy", "analyst", "team", "ada"],
    ]);
    for (const person of [buyer, analyst]) {
      const denied = await person.get<{ detail: string; code: string }>("/api/team/people");
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe("ROLE_REQUIRED");
      expect(denied.body.detail).toMatch(
        /needs an admin; you are signed in as (a buyer|an analyst)\. Ask an admin/,
      );
      expect(
        (await person.post("/api/team/people", { name: "x1", role: "admin", password: "12345678" })).status,
      ).toBe(403);
      expect((await person.call("DELETE", "/api/team/people/ada")).status).toBe(403);
      expect((await person.get("/api/team/audit")).status).toBe(403);
    }
    const taken = await admin.post<{ code: string }>("/api/team/people", {
      name: "BO",
      role: "buyer",
      password: "another-password",
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("NAME_TAKEN");
    const bad: unknown[] = [
      { name: "no spaces", role: "buyer", password: "long-enough" },
      { name: "dee", role: "boss", password: "long-enough" },
      { name: "dee", role: "buyer", password: "short" },
      { name: "dee", role: "buyer" },
      { name: "dee", role: "buyer", password: "long-enough", extra: true },
    ];
    for (const body of bad)
      expect((await admin.post("/api/team/people", body)).status, JSON.stringify(body)).toBe(422);
    expect((await admin.call("PUT", "/api/team/people/bo", {})).status).toBe(422);
    // A refused password is never sent back (nor one in a key refused as extra).
    const long = `secret-${"x".repeat(100 * 1024)}`;
    for (const [method, path, sent] of [
      ["POST", "/api/team/people", { name: "dee", role: "buyer", password: long }],
      ["POST", "/api/team/people", { name: "dee", role: "buyer", password: "s3cr7" }],
      [
        "POST",
        "/api/team/people",
        { name: "dee", role: "buyer", password: "long-enough", Password: "s3cr7" },
      ],
      ["PUT", "/api/team/people/bo", { password: long }],
      ["PUT", "/api/team/people/bo", { password: "s3cr7" }],
    ] as const) {
      const refused = await admin.call(method, path, sent);
      expect(refused.status, refused.text.slice(0, 200)).toBe(422);
      expect(refused.text).not.toContain("s3cr7");
      expect(refused.text).not.toContain("secret-x");
    }
    expect((await admin.call("PUT", "/api/team/people/nobody", { role: "buyer" })).status).toBe(404);
    expect((await admin.call("DELETE", "/api/team/people/nobody")).status).toBe(404);
  });

  it("a role change ends that person's sessions at once; they sign in again with the new role", async () => {
    const { server, admin, buyer } = await team();
    expect((await buyer.get("/api/session")).status).toBe(200);
    const changed = await admin.call("PUT", "/api/team/people/bo", { role: "analyst" });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: "bo", role: "analyst" });
    expect((await buyer.get("/api/session")).status).toBe(401);
    const again = await signIn(server.url, "bo");
    expect((await again.get("/api/session")).body).toMatchObject({ user: "bo", role: "analyst" });
  });

  it("a new password ends the sessions; the old one no longer signs in", async () => {
    const { server, admin, analyst } = await team();
    expect((await admin.call("PUT", "/api/team/people/cy", { password: "a-new-password" })).status).toBe(200);
    expect((await analyst.get("/api/session")).status).toBe(401);
    expect(
      (await browser(server.url).post("/auth/sign-in", { name: "cy", password: PASSWORD("cy") })).status,
    ).toBe(401);
    await signIn(server.url, "cy", "a-new-password");
  });

  it("removing a person ends their sessions and their sign-in", async () => {
    const { server, admin, buyer } = await team();
    const removed = await admin.call("DELETE", "/api/team/people/bo");
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true });
    expect((await buyer.get("/api/session")).status).toBe(401);
    expect(
      (await browser(server.url).post("/auth/sign-in", { name: "bo", password: PASSWORD("bo") })).status,
    ).toBe(401);
    expect(peopleAnswer.parse((await admin.get("/api/team/people")).body).people.map((p) => p.name)).toEqual([
      "ada",
      "cy",
    ]);
  });

  it("never removes or demotes the last admin (409 LAST_ADMIN); with two admins, one may go", async () => {
    const { server, admin } = await team();
    for (const [method, body] of [
      ["PUT", { role: "buyer" }],
      ["DELETE", undefined],
    ] as const) {
      const refused = await admin.call<{ code: string; detail: string }>(
        method,
        "/api/team/people/ada",
        body,
      );
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("LAST_ADMIN");
      expect(refused.body.detail).toContain("last admin");
    }
    expect((await admin.call("PUT", "/api/team/people/bo", { role: "admin" })).status).toBe(200);
    const bo = await signIn(server.url, "bo");
    expect((await bo.call("PUT", "/api/team/people/ada", { role: "analyst" })).status).toBe(200);
    expect((await bo.call("PUT", "/api/team/people/bo", { role: "buyer" })).status).toBe(409);
  });

  it("audits every change to people, newest first, in pages", async () => {
    const { admin } = await team();
    await admin.call("PUT", "/api/team/people/bo", { role: "analyst" });
    await admin.call("PUT", "/api/team/people/cy", { password: "a-new-password" });
    await admin.call("DELETE", "/api/team/people/bo");
    const all = auditAnswer.parse((await admin.get("/api/team/audit")).body);
    expect(all.entries.map((e) => [e.action, e.actor, e.target, e.summary])).toEqual([
      ["person.remove", "ada", "bo", "removed (was analyst)"],
      ["person.password", "ada", "cy", "password changed"],
      ["person.role", "ada", "bo", "role buyer → analyst"],
      ["person.add", "ada", "cy", "added as analyst"],
      ["person.add", "ada", "bo", "added as buyer"],
      ["person.add", "local", "ada", "added as admin"],
    ]);
    expect(all.more).toBe(false);
    expect(JSON.stringify(all)).not.toContain("a-new-password");
    const page = auditAnswer.parse((await admin.get("/api/team/audit?limit=2")).body);
    expect(page.entries.length).toBe(2);
    expect(page.more).toBe(true);
    const next = auditAnswer.parse(
      (await admin.get(`/api/team/audit?limit=2&before=${page.entries[1]!.id}`)).body,
    );
    expect(next.entries.map((e) => e.action)).toEqual(["person.role", "person.add"]);
    expect((await admin.get("/api/team/audit?limit=0")).status).toBe(422);
    expect((await admin.get("/api/team/audit?before=x")).status).toBe(422);
  });
});

describe("local mode cannot take over a team", () => {
  /** A local-mode proxy on a database the test also holds, as `npm run users` or another instance would. */
  async function localOnShared() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "team-local-"));
    const { url, database } = await testDatabaseFor(dir, false);
    const store = database ?? (await openDatabase({ databaseUrl: url ?? null, dataDir: dir }));
    // A long SESSION_CHECK_MS: local mode does not notice new people by itself during the test.
    const server = await startProxy(
      fakeUpstream(() => json({ credits: 1, plan: "PAYG" })),
      {
        env: { SESSION_CHECK_MS: "60000", SIGN_IN_DELAY_MS: "0" },
        deps: { database: store },
      },
    );
    running.push({
      close: async () => {
        await server.close();
        await store.close();
      },
    });
    return { server, store, local: browser(server.url) };
  }

  it("once people exist (added by the CLI), a local spend is 401 at once and adding anyone is 409", async () => {
    const { server, store, local } = await localOnShared();
    await addPerson(store.db, CLI_PERSON, { name: "ada", role: "admin", password: PASSWORD("ada") });
    const spend = await local.post(
      "/api/v2/email/verify",
      { email: "a@example.com" },
      { idempotencyKey: "local-after-people-1" },
    );
    expect(spend.status).toBe(401);
    const take = await browser(server.url).post("/api/team/people", {
      name: "mallory",
      role: "admin",
      password: PASSWORD("mallory"),
    });
    expect([401, 409]).toContain(take.status);
    const people = await store.db.selectFrom("users").select("name").execute();
    expect(people.map((p) => p.name)).toEqual(["ada"]);
  });

  it("the local person adds the very first person only: 409 in plain words when the team has people", async () => {
    const { store, local } = await localOnShared();
    await addPerson(store.db, CLI_PERSON, { name: "ada", role: "admin", password: PASSWORD("ada") });
    const take = await local.post<{ detail: string; code: string }>("/api/team/people", {
      name: "mallory",
      role: "admin",
      password: PASSWORD("mallory"),
    });
    expect(take.status).toBe(409);
    expect(take.body).toEqual({
      detail: "Someone has already set up this team: sign in.",
      code: "TEAM_EXISTS",
    });
    // From then on this instance asks for sign-in.
    expect((await local.get("/api/session")).status).toBe(401);
  });

  it("two first-person POSTs at once: exactly one wins", async () => {
    const { store, server } = await localOnShared();
    const tries = await Promise.all(
      ["ann", "max"].map((name) =>
        browser(server.url).post<{ detail: string }>("/api/team/people", {
          name,
          role: "admin",
          password: PASSWORD(name),
        }),
      ),
    );
    expect(tries.map((t) => t.status).sort()).toEqual([201, 409]);
    expect(tries.find((t) => t.status === 409)!.body.detail).toBe(
      "Someone has already set up this team: sign in.",
    );
    expect(await store.db.selectFrom("users").select("name").execute()).toHaveLength(1);
  });

  it("the first admin added with `npm run users` takes over what the local person saved, audited", async () => {
    const { server, store, local } = await localOnShared();
    const saved = await local.post<{ id: string }>("/api/audiences", {
      name: "Saved locally",
      filter: FILTER,
    });
    expect(saved.status).toBe(201);
    // A first person who is not an admin is refused, and adopts nothing.
    await expect(
      addPerson(store.db, CLI_PERSON, { name: "bo", role: "buyer", password: PASSWORD("bo") }),
    ).rejects.toThrow();
    await addPerson(store.db, CLI_PERSON, { name: "ada", role: "admin", password: PASSWORD("ada") });
    const ada = await signIn(server.url, "ada");
    const mine = await ada.get<{ owner: string }>(`/api/audiences/${saved.body.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.owner).toBe("ada");
    const audit = auditAnswer.parse((await ada.get("/api/team/audit")).body);
    expect(audit.entries.map((e) => [e.action, e.actor, e.summary])).toContainEqual([
      "audience.owner",
      "cli",
      "audiences of local passed to ada (1)",
    ]);
    // A later admin adopts nothing (there is nothing of local's left, and the team was not empty).
    await addPerson(store.db, CLI_PERSON, { name: "eve", role: "admin", password: PASSWORD("eve") });
    expect((await ada.get<{ owner: string }>(`/api/audiences/${saved.body.id}`)).body.owner).toBe("ada");
  });
});

describe("owners are names", () => {
  it("local and cli are the proxy's own names: nobody may be called so", async () => {
    const { admin } = await team();
    for (const name of ["local", "cli", "Local", "CLI"]) {
      const refused = await admin.post<{ detail: { loc: unknown[]; msg: string }[] }>("/api/team/people", {
        name,
        role: "buyer",
        password: PASSWORD("x"),
      });
      expect(refused.status, name).toBe(422);
      expect(refused.body.detail[0]!.loc).toEqual(["body", "name"]);
      expect(refused.body.detail[0]!.msg).toMatch(/local and cli are the proxy's own/);
    }
  });

  it("a removed person's audiences pass to the admin who removes them; a later person of that name gets none", async () => {
    const { server, admin, buyer } = await team();
    const mine = await buyer.post<{ id: string }>("/api/audiences", { name: "Bo's own", filter: FILTER });
    const ours = await buyer.post<{ id: string }>("/api/audiences", {
      name: "Bo's shared",
      filter: FILTER,
      shared: true,
    });
    expect((await admin.call("DELETE", "/api/team/people/bo")).status).toBe(200);
    for (const id of [mine.body.id, ours.body.id]) {
      const passed = await admin.get<{ owner: string }>(`/api/audiences/${id}`);
      expect(passed.status).toBe(200);
      expect(passed.body.owner).toBe("ada");
    }
    const audit = auditAnswer.parse((await admin.get("/api/team/audit")).body);
    expect(audit.entries[0]).toMatchObject({
      action: "audience.owner",
      actor: "ada",
      target: "bo",
      summary: "audiences of bo passed to ada (2)",
    });
    // Someone new called bo: sees the team's shared audience (now ada's), never the private one.
    await admin.post("/api/team/people", { name: "bo", role: "buyer", password: PASSWORD("bo") });
    const newBo = await signIn(server.url, "bo");
    const seen = audiencesAnswer.parse((await newBo.get("/api/audiences")).body).audiences;
    expect(seen.map((a) => [a.name, a.owner])).toEqual([["Bo's shared", "ada"]]);
    expect((await newBo.get(`/api/audiences/${mine.body.id}`)).status).toBe(404);
  });

  it("removed with `npm run users`: to the longest-standing remaining admin", async () => {
    const { server, admin, analyst } = await team();
    await admin.call("PUT", "/api/team/people/bo", { role: "admin" });
    const saved = await analyst.post<{ id: string }>("/api/audiences", { name: "Cy's", filter: FILTER });
    await removePerson(server.proxy.database.db, CLI_PERSON, "cy");
    expect((await admin.get<{ owner: string }>(`/api/audiences/${saved.body.id}`)).body.owner).toBe("ada");
    // An admin removing themselves: to the longest-standing other admin.
    const bo = await signIn(server.url, "bo");
    const boSaved = await bo.post<{ id: string }>("/api/audiences", { name: "Bo's", filter: FILTER });
    expect((await bo.call("DELETE", "/api/team/people/bo")).status).toBe(200);
    expect((await admin.get<{ owner: string }>(`/api/audiences/${boSaved.body.id}`)).body.owner).toBe("ada");
  });
});

describe("USERS_FILE people", () => {
  it("come with their role from the file, cannot be changed here (409 MANAGED_BY_FILE), and a file change never touches team people", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "team-file-"));
    const file = path.join(dataDir, "users");
    writeFileSync(
      file,
      `ann:${await hashPassword(PASSWORD("ann"))}\nfay:analyst:${await hashPassword(PASSWORD("fay"))}\n`,
    );
    const upstream = fakeUpstream(() => json({ credits: 1, plan: "PAYG" }));
    let server: ProxyServer = await startProxy(upstream, {
      env: { DATA_DIR: dataDir, USERS_FILE: file, SIGN_IN_DELAY_MS: "0" },
    });
    try {
      const ann = await signIn(server.url, "ann");
      expect((await ann.get("/api/session")).body).toMatchObject({ role: "admin" });
      const fay = await signIn(server.url, "fay");
      expect((await fay.get("/api/session")).body).toMatchObject({ role: "analyst" });
      const fays = await fay.post<{ id: string }>("/api/audiences", { name: "Fay's own", filter: FILTER });
      expect(fays.status).toBe(201);
      for (const [method, body] of [
        ["PUT", { role: "buyer" }],
        ["DELETE", undefined],
      ] as const) {
        const refused = await ann.call<{ code: string }>(method, "/api/team/people/fay", body);
        expect(refused.status).toBe(409);
        expect(refused.body.code).toBe("MANAGED_BY_FILE");
      }
      expect(
        (await ann.post("/api/team/people", { name: "tim", role: "buyer", password: PASSWORD("tim") }))
          .status,
      ).toBe(201);
      const people = peopleAnswer.parse((await ann.get("/api/team/people")).body).people;
      expect(people.map((p) => [p.name, p.role, p.source])).toEqual([
        ["ann", "admin", "file"],
        ["fay", "analyst", "file"],
        ["tim", "buyer", "team"],
      ]);
      await server.close();
      // fay leaves the file: she goes; tim (a team person) stays.
      writeFileSync(file, `ann:${await hashPassword(PASSWORD("ann"))}\n`);
      server = await startProxy(upstream, {
        env: { DATA_DIR: dataDir, USERS_FILE: file, SIGN_IN_DELAY_MS: "0" },
      });
      const again = await signIn(server.url, "ann");
      const after = peopleAnswer.parse((await again.get("/api/team/people")).body).people;
      expect(after.map((p) => p.name)).toEqual(["ann", "tim"]);
      // What fay owned is ann's now (the longest-standing admin), not a later fay's.
      const passed = await again.get<{ owner: string }>(`/api/audiences/${fays.body.id}`);
      expect(passed.status).toBe(200);
      expect(passed.body.owner).toBe("ann");
      await signIn(server.url, "tim");
      await server.close();
      // A file that would leave the team without an admin (tim is a buyer): nothing imported, no start.
      writeFileSync(file, `ann:analyst:${await hashPassword(PASSWORD("ann"))}\n`);
      await expect(
        startProxy(upstream, { env: { DATA_DIR: dataDir, USERS_FILE: file, SIGN_IN_DELAY_MS: "0" } }),
      ).rejects.toThrow(/would leave the team without an admin/);
      writeFileSync(file, `ann:${await hashPassword(PASSWORD("ann"))}\n`);
      server = await startProxy(upstream, {
        env: { DATA_DIR: dataDir, USERS_FILE: file, SIGN_IN_DELAY_MS: "0" },
      });
      expect((await (await signIn(server.url, "ann")).get("/api/session")).body).toMatchObject({
        role: "admin",
      });
    } finally {
      await server.close();
    }
  });
});

describe("sessions on other instances", () => {
  it("a read cache elsewhere holds for SESSION_CHECK_MS at most; a fresh check (every spend) sees the change at once", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "team-sessions-"));
    const { url, database } = await testDatabaseFor(dir, false);
    const store = database ?? (await openDatabase({ databaseUrl: url ?? null, dataDir: dir }));
    try {
      await addPerson(store.db, "test", { name: "ada", role: "admin", password: PASSWORD("ada") });
      await addPerson(store.db, "test", { name: "bo", role: "buyer", password: PASSWORD("bo") });
      let now = Date.now();
      // Two instances: each its own memory of sessions.
      const here = new Sessions(store, 3600_000, 5000, () => now);
      const there = new Sessions(store, 3600_000, 5000, () => now);
      const token = await here.create("bo", "buyer");
      expect(await there.personOf(token)).toEqual({ name: "bo", role: "buyer" });

      await changePerson(store.db, "ada", "bo", { role: "analyst" });
      here.forget("bo");
      expect(await here.personOf(token)).toBeNull();
      expect(await there.personOf(token, true)).toBeNull(); // a spend asks fresh
      now += 5000;
      expect(await there.personOf(token)).toBeNull(); // a read, once its check is older than 5 s

      const again = await here.create("bo", "analyst");
      expect(await there.personOf(again)).toEqual({ name: "bo", role: "analyst" });
      await removePerson(store.db, "ada", "bo");
      expect(await there.personOf(again, true)).toBeNull();
    } finally {
      await store.close();
    }
  });
});
