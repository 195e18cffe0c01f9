/**
 * Email verification (single and batch, v1 and v2) and the company tools (resolve, discover) as
 * spends under the team's control, through the proxy over the real sandbox (PAYG), the sandbox's
 * own balance read after every step: each is a ledger row saying what it was for and charged as
 * the balance fell; a batch is pending at its start and settled from its results when the proxy
 * sees its job end (a status poll passing through, or its own check); caps refuse a batch before
 * anything is sent; a discover and an upload above the threshold wait for an admin and run once,
 * the upload with its file; after a mixed session the ledger's sum equals the balance's change.
 * Run on PGlite and on PostgreSQL.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerEntry, ledgerAnswer } from "../../../src/contract/ledger";
import { approvalSchema } from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import { TOOL_OPERATIONS } from "../../../src/server/spend/tool-purchases";
import {
  type Browser,
  sandboxCall as callSandbox,
  recording,
  sleep,
  startSandbox,
} from "../../support/proxy-server";
import { startTeam, type Team } from "../../support/team";

const PAYG = "sbx_payg_demo";
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };
const TOOLS = TOOL_OPERATIONS;

let sandbox: Sandbox;
const upstream = recording(async (request) => sandbox.fetch(request));
const sent = (pathname: string) => upstream.seen.filter((s) => s.path === pathname).length;
let t: Team;
let keyNumber = 0;
const newKey = () => `tools-${++keyNumber}-${Date.now()}`;
let atStart: number;

const sandboxCall = <T>(method: string, pathname: string, body?: unknown) =>
  callSandbox<T>(sandbox, PAYG, method, pathname, body);
const balance = async () => (await sandboxCall<{ credits: number }>("GET", "/v2/credits")).credits;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  t = await startTeam({ upstream, env: { SANDBOX_KEY: PAYG, ...FAST } });
  atStart = await balance();
});
afterAll(async () => {
  await t?.server.close();
  await sandbox?.close();
});

async function ledger(client: Browser = t.admin): Promise<LedgerEntry[]> {
  const answer = await client.get("/api/ledger");
  expect(answer.status).toBe(200);
  return ledgerAnswer.parse(answer.body).entries;
}
const entryOf = async (operation: string) => (await ledger()).find((e) => e.operation === operation)!;

function upload(name: string, lines: string[]): FormData {
  const form = new FormData();
  form.append("requested_file", new Blob([`email\r\n${lines.join("\r\n")}\r\n`], { type: "text/csv" }), name);
  return form;
}
const addresses = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? `${tag}${i}@example.com` : `${tag}${i}@nowhere-zz.test`,
  );

const putCaps = (people: unknown[]) => t.admin.call("PUT", "/api/spending/caps", { people });

/** Until the sandbox says the job ended (straight from it: nothing passes through the proxy). */
async function jobEnded(processId: string) {
  for (let i = 0; i < 300; i++) {
    const job = await sandboxCall<{ current_status: string }>("GET", `/v2/jobs/${processId}`);
    if (["COMPLETED", "ERROR", "CANCELLED"].includes(job.current_status)) return;
    await sleep(50);
  }
  throw new Error(`job ${processId} still running`);
}

describe("single checks and company searches", () => {
  it("each is a ledger row saying what it was for, charged exactly as the balance fell", async () => {
    const steps: [string, () => Promise<{ status: number }>][] = [
      [
        "verifyV2",
        () =>
          t.buyer.post("/api/v2/email/verify", { email: "ada@example.com" }, { idempotencyKey: newKey() }),
      ],
      [
        "verifyV1",
        () =>
          t.buyer.post(
            "/api/v1/process-email",
            { email: "bo@nowhere-zz.test" },
            { idempotencyKey: newKey() },
          ),
      ],
      [
        "organizationResolve",
        () =>
          t.admin.post(
            "/api/v2/organization/resolve",
            { company_name: "Acme" },
            { idempotencyKey: newKey() },
          ),
      ],
      [
        "organizationDiscover",
        () =>
          t.buyer.post(
            "/api/v2/organization/discover",
            { keyword: "cloud software", result_count: 4, min_similarity_score: 0 },
            { idempotencyKey: newKey() },
          ),
      ],
    ];
    const fell: Record<string, number> = {};
    for (const [operation, step] of steps) {
      const before = await balance();
      expect((await step()).status, operation).toBe(200);
      fell[operation] = before - (await balance());
    }
    expect(fell.organizationResolve).toBe(1);
    expect(fell.organizationDiscover).toBe(4);

    const rows = (await ledger()).filter((e) => TOOLS.has(e.operation));
    expect(rows).toHaveLength(4);
    for (const [operation] of steps) {
      const row = rows.find((e) => e.operation === operation)!;
      expect(row.creditsCharged, operation).toBe(fell[operation]);
      expect(row.outcome, operation).toBe(fell[operation]! > 0 ? "charged" : "free");
      expect(row.creditsEstimated, operation).toBeGreaterThanOrEqual(row.creditsCharged!);
    }
    expect(rows.find((e) => e.operation === "verifyV2")).toMatchObject({
      person: "bo",
      detail: "ada@example.com",
      rows: 1,
    });
    expect(rows.find((e) => e.operation === "organizationResolve")).toMatchObject({
      person: "ada",
      detail: "Name “Acme”",
    });
    expect(rows.find((e) => e.operation === "organizationDiscover")).toMatchObject({
      rows: 4,
      creditsEstimated: 4,
      detail: "Keyword “cloud software”, up to 4 companies",
    });
    // The CSV says what each was for, in words.
    const csv = await t.admin.get("/api/ledger.csv");
    expect(csv.text).toContain("Company search by name");
    expect(csv.text).toContain("ada@example.com");
  });
});

