/**
 * Email verification THROUGH THE PROXY, one test per operation the Verify screen uses (v2 first,
 * v1 where v2 is absent): the browser's view of them. What the sandbox itself does with them is
 * tested in tests/integration/sandbox/verification.test.ts; here: bodies, multipart uploads, file
 * downloads and error answers pass through as the app reads them, spends need and honour an
 * Idempotency-Key, and a retired v1 answers 410.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  type Browser,
  browser,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const PROXY_ENV = { UPSTREAM_RATE_PER_MIN: "100000" };

let sandbox: Sandbox;
let sandboxDir: string;
const upstream = recording((request) => sandbox.fetch(request));
let server: ProxyServer;
let api: Browser;
let keyCounter = 0;
/** A fresh Idempotency-Key, as the app makes one per action. */
const freshKey = () => `verify-it-${Date.now()}-${++keyCounter}`;

beforeAll(async () => {
  // 50 addresses a second: small jobs finish in a moment, a 400-address job runs long enough to cancel.
  ({ sandbox, dataDir: sandboxDir } = await startSandbox({ verifyRate: 50 }));
  server = await startProxy(upstream, { env: PROXY_ENV });
  api = browser(server.url);
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
  if (sandboxDir) await rm(sandboxDir, { recursive: true, force: true });
});

async function balance(client: Browser = api): Promise<number> {
  const answer = await client.get<{ credits: number }>("/api/v2/credits");
  expect(answer.status).toBe(200);
  return answer.body.credits;
}

function uploadForm(name: string, content: string, type = "text/csv"): FormData {
  const form = new FormData();
  form.append("requested_file", new Blob([content], { type }), name);
  return form;
}

/** Polls a job's status through the proxy until `done` accepts it (15 s at most). */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

const v2Status = (id: number) =>
  waitFor(
    async () => responses.jobStatusV2.parse((await api.get(`/api/v2/jobs/${id}`)).body),
    (s) => s.current_status === "COMPLETED" || s.current_status === "ERROR",
    `v2 job ${id}`,
  );

/** Header + one record per line, CRLF (the service's CSV). */
function csvLines(text: string): string[] {
  return text.split("\r\n").filter((line) => line !== "");
}

describe("real-time verification through the proxy", () => {
  it("v2 POST /api/v2/email/verify?metadata=true: status plus metadata; 1 credit for a definite answer", async () => {
    const before = await balance();
    const answer = await api.post(
      "/api/v2/email/verify?metadata=true",
      { email: "info@example.com" },
      { idempotencyKey: freshKey() },
    );
    expect(answer.status).toBe(200);
    const result = responses.verifyV2.parse(answer.body) as Record<string, unknown>;
    expect(result).toMatchObject({
      email: "info@example.com",
      status: "Invalid",
      domain: "example.com",
      mx_record_present: false,
      reason: "reserved_domain",
      email_provider: "Unknown",
    });
    expect(typeof result.timestamp).toBe("string");
    expect(await balance()).toBe(before - 1);

    // An unknown answer is free, and without ?metadata the body is the bare status.
    const unknown = await api.post(
      "/api/v2/email/verify",
      { email: "someone@unknown-company-zz.com" },
      { idempotencyKey: freshKey() },
    );
    expect(unknown.body).toEqual({ email: "someone@unknown-company-zz.com", status: "Unknown" });
    expect(await balance()).toBe(before - 1);
  });

  it("v1 POST /api/v1/process-email: the documented {email, deliverability, role, risk}", async () => {
    const answer = await api.post(
      "/api/v1/process-email",
      { email: "sales@example.com" },
      { idempotencyKey: freshKey() },
    );
    expect(answer.status).toBe(200);
    expect(responses.verifyV1.parse(answer.body)).toEqual({
      email: "sales@example.com",
      deliverability: "UNDELIVERABLE",
      role: true,
      risk: "HIGH",
    });
  });

  it("a verification without an Idempotency-Key is refused (428) before it reaches the service", async () => {
    const seen = upstream.seen.length;
    const v2 = await api.post("/api/v2/email/verify", { email: "a@example.com" });
    const v1 = await api.post("/api/v1/process-email", { email: "a@example.com" });
    expect([v2.status, v1.status]).toEqual([428, 428]);
    expect(upstream.seen.length).toBe(seen);
  });

  it("a repeat of a verify call with the same key is replayed and charged once", async () => {
    const before = await balance();
    const key = freshKey();
    const calls = () =>
      upstream.seen.filter((s) => s.path === "/v2/email/verify" && s.body.includes("admin@example.com"))
        .length;
    const upstreamBefore = calls();
    const first = await api.post(
      "/api/v2/email/verify",
      { email: "admin@example.com" },
      { idempotencyKey: key },
    );
    const again = await api.post(
      "/api/v2/email/verify",
      { email: "admin@example.com" },
      { idempotencyKey: key },
    );
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(calls() - upstreamBefore).toBe(1);
    expect(await balance()).toBe(before - 1);

    // The same key with another address is a conflict, not a second charge.
    const other = await api.post(
      "/api/v2/email/verify",
      { email: "other@example.com" },
      { idempotencyKey: key },
    );
    expect(other.status).toBe(409);
    expect(await balance()).toBe(before - 1);
  });

  it("a malformed address is a 422 validation record the app can show", async () => {
    const answer = await api.post(
      "/api/v2/email/verify",
      { email: "not an address" },
      { idempotencyKey: freshKey() },
    );
    expect(answer.status).toBe(422);
    expect((answer.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "email"]);
  });
});

