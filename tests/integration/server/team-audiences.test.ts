/**
 * Saved audiences on the server (src/contract/team.ts): every route, versions, the 409 of a save
 * over a newer version, restore, clientId dedupe, delete and undelete, 422 on bad bodies. Run on
 * PGlite and on PostgreSQL (the `postgres` project).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  audienceSchema,
  audiencesAnswer,
  audienceVersionsAnswer,
  auditAnswer,
  openAudienceAnswer,
} from "../../../src/contract/team";
import { FILTER, FILTER2, signIn, startTeam, type Team } from "../../support/team";

let team: Team;
beforeAll(async () => {
  team = await startTeam();
});
afterAll(async () => {
  await team?.server.close();
});

type A = {
  id: string;
  version: number;
  name: string;
  shared: boolean;
  owner: string;
  canEdit: boolean;
  canManage: boolean;
};

describe("audiences", () => {
  it("creates, lists (own + shared, latest first), reads, and dedupes by clientId", async () => {
    const { analyst, buyer, admin } = team;
    const created = await analyst.post<A>("/api/audiences", {
      name: "  Germany  ",
      filter: FILTER,
      shared: true,
    });
    expect(created.status, created.text).toBe(201);
    const audience = audienceSchema.parse(created.body);
    expect(audience).toMatchObject({
      name: "Germany",
      owner: "cy",
      shared: true,
      version: 1,
      lastCount: null,
      createdBy: "cy",
      updatedBy: "cy",
      canEdit: true,
      canManage: true,
    });
    expect(audience.id).toMatch(/^[A-Za-z0-9_-]{10}$/);
    expect(audience.filter).toMatchObject(FILTER);

    const mine = await analyst.post<A>("/api/audiences", { name: "Mine", filter: FILTER2, lastCount: 12 });
    expect(mine.status).toBe(201);
    expect(mine.body.shared).toBe(false);

    const forBuyer = audiencesAnswer.parse((await buyer.get("/api/audiences")).body);
    const ids = forBuyer.audiences.map((a) => a.id);
    expect(ids).toContain(audience.id);
    expect(ids).not.toContain(mine.body.id);
    expect(forBuyer.audiences.find((a) => a.id === audience.id)).toMatchObject({
      canEdit: true,
      canManage: false,
    });
    const forAdmin = audiencesAnswer.parse((await admin.get("/api/audiences")).body);
    expect(forAdmin.audiences.find((a) => a.id === audience.id)?.canManage).toBe(true);

    const forAnalyst = audiencesAnswer.parse((await analyst.get("/api/audiences")).body);
    expect(forAnalyst.audiences.slice(0, 2).map((a) => a.id)).toEqual([mine.body.id, audience.id]);

    const read = await buyer.get<A>(`/api/audiences/${audience.id}`);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe("Germany");

    // The same browser audience moved twice is created once (200 with the first).
    const once = await buyer.post<A>("/api/audiences", {
      name: "Moved",
      filter: FILTER,
      clientId: "local-1",
    });
    const twice = await buyer.post<A>("/api/audiences", {
      name: "Moved",
      filter: FILTER,
      clientId: "local-1",
    });
    expect(once.status).toBe(201);
    expect(twice.status).toBe(200);
    expect(twice.body.id).toBe(once.body.id);
    // Another person's clientId is theirs.
    const other = await analyst.post<A>("/api/audiences", {
      name: "Moved",
      filter: FILTER,
      clientId: "local-1",
    });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(once.body.id);
  });

  it("saves in place with a version, refuses a save over a newer version (409 with the latest), restores", async () => {
    const { analyst, buyer } = team;
    const { body: a } = await analyst.post<A>("/api/audiences", {
      name: "Shared",
      filter: FILTER,
      shared: true,
    });
    const edited = await buyer.call<A>("PUT", `/api/audiences/${a.id}`, {
      version: 1,
      filter: FILTER2,
      lastCount: 40,
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ version: 2, updatedBy: "bo", owner: "cy", lastCount: 40 });

    // The analyst still has version 1 open: refused, with the latest to choose from.
    const stale = await analyst.call<{ code: string; detail: string; current: A }>(
      "PUT",
      `/api/audiences/${a.id}`,
      {
        version: 1,
        name: "Renamed",
      },
    );
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("VERSION_CONFLICT");
    expect(stale.body.detail).toContain("bo");
    expect(stale.body.current).toMatchObject({ version: 2, updatedBy: "bo" });

    const renamed = await analyst.call<A>("PUT", `/api/audiences/${a.id}`, { version: 2, name: "Renamed" });
    expect(renamed.body).toMatchObject({ version: 3, name: "Renamed" });

    const versions = audienceVersionsAnswer.parse((await buyer.get(`/api/audiences/${a.id}/versions`)).body);
    expect(versions.versions.map((v) => [v.version, v.savedBy, v.name])).toEqual([
      [3, "cy", "Renamed"],
      [2, "bo", "Shared"],
      [1, "cy", "Shared"],
    ]);
    expect(versions.versions[1]!.lastCount).toBe(40);

    // Restore version 1 on top of 3: a new version 4 with 1's content.
    const staleRestore = await analyst.post(`/api/audiences/${a.id}/restore`, { version: 2, restore: 1 });
    expect(staleRestore.status).toBe(409);
    const restored = await analyst.post<A & { filter: unknown }>(`/api/audiences/${a.id}/restore`, {
      version: 3,
      restore: 1,
    });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ version: 4, name: "Shared", lastCount: null });
    expect(restored.body.filter).toMatchObject(FILTER);
    const after = audienceVersionsAnswer.parse((await analyst.get(`/api/audiences/${a.id}/versions`)).body);
    expect(after.versions[0]).toMatchObject({ version: 4, restoredFrom: 1, savedBy: "cy" });
    expect((await analyst.post(`/api/audiences/${a.id}/restore`, { version: 4, restore: 9 })).status).toBe(
      404,
    );
  });

  it("lets only the owner or an admin share, unshare and delete; undelete brings it back", async () => {
    const { analyst, buyer, admin } = team;
    const { body: a } = await analyst.post<A>("/api/audiences", {
      name: "Team list",
      filter: FILTER,
      shared: true,
    });
    const unshare = await buyer.call("PUT", `/api/audiences/${a.id}`, { version: 1, shared: false });
    expect(unshare.status).toBe(403);
    expect((await buyer.call("DELETE", `/api/audiences/${a.id}`)).status).toBe(403);

    const deleted = await admin.call("DELETE", `/api/audiences/${a.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await analyst.get(`/api/audiences/${a.id}`)).status).toBe(404);
    expect((await analyst.get(`/api/audiences/${a.id}/versions`)).status).toBe(404);
    expect(
      audiencesAnswer.parse((await analyst.get("/api/audiences")).body).audiences.map((x) => x.id),
    ).not.toContain(a.id);
    expect((await buyer.post(`/api/audiences/${a.id}/undelete`)).status).toBe(404);
    const back = await analyst.post<A>(`/api/audiences/${a.id}/undelete`);
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ id: a.id, version: 1 });
    expect((await buyer.get(`/api/audiences/${a.id}`)).status).toBe(200);

    const priv = await analyst.call<A>("PUT", `/api/audiences/${a.id}`, { version: 1, shared: false });
    expect(priv.status).toBe(200);
    expect(priv.body).toMatchObject({ version: 2, shared: false });
    expect((await buyer.get(`/api/audiences/${a.id}`)).status).toBe(404);

    const entries = auditAnswer.parse((await admin.get("/api/team/audit?limit=200")).body).entries;
    const mine = entries.filter((e) => e.target === a.id).map((e) => [e.action, e.actor]);
    expect(mine).toEqual([
      ["audience.update", "cy"],
      ["audience.undelete", "cy"],
      ["audience.delete", "ada"],
      ["audience.create", "cy"],
    ]);
  });

  it("remembers the audience each person has open, at their version, for any window after sign-in", async () => {
    const { analyst, buyer, server } = team;
    const open = async (who: typeof analyst) => {
      const answer = await who.get("/api/audiences/open");
      expect(answer.status, answer.text).toBe(200);
      return openAudienceAnswer.parse(answer.body).open;
    };
    const { body: a } = await analyst.post<A>("/api/audiences", {
      name: "Open one",
      filter: FILTER,
      shared: true,
    });
    expect(await open(buyer)).toBeNull();

    const remembered = await buyer.call("PUT", "/api/audiences/open", {
      id: a.id,
      version: 1,
      workingKey: "k1",
    });
    expect(remembered.status, remembered.text).toBe(200);
    // A colleague saves a newer version: the buyer's edits still start from version 1.
    await analyst.call("PUT", `/api/audiences/${a.id}`, { version: 1, filter: FILTER2 });
    // A new window after a new sign-in sees the same.
    const again = await signIn(server.url, "bo");
    const seen = await open(again);
    expect(seen).toMatchObject({
      workingKey: "k1",
      opened: { version: 1 },
      audience: { id: a.id, version: 2 },
    });
    expect(seen?.opened.filter).toMatchObject(FILTER);
    // Each person has their own.
    expect(await open(analyst)).toBeNull();

    // A version the audience does not have, an audience the person cannot see, a bad body: refused.
    expect(
      (await buyer.call("PUT", "/api/audiences/open", { id: a.id, version: 9, workingKey: "k" })).status,
    ).toBe(422);
    const { body: hidden } = await analyst.post<A>("/api/audiences", { name: "Hidden", filter: FILTER });
    expect(
      (await buyer.call("PUT", "/api/audiences/open", { id: hidden.id, version: 1, workingKey: "k" })).status,
    ).toBe(404);
    const bad = await buyer.call<{ detail: { loc: unknown[] }[] }>("PUT", "/api/audiences/open", {
      id: a.id,
      version: 0,
    });
    expect(bad.status).toBe(422);
    expect((await open(buyer))?.workingKey).toBe("k1");

    // Made private by its owner: no longer the buyer's to reopen (and nothing tells it exists).
    await analyst.call("PUT", `/api/audiences/${a.id}`, { version: 2, shared: false });
    expect(await open(buyer)).toBeNull();
    await analyst.call("PUT", `/api/audiences/${a.id}`, { version: 3, shared: true });
    expect((await open(buyer))?.opened.version).toBe(1);

    // Forgotten when closed; gone with a deleted audience.
    expect((await buyer.call("DELETE", "/api/audiences/open")).status).toBe(200);
    expect(await open(buyer)).toBeNull();
    await buyer.call("PUT", "/api/audiences/open", { id: a.id, version: 4, workingKey: "k4" });
    await analyst.call("DELETE", `/api/audiences/${a.id}`);
    expect(await open(buyer)).toBeNull();
  });

  it("the audit list does not name private audiences (admins read it; a private audience is its owner's)", async () => {
    const { admin, analyst } = team;
    const secret = await analyst.post<A>("/api/audiences", { name: "Cy's secret plan", filter: FILTER });
    expect(secret.status).toBe(201);
    await analyst.call("PUT", `/api/audiences/${secret.body.id}`, { version: 1, name: "Cy's other plan" });
    await analyst.call("DELETE", `/api/audiences/${secret.body.id}`);
    await analyst.post(`/api/audiences/${secret.body.id}/undelete`);
    const open = await analyst.post<A>("/api/audiences", {
      name: "Cy's open plan",
      filter: FILTER,
      shared: true,
    });
    const entries = auditAnswer.parse((await admin.get("/api/team/audit?limit=200")).body).entries;
    const secretOnes = entries.filter((e) => e.target === secret.body.id);
    expect(secretOnes.map((e) => e.summary)).toEqual([
      "brought back a private audience after it was deleted",
      "deleted a private audience",
      "version 2: renamed",
      "created a private audience",
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/secret plan|other plan/);
    expect(entries.find((e) => e.target === open.body.id)?.summary).toBe(
      "created “Cy's open plan”, shared with the team",
    );
  });

  it("answers bad bodies with the service's 422 record, never a 500", async () => {
    const { analyst } = team;
    const bad: [string, string, unknown, string | number][] = [
      ["POST", "/api/audiences", { name: "", filter: FILTER }, "name"],
      ["POST", "/api/audiences", { name: "x", filter: null }, "filter"],
      [
        "POST",
        "/api/audiences",
        { name: "x", filter: { type: "group", children: [{ type: "nope" }] } },
        "filter",
      ],
      ["POST", "/api/audiences", { name: "x", filter: FILTER, extra: 1 }, "extra"],
      ["POST", "/api/audiences", { name: "x".repeat(121), filter: FILTER }, "name"],
      ["POST", "/api/audiences", { name: "x", filter: FILTER, lastCount: -1 }, "lastCount"],
    ];
    for (const [method, path, body, field] of bad) {
      const answer = await analyst.call<{ detail: { loc: unknown[] }[] }>(method, path, body);
      expect(answer.status, `${JSON.stringify(body)} ${answer.text}`).toBe(422);
      expect(answer.body.detail[0]!.loc).toContain("body");
      expect(JSON.stringify(answer.body.detail.map((d) => d.loc))).toContain(String(field));
    }
    // Text PostgreSQL cannot store (U+0000) is a 422 too, not a failed query.
    const nul = await analyst.post<{ detail: { loc: unknown[] }[] }>("/api/audiences", {
      name: "a\u0000b",
      filter: FILTER,
    });
    expect(nul.status, nul.text).toBe(422);
    expect(nul.body.detail[0]!.loc).toEqual(["body", "name"]);
    const nulFilter = {
      type: "group",
      children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "x\u0000" }],
    };
    expect((await analyst.post("/api/audiences", { name: "n", filter: nulFilter })).status).toBe(422);
    const { body: a } = await analyst.post<A>("/api/audiences", { name: "ok", filter: FILTER });
    expect((await analyst.call("PUT", `/api/audiences/${a.id}`, { name: "no version" })).status).toBe(422);
    expect((await analyst.call("PUT", `/api/audiences/${a.id}`, { version: 0 })).status).toBe(422);
    expect((await analyst.post(`/api/audiences/${a.id}/restore`, { version: 1 })).status).toBe(422);
    const notJson = await analyst.call("POST", "/api/audiences", undefined, {
      raw: "{oops",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(422);
    expect((await analyst.get("/api/audiences/not%20an%20id")).status).toBeGreaterThanOrEqual(400);
    expect((await analyst.get("/api/audiences/abcdefghij")).status).toBe(404);
    // PUT and DELETE exist only on the team's own routes.
    expect((await analyst.call("PUT", "/api/v2/credits", {})).status).toBe(404);
  });
});