describe("batch verification", () => {
  it("a v2 upload is pending at its start, then charged from its results when its status passes through", async () => {
    const before = await balance();
    const lines = addresses(6, "v2-");
    const started = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: upload("leads.csv", lines),
      idempotencyKey: newKey(),
    });
    expect(started.status).toBe(200);
    const processId = String((started.body as { process_id: number }).process_id);
    const pending = await entryOf("batchV2");
    expect(pending).toMatchObject({
      outcome: "pending",
      creditsEstimated: 6,
      creditsCharged: null,
      detail: "leads.csv: 6 addresses",
    });

    await jobEnded(processId);
    expect((await entryOf("batchV2")).outcome).toBe("pending");
    // The app's poll of the job passes through the proxy: the job is settled from its results, in
    // the background (the poll's answer does not wait for it).
    expect((await t.buyer.get(`/api/v2/jobs/${processId}`)).status).toBe(200);
    await expect.poll(async () => (await entryOf("batchV2")).outcome).toBe("charged");
    const settled = await entryOf("batchV2");
    const fell = before - (await balance());
    expect(fell).toBeGreaterThan(0);
    expect(settled).toMatchObject({ outcome: "charged", creditsCharged: fell, rows: 6 });
    // Seen again: settled once.
    await t.buyer.get(`/api/v2/jobs/${processId}`);
    expect((await ledger()).filter((e) => e.operation === "batchV2")).toHaveLength(1);
  });

  it("a v1 list nobody polls is settled by the proxy's own check", async () => {
    const before = await balance();
    const started = await t.buyer.post(
      "/api/v1/batch-process-email",
      { emails: addresses(4, "v1-") },
      { idempotencyKey: newKey() },
    );
    expect(started.status).toBe(200);
    const processId = (started.body as { process_id: string }).process_id;
    expect(await entryOf("batchV1")).toMatchObject({ outcome: "pending", detail: "A list of 4 addresses" });
    await jobEnded(processId);
    // Another batch claimed long ago by an instance that stopped mid-settle: its row is not this one's.
    const db = t.server.proxy.database.db;
    await db
      .insertInto("verify_purchases")
      .values({
        generation: "v1",
        process_id: "424242",
        purchase_id: "stale-purchase",
        person: "bo",
        credits_estimated: 9,
        state: "settling",
        started_at: sql<Date>`now() - interval '1 hour'` as never,
        claimed_at: sql<Date>`now() - interval '30 minutes'` as never,
      })
      .execute();
    await t.server.proxy.checkSettlements();
    const fell = before - (await balance());
    expect(await entryOf("batchV1")).toMatchObject({ outcome: "charged", creditsCharged: fell, rows: 4 });
    // Left as it was: not claimed with this job, not settled.
    const stale = await db
      .selectFrom("verify_purchases")
      .select(["state", sql<boolean>`claimed_at < now() - interval '20 minutes'`.as("untouched")])
      .where("process_id", "=", "424242")
      .executeTakeFirst();
    expect(stale).toEqual({ state: "settling", untouched: true });
    await db.deleteFrom("verify_purchases").where("process_id", "=", "424242").execute();
  });

  it("an upload that cannot be read (its kind, no addresses) is refused before anything is sent", async () => {
    const uploads = sent("/v2/email/verify/batch");
    const kind = new FormData();
    kind.append("requested_file", new Blob(["a@b.co\n"], { type: "text/plain" }), "list.txt");
    const wrongKind = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: kind,
      idempotencyKey: newKey(),
    });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body).toEqual({ detail: "Only .csv and .json files are accepted" });
    const empty = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: upload("empty.csv", []),
      idempotencyKey: newKey(),
    });
    expect(empty.status).toBe(422);
    expect((empty.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]).toMatchObject({
      loc: ["body", "requested_file"],
      msg: expect.stringContaining("The file contains no email addresses"),
    });
    expect(sent("/v2/email/verify/batch")).toBe(uploads);
  });
});