describe("v2 batch through the proxy: upload -> status -> completed -> CSV download", () => {
  it("uploads a CSV (multipart requested_file), follows the job and downloads its CSV", async () => {
    const emails = ["a1@example.com", "b2@unknown-company-zz.com", "not-an-address", "c3@example.com"];
    const key = freshKey();
    const started = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: uploadForm("team-list.csv", `email\r\n${emails.join("\r\n")}\r\n`),
      idempotencyKey: key,
    });
    expect(started.status).toBe(200);
    const job = responses.batchUploadedV2.parse(started.body);
    expect(job.filename).toBe("team-list.csv");
    expect(["QUEUED", "PROCESSING"]).toContain(job.status);

    // A repeat of the upload with the same key is the same job, not a second one.
    const replay = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: uploadForm("team-list.csv", `email\r\n${emails.join("\r\n")}\r\n`),
      idempotencyKey: key,
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(responses.batchUploadedV2.parse(replay.body).process_id).toBe(job.process_id);
    expect(upstream.seen.filter((s) => s.path === "/v2/email/verify/batch")).toHaveLength(1);

    const done = await v2Status(job.process_id);
    expect(done).toMatchObject({
      process_id: job.process_id,
      filename: "team-list.csv",
      current_status: "COMPLETED",
    });
    expect(done.message).toMatch(/4 addresses/);

    const download = await api.get(`/api/v2/jobs/${job.process_id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="team-list-results.csv"');
    const lines = csvLines(download.text);
    expect(lines[0]).toBe("email,status,deliverability,role,risk");
    expect(lines).toHaveLength(emails.length + 1);
    expect(lines[1]).toBe("a1@example.com,Invalid,UNDELIVERABLE,false,HIGH");
  });

  it("a JSON upload is accepted; a .txt upload is a 400 the app must avoid (it sends a CSV instead)", async () => {
    const json = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: uploadForm("list.json", JSON.stringify(["j1@unknown-company-zz.com"]), "application/json"),
      idempotencyKey: freshKey(),
    });
    expect(json.status).toBe(200);
    await v2Status(responses.batchUploadedV2.parse(json.body).process_id);

    const txt = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: uploadForm("list.txt", "t1@unknown-company-zz.com\n", "text/plain"),
      idempotencyKey: freshKey(),
    });
    expect(txt.status).toBe(400);
    expect(txt.body).toEqual({ detail: expect.stringMatching(/\.csv and \.json/) });
  });

  it("the download of a job still running is a 400 not_completed, passed on as { detail }", async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `early${i}@unknown-company-zz.com`);
    const started = responses.batchUploadedV2.parse(
      (
        await api.post("/api/v2/email/verify/batch", undefined, {
          raw: uploadForm("early.csv", emails.join("\n")),
          idempotencyKey: freshKey(),
        })
      ).body,
    );
    const early = await api.get(`/api/v2/jobs/${started.process_id}/download`);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ detail: expect.stringMatching(/^not_completed/) });
    await api.post(`/api/v2/jobs/${started.process_id}/cancel`);
  });
});

describe("v1 batch through the proxy: batch-process-email -> status (GET and POST) -> JSON download", () => {
  it("starts from a JSON list, reads the status both ways, downloads the results as JSON", async () => {
    const emails = ["v1a@example.com", "v1b@unknown-company-zz.com", "support@example.com"];
    const started = await api.post("/api/v1/batch-process-email", { emails }, { idempotencyKey: freshKey() });
    expect(started.status).toBe(200);
    const job = responses.batchStartedV1.parse(started.body);
    expect(typeof job.process_id).toBe("string");

    const viaGet = await waitFor(
      async () =>
        responses.jobStatusV1.parse(
          (await api.get(`/api/v1/batch-process-email-status?process_id=${job.process_id}`)).body,
        ),
      (s) => s.status === "COMPLETED",
      `v1 job ${job.process_id}`,
    );
    expect(viaGet).toMatchObject({
      process_id: job.process_id,
      status: "COMPLETED",
      current_status: "COMPLETED",
    });
    const viaPost = await api.post("/api/v1/batch-process-email-status", { process_id: job.process_id });
    expect(viaPost.status).toBe(200);
    expect(responses.jobStatusV1.parse(viaPost.body)).toEqual(viaGet);

    const download = await api.post("/api/v1/batch-download", { process_id: job.process_id });
    expect(download.status).toBe(200);
    const results = responses.verifyV1Batch.parse(download.body);
    expect(results.map((r) => r.email)).toEqual(emails);
    expect(results[2]).toMatchObject({ role: true });
  });

  it("v1 batch-upload takes the same multipart file and answers a string process_id", async () => {
    const answer = await api.post("/api/v1/batch-upload", undefined, {
      raw: uploadForm("v1-list.csv", "u1@unknown-company-zz.com\r\nu2@unknown-company-zz.com\r\n"),
      idempotencyKey: freshKey(),
    });
    expect(answer.status).toBe(200);
    const job = responses.batchUploadedV1.parse(answer.body);
    expect(job).toMatchObject({ filename: "v1-list.csv" });
    expect(job.process_id).toMatch(/^\d+$/);
    // The same job, seen through v2.
    expect((await v2Status(Number(job.process_id))).filename).toBe("v1-list.csv");
  });

  it("a v1 batch without an Idempotency-Key is a 428", async () => {
    const answer = await api.post("/api/v1/batch-process-email", { emails: ["x@example.com"] });
    expect(answer.status).toBe(428);
  });
});

describe("jobs list and cancel through the proxy", () => {
  it("a running job is listed (v2 jobs and v1 queued-process); cancel -> CANCELLING -> CANCELLED; the results so far download", async () => {
    const emails = Array.from({ length: 400 }, (_, i) => `slow${i}@unknown-company-zz.com`);
    const started = responses.batchUploadedV2.parse(
      (
        await api.post("/api/v2/email/verify/batch", undefined, {
          raw: uploadForm("slow.csv", `email\n${emails.join("\n")}\n`),
          idempotencyKey: freshKey(),
        })
      ).body,
    );
    const id = started.process_id;
    const running = await waitFor(
      async () => responses.jobStatusV2.parse((await api.get(`/api/v2/jobs/${id}`)).body),
      (s) => s.current_status === "PROCESSING" && /\b[1-9]\d* of 400\b/.test(s.message),
      `job ${id} to be processing`,
    );
    expect(running.message).toMatch(/^Processing: \d+ of 400 addresses verified$/);

    const listed = responses.processesV2.parse((await api.get("/api/v2/jobs")).body);
    const entry = listed.processes.find((p) => p.process_id === id);
    expect(entry).toMatchObject({ filename: "slow.csv", status: "PROCESSING" });
    expect(Number.isNaN(Date.parse(entry!.last_updated))).toBe(false);
    const queuedV1 = responses.processesV1.parse((await api.get("/api/v1/queued-process")).body);
    expect(queuedV1.processes.map((p) => p.process_id)).toContain(String(id));

    const cancel = await api.post(`/api/v2/jobs/${id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(["CANCELLING", "CANCELLED"]).toContain(responses.jobStatusV2.parse(cancel.body).current_status);
    const cancelled = await waitFor(
      async () => responses.jobStatusV2.parse((await api.get(`/api/v2/jobs/${id}`)).body),
      (s) => s.current_status === "CANCELLED",
      `job ${id} to be cancelled`,
    );
    expect(cancelled.message).toMatch(/^Cancelled after \d+ of 400 addresses$/);
    const after = responses.processesV2.parse((await api.get("/api/v2/jobs")).body);
    expect(after.processes.map((p) => p.process_id)).not.toContain(id);

    const again = await api.post(`/api/v2/jobs/${id}/cancel`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: expect.stringMatching(/^already_cancelled/) });

    const partial = await api.get(`/api/v2/jobs/${id}/download`);
    expect(partial.status).toBe(200);
    const rows = csvLines(partial.text).slice(1);
    const done = Number(/after (\d+) of/.exec(cancelled.message)![1]);
    expect(rows).toHaveLength(done);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(400);
  });

  it("v1 cancel-process { process_id } answers the status body", async () => {
    const emails = Array.from({ length: 300 }, (_, i) => `v1slow${i}@unknown-company-zz.com`);
    const job = responses.batchStartedV1.parse(
      (await api.post("/api/v1/batch-process-email", { emails }, { idempotencyKey: freshKey() })).body,
    );
    const cancel = await api.post("/api/v1/cancel-process", { process_id: job.process_id });
    expect(cancel.status).toBe(200);
    const body = responses.jobStatusV1.parse(cancel.body);
    expect(body.process_id).toBe(job.process_id);
    expect(["CANCELLING", "CANCELLED"]).toContain(body.status);
    const results = await waitFor(
      () => api.post("/api/v1/batch-download", { process_id: job.process_id }),
      (a) => a.status === 200,
      "the v1 download of a cancelled job",
    );
    expect(responses.verifyV1Batch.parse(results.body).length).toBeLessThan(emails.length);
  });

  it("a job id that is not an integer is refused by the proxy (422) on the v2 paths", async () => {
    const answer = await api.get("/api/v2/jobs/abc");
    expect(answer.status).toBe(422);
  });
});

