/**
 * Roles and object-level checks on the service's operations and on audiences: an analyst's spend
 * or download is a 403 with a plain reason and nothing reaches the service; a buyer's key rotation
 * is a 403; cancelling someone else's export is for them or an admin; someone else's private
 * audience is a 404 even for an admin. Run on PGlite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditAnswer, mayCall, teamJobsAnswer } from "../../../src/contract/team";
import type { Browser } from "../../support/proxy-server";
import { fakeUpstream, json } from "../../support/proxy-server";
import { FILTER, PASSWORD, signIn, startTeam, type Team } from "../../support/team";

let exportNumber = 0;
const upstream = fakeUpstream((request) => {
  const { pathname } = new URL(request.url);
  if (pathname === "/v2/contact/export") {
    exportNumber++;
    return json({ exportId: `exp-${exportNumber}`, status: "QUEUED", rows: 10, credits: 10 }, 202);
  }
  if (pathname === "/v1/batch-process-email") return json({ process_id: "batch-77", status: "QUEUED" });
  if (pathname === "/v1/cancel-process") return json({ process_id: "batch-77", status: "CANCELLED" });
  if (pathname.endsWith("/cancel")) return json({ exportId: pathname.split("/")[4], status: "CANCELLED" });
  if (pathname === "/v2/account/api-keys/rotate") return json({ api_key: "sbx_payg_rotated_9876" });
  if (pathname === "/v2/contact/preview") return json({ rows: [], creditsCharged: 0, creditsRemaining: 10 });
  if (pathname === "/v2/contact/count") return json({ count: 5, mode: "exact" });
  return json({ credits: 10, plan: "PAYG" });
});

let team: Team;
let otherBuyer: Browser;
beforeAll(async () => {
  team = await startTeam({ upstream });
  expect(
    (await team.admin.post("/api/team/people", { name: "di", role: "buyer", password: PASSWORD("di") }))
      .status,
  ).toBe(201);
  otherBuyer = await signIn(team.server.url, "di");
});
afterAll(async () => {
  await team?.server.close();
});

const sent = (path: string) => upstream.seen.filter((s) => s.path === path).length;
let keyNumber = 0;
const key = () => `roles-test-key-${++keyNumber}`;

describe("the role table", () => {
  it("analysts never spend or download; buyers all but rotation; admins all", () => {
    expect(mayCall("analyst", { id: "count", spends: false }).ok).toBe(true);
    expect(mayCall("analyst", { id: "estimate", spends: false }).ok).toBe(true);
    expect(mayCall("analyst", { id: "exports", spends: false }).ok).toBe(true);
    expect(mayCall("analyst", { id: "preview", spends: true })).toEqual({
      ok: false,
      reason:
        "Buying contacts needs a buyer or an admin; you are signed in as an analyst. Ask an admin of your team.",
    });
    expect(mayCall("analyst", { id: "exportDownload", spends: false }).ok).toBe(false);
    expect(mayCall("buyer", { id: "exportDownload", spends: false }).ok).toBe(true);
    expect(mayCall("buyer", { id: "rotateV2", spends: true }).ok).toBe(false);
    expect(mayCall("admin", { id: "rotateV2", spends: true }).ok).toBe(true);
  });
});

describe("operations", () => {
  it("an analyst's spend and download are 403 with a plain reason, and nothing is sent", async () => {
    const { analyst } = team;
    const before = upstream.seen.length;
    const preview = await analyst.post<{ detail: string; code: string }>(
      "/api/v2/contact/preview",
      { filter: FILTER, reveal: "email", limit: 3 },
      { idempotencyKey: key() },
    );
    expect(preview.status).toBe(403);
    expect(preview.body).toEqual({
      detail:
        "Buying contacts needs a buyer or an admin; you are signed in as an analyst. Ask an admin of your team.",
      code: "ROLE_REQUIRED",
    });
    const exportStart = await analyst.post(
      "/api/v2/contact/export",
      { filter: FILTER, maxRows: 10, reveal: "email" },
      {
        idempotencyKey: key(),
      },
    );
    expect(exportStart.status).toBe(403);
    const download = await analyst.get<{ detail: string }>("/api/v2/contact/export/exp-1/download");
    expect(download.status).toBe(403);
    expect(download.body.detail).toMatch(/^Downloading purchased data needs a buyer or an admin/);
    expect((await analyst.post("/api/v1/batch-download", { process_id: "p1" })).status).toBe(403);
    // Each refusal says what it refused.
    const verify = await analyst.post<{ detail: string }>(
      "/api/v2/email/verify",
      { email: "a@example.com" },
      { idempotencyKey: key() },
    );
    expect(verify.status).toBe(403);
    expect(verify.body.detail).toMatch(/^Verifying email addresses needs a buyer or an admin/);
    expect(upstream.seen.length).toBe(before);
    // Counting is fine.
    expect((await analyst.post("/api/v2/contact/count", { filter: FILTER })).status).toBe(200);
  });

  it("a buyer's key rotation is 403 and not sent; an admin's is audited with the new key's last four only", async () => {
    const { buyer, admin } = team;
    const rotate = await buyer.post<{ detail: string }>("/api/v2/account/api-keys/rotate", undefined, {
      idempotencyKey: key(),
    });
    expect(rotate.status).toBe(403);
    expect(rotate.body.detail).toBe(
      "Rotating the team's key needs an admin; you are signed in as a buyer. Ask an admin of your team.",
    );
    expect(sent("/v2/account/api-keys/rotate")).toBe(0);
    const byAdmin = await admin.post("/api/v2/account/api-keys/rotate", undefined, { idempotencyKey: key() });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    const entries = auditAnswer.parse((await admin.get("/api/team/audit")).body).entries;
    const rotation = entries.find((e) => e.action === "key.rotate");
    expect(rotation).toMatchObject({ actor: "ada", summary: expect.stringContaining("9876") });
    expect(JSON.stringify(entries)).not.toContain("sbx_payg_rotated");
  });

  it("records who started an export; a cancel is for them or an admin; unknown jobs for any buyer", async () => {
    const { buyer, admin, analyst } = team;
    const started = await buyer.post<{ exportId: string }>(
      "/api/v2/contact/export",
      { filter: FILTER, maxRows: 10, reveal: "email" },
      { idempotencyKey: key() },
    );
    expect(started.status, started.text).toBe(202);
    const id = started.body.exportId;
    const jobs = teamJobsAnswer.parse((await analyst.get("/api/team/jobs?kind=export")).body).jobs;
    expect(jobs.find((j) => j.jobId === id)).toMatchObject({ kind: "export", person: "bo" });
    expect((await analyst.get("/api/team/jobs?kind=nope")).status).toBe(422);

    const cancels = () => sent(`/v2/contact/export/${id}/cancel`);
    const byOther = await otherBuyer.post<{ detail: string; code: string }>(
      `/api/v2/contact/export/${id}/cancel`,
    );
    expect(byOther.status).toBe(403);
    expect(byOther.body.detail).toBe("Only bo, who started this export, or an admin may cancel it.");
    expect((await analyst.post(`/api/v2/contact/export/${id}/cancel`)).status).toBe(403);
    expect(cancels()).toBe(0);
    expect((await buyer.post(`/api/v2/contact/export/${id}/cancel`)).status).toBe(200);
    expect((await admin.post(`/api/v2/contact/export/${id}/cancel`)).status).toBe(200);
    expect(cancels()).toBe(2);
    // A job the proxy did not start (no record): any buyer, not an analyst.
    expect((await otherBuyer.post("/api/v2/contact/export/elsewhere-1/cancel")).status).toBe(200);
    expect((await analyst.post("/api/v2/contact/export/elsewhere-1/cancel")).status).toBe(403);
  });

  it("records who started a verification batch; its cancel is for them or an admin", async () => {
    const { buyer } = team;
    const started = await buyer.post(
      "/api/v1/batch-process-email",
      { emails: ["a@example.com"] },
      {
        idempotencyKey: key(),
      },
    );
    expect(started.status, started.text).toBe(200);
    const jobs = teamJobsAnswer.parse((await buyer.get("/api/team/jobs?kind=verification")).body).jobs;
    expect(jobs).toEqual([{ kind: "verification", jobId: "batch-77", person: "bo", at: expect.any(String) }]);
    const refused = await otherBuyer.post<{ detail: string }>("/api/v1/cancel-process", {
      process_id: "batch-77",
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe(
      "Only bo, who started this verification job, or an admin may cancel it.",
    );
    expect(sent("/v1/cancel-process")).toBe(0);
    expect((await buyer.post("/api/v1/cancel-process", { process_id: "batch-77" })).status).toBe(200);
    // An id the table cannot hold is simply not one of the proxy's jobs (not a failed query).
    expect((await buyer.post("/api/v1/cancel-process", { process_id: "p\u0000" })).status).toBe(200);
  });

  it("a spend checks the role in the database, not the session's memory (changed on another instance)", async () => {
    const { server, buyer } = team;
    expect((await buyer.get("/api/session")).body).toMatchObject({ role: "buyer" });
    // As another instance would: the role changes in the database, this instance's memory not told.
    await server.proxy.database.db
      .updateTable("users")
      .set({ role: "analyst" })
      .where("name", "=", "bo")
      .execute();
    const before = sent("/v2/contact/preview");
    const preview = await buyer.post<{ code: string }>(
      "/api/v2/contact/preview",
      { filter: FILTER, reveal: "email", limit: 3 },
      { idempotencyKey: key() },
    );
    expect(preview.status).toBe(403);
    expect(preview.body.code).toBe("ROLE_REQUIRED");
    expect(sent("/v2/contact/preview")).toBe(before);
    await server.proxy.database.db
      .updateTable("users")
      .set({ role: "buyer" })
      .where("name", "=", "bo")
      .execute();
  });
});

describe("audiences, object by object", () => {
  it("someone else's private audience is a 404 on every route, even for an admin", async () => {
    const { analyst, admin, buyer } = team;
    const { body: a } = await analyst.post<{ id: string }>("/api/audiences", {
      name: "Private",
      filter: FILTER,
    });
    for (const person of [admin, buyer]) {
      expect((await person.get(`/api/audiences/${a.id}`)).status).toBe(404);
      expect((await person.get(`/api/audiences/${a.id}/versions`)).status).toBe(404);
      expect(
        (await person.call("PUT", `/api/audiences/${a.id}`, { version: 1, name: "Mine now" })).status,
      ).toBe(404);
      expect((await person.call("DELETE", `/api/audiences/${a.id}`)).status).toBe(404);
      expect((await person.post(`/api/audiences/${a.id}/restore`, { version: 1, restore: 1 })).status).toBe(
        404,
      );
      expect((await person.post(`/api/audiences/${a.id}/undelete`)).status).toBe(404);
    }
    expect((await analyst.get(`/api/audiences/${a.id}`)).status).toBe(200);
  });
});