describe("under the caps", () => {
  afterAll(async () => {
    expect((await putCaps([{ name: "bo", monthlyCap: null, approvalThreshold: null }])).status).toBe(200);
  });

  it("a batch that would pass a cap is refused before anything is sent", async () => {
    expect((await putCaps([{ name: "bo", monthlyCap: 3, approvalThreshold: null }])).status).toBe(200);
    const before = await balance();
    const uploads = sent("/v2/email/verify/batch");
    const refused = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: upload("big.csv", addresses(5, "cap-")),
      idempotencyKey: newKey(),
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "CAP_REACHED" });
    expect((refused.body as { detail: string }).detail).toMatch(
      /may cost up to 5 credits; your monthly cap is 3/,
    );
    expect(sent("/v2/email/verify/batch")).toBe(uploads);
    expect(await balance()).toBe(before);
  });

  it("a discover and an upload above the threshold wait for an admin, then run once (the upload with its file)", async () => {
    expect((await putCaps([{ name: "bo", monthlyCap: null, approvalThreshold: 2 }])).status).toBe(200);
    const before = await balance();
    const discoverKey = newKey();
    const discover = { keyword: "payments", result_count: 3, min_similarity_score: 0 };
    const asked = await t.buyer.post("/api/v2/organization/discover", discover, {
      idempotencyKey: discoverKey,
    });
    expect(asked.status).toBe(202);
    const request = approvalSchema.parse((asked.body as { approvalRequested: unknown }).approvalRequested);
    expect(request).toMatchObject({
      creditsEstimated: 3,
      summary: "Company discovery: Keyword “payments”, up to 3 companies",
    });

    const uploadKey = newKey();
    const lines = addresses(4, "approve-");
    const askedUpload = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: upload("approve-me.csv", lines),
      idempotencyKey: uploadKey,
    });
    expect(askedUpload.status).toBe(202);
    const uploadRequest = approvalSchema.parse(
      (askedUpload.body as { approvalRequested: unknown }).approvalRequested,
    );
    expect(uploadRequest.summary).toBe("Batch email verification: approve-me.csv: 4 addresses");
    expect(sent("/v2/organization/discover")).toBe(1);
    expect(await balance()).toBe(before);

    const uploads = sent("/v2/email/verify/batch");
    expect((await t.admin.post(`/api/approvals/${request.id}/approve`)).status).toBe(200);
    const ranUpload = await t.admin.post(`/api/approvals/${uploadRequest.id}/approve`);
    expect(approvalSchema.parse(ranUpload.body)).toMatchObject({
      state: "ran",
      outcome: "Job started: up to 4 credits, charged as it runs.",
    });
    expect(sent("/v2/organization/discover")).toBe(2);
    expect(sent("/v2/email/verify/batch")).toBe(uploads + 1);

    // The requester's same requests get the answers of the runs; nothing is sent again.
    const mine = await t.buyer.post("/api/v2/organization/discover", discover, {
      idempotencyKey: discoverKey,
    });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("idempotent-replayed")).toBe("true");
    const job = await t.buyer.post("/api/v2/email/verify/batch", undefined, {
      raw: upload("approve-me.csv", lines),
      idempotencyKey: uploadKey,
    });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ filename: "approve-me.csv" });
    expect(sent("/v2/organization/discover")).toBe(2);
    expect(sent("/v2/email/verify/batch")).toBe(uploads + 1);
    // The file the sandbox verified is the one bo uploaded.
    const processId = String((job.body as { process_id: number }).process_id);
    await jobEnded(processId);
    const status = await sandboxCall<{ message: string }>("GET", `/v2/jobs/${processId}`);
    expect(status.message).toMatch(/4 addresses/);
    await t.server.proxy.checkSettlements();
  });
});

describe("the ledger after a mixed session", () => {
  it("its sum equals the sandbox's balance change since the first test, every batch settled", async () => {
    const enrich = await t.buyer.post(
      "/api/v2/contact/enrich",
      { emails: ["someone@example.com"], reveal: "email" },
      { idempotencyKey: newKey() },
    );
    expect(enrich.status).toBe(200);
    await t.server.proxy.checkSettlements();
    const rows = await ledger();
    expect(rows.filter((e) => e.outcome === "pending" || e.outcome === "unknown")).toEqual([]);
    const charged = rows.reduce((sum, e) => sum + (e.creditsCharged ?? 0), 0);
    expect(charged).toBe(atStart - (await balance()));
    expect(new Set(rows.map((e) => e.operation))).toEqual(
      new Set([...TOOLS].filter((op) => op !== "batchUploadV1").concat("enrich")),
    );
  });
});