describe("v1 retired (SANDBOX_V1_RETIRED): 410 passes through; v2 still answers", () => {
  let retired: { sandbox: Sandbox; dataDir: string };
  let retiredServer: ProxyServer;
  let client: Browser;
  beforeAll(async () => {
    retired = await startSandbox({ v1Retired: true });
    retiredServer = await startProxy((request) => retired.sandbox.fetch(request), { env: PROXY_ENV });
    client = browser(retiredServer.url);
  });
  afterAll(async () => {
    await retiredServer?.close();
    await retired?.sandbox.close();
    if (retired) await rm(retired.dataDir, { recursive: true, force: true });
  });

  it("every v1 verification path answers 410 { detail }, v2 works", async () => {
    const answers = [
      await client.post("/api/v1/process-email", { email: "a@example.com" }, { idempotencyKey: freshKey() }),
      await client.post(
        "/api/v1/batch-process-email",
        { emails: ["a@example.com"] },
        { idempotencyKey: freshKey() },
      ),
      await client.get("/api/v1/queued-process"),
      await client.get("/api/v1/batch-process-email-status?process_id=1"),
      await client.post("/api/v1/batch-download", { process_id: "1" }),
      await client.post("/api/v1/cancel-process", { process_id: "1" }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(410);
      expect(answer.body).toEqual({ detail: expect.stringMatching(/retired/) });
    }
    const v2 = await client.post(
      "/api/v2/email/verify",
      { email: "someone@unknown-company-zz.com" },
      { idempotencyKey: freshKey() },
    );
    expect(v2.status).toBe(200);
    expect((await client.get("/api/v2/jobs")).status).toBe(200);
  });
});
