/**
 * Email verification: the documented v1 table ("Email verification (v1)", "Batch job (v1)", "States and
 * transitions"), the public docs' v2 endpoints and our inferred choices (price, statuses, CSV download,
 * process ids shared by v1 and v2, persistence across restarts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responses } from "../../../src/contract/operations";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import {
  cond,
  creditsOf,
  csvObjects,
  expect422,
  expectDetail,
  expectOk,
  group,
  KEYS,
  sampleIds,
  sleep,
  until,
  upload,
  waitJob,
} from "./helpers";

type V1Result = { email: string; deliverability: string; role: boolean; risk: string };
const DEFINITE = new Set(["DELIVERABLE", "UNDELIVERABLE"]);

let server: SandboxServer;
let payg: ReturnType<typeof api>;
/** Addresses that exist in the dataset, and a company domain of it. */
let known: string[];
let datasetDomain: string;

/** Dataset addresses, read through a free (AYCE) enrich with reveal email. */
async function datasetEmails(url: string, n: number): Promise<string[]> {
  const client = api(url, KEYS.ayce);
  const ids = await sampleIds(client, group([cond("EMAIL_ADDRESS_PER", "isNotNull")]), n);
  const enrich = expectOk(
    await client.post("/v2/contact/enrich", { personIds: ids, reveal: "email" }),
    responses.enrich,
  );
  return enrich.rows.map((r) => String(r.EMAIL_ADDRESS_PER));
}

beforeAll(async () => {
  server = await startSandboxServer();
  payg = api(server.url, KEYS.payg);
  known = await datasetEmails(server.url, 20);
  expect(known).toHaveLength(20);
  datasetDomain = known[0]!.split("@")[1]!;
});
afterAll(async () => {
  await server?.close();
});

/** Waits for a v1 job through GET ?process_id=. */
async function waitV1(client: ReturnType<typeof api>, processId: string, statuses: string[]) {
  const answer = await until(
    () => client.get(`/v1/batch-process-email-status?process_id=${processId}`),
    (a) => a.status !== 200 || statuses.includes((a.body as { status: string }).status),
    { timeoutMs: 30_000, intervalMs: 50, what: `v1 job ${processId}` },
  );
  return expectOk(answer, responses.jobStatusV1);
}

describe("v1 POST /v1/process-email: the documented result {email, deliverability, role, risk}", () => {
  it("a dataset address is DELIVERABLE, LOW risk, and costs 1 credit", async () => {
    const before = await creditsOf(payg);
    const answer = await payg.post("/v1/process-email", { email: known[0] });
    const result = expectOk(answer, responses.verifyV1);
    expect(Object.keys(answer.body as object).sort()).toEqual(["deliverability", "email", "risk", "role"]);
    expect(result).toEqual({ email: known[0], deliverability: "DELIVERABLE", role: false, risk: "LOW" });
    expect(await creditsOf(payg)).toBe(before - 1);
  });

  it("matching ignores case", async () => {
    const result = expectOk(
      await payg.post("/v1/process-email", { email: known[1]!.toUpperCase() }),
      responses.verifyV1,
    );
    expect(result.deliverability).toBe("DELIVERABLE");
  });

  it("role addresses are flagged role: true and are never LOW risk", async () => {
    for (const email of [
      `info@${datasetDomain}`,
      "support@gmail.com",
      "admin@unknown-company-zz.com",
      "sales@example.com",
    ]) {
      const result = expectOk(await payg.post("/v1/process-email", { email }), responses.verifyV1);
      expect(result.role, email).toBe(true);
      expect(result.risk, email).not.toBe("LOW");
    }
    const person = expectOk(
      await payg.post("/v1/process-email", { email: "jane.doe@gmail.com" }),
      responses.verifyV1,
    );
    expect(person.role).toBe(false);
  });

  it("only definite answers (DELIVERABLE / UNDELIVERABLE) cost a credit; UNKNOWN is free", async () => {
    const cases = [
      known[2]!,
      "not-an-address",
      "someone@example.com",
      "someone@unknown-company-zz.com",
      "someone@gmail.com",
      `nobody.here.${Date.now()}@${datasetDomain}`,
    ];
    for (const email of cases) {
      const before = await creditsOf(payg);
      const result = expectOk(await payg.post("/v1/process-email", { email }), responses.verifyV1);
      const after = await creditsOf(payg);
      expect(before - after, `${email} -> ${result.deliverability}`).toBe(
        DEFINITE.has(result.deliverability) ? 1 : 0,
      );
    }
    const invalid = expectOk(
      await payg.post("/v1/process-email", { email: "not-an-address" }),
      responses.verifyV1,
    );
    expect(invalid.deliverability).toBe("UNDELIVERABLE");
    const unknown = expectOk(
      await payg.post("/v1/process-email", { email: "someone@unknown-company-zz.com" }),
      responses.verifyV1,
    );
    expect(unknown.deliverability).toBe("UNKNOWN");
  });

  it("a missing email is a 422", async () => {
    expect422(await payg.post("/v1/process-email", {}));
    expect422(await payg.post("/v1/process-email", { email: 42 }));
  });
});

describe("v2 POST /v2/email/verify (public docs): {email, status}; ?metadata=true adds facts", () => {
  it("Valid / Invalid / Unknown map from DELIVERABLE / UNDELIVERABLE / UNKNOWN, priced the same", async () => {
    const cases: [string, string, number][] = [
      [known[3]!, "Valid", 1],
      ["someone@example.com", "Invalid", 1],
      ["someone@unknown-company-zz.com", "Unknown", 0],
    ];
    for (const [email, status, price] of cases) {
      const before = await creditsOf(payg);
      const answer = await payg.post("/v2/email/verify", { email });
      const result = expectOk(answer, responses.verifyV2);
      expect(Object.keys(answer.body as object).sort()).toEqual(["email", "status"]);
      expect(result).toEqual({ email, status });
      expect(before - (await creditsOf(payg))).toBe(price);
    }
  });

  it("?metadata=true adds domain, timestamp, MX facts, provider and reason", async () => {
    const answer = await payg.post("/v2/email/verify?metadata=true", { email: known[4] });
    const result = expectOk(answer, responses.verifyV2) as Record<string, unknown>;
    expect(result.status).toBe("Valid");
    expect(result.domain).toBe(known[4]!.split("@")[1]);
    expect(Number.isNaN(Date.parse(String(result.timestamp)))).toBe(false);
    for (const key of ["mx_record_present", "email_provider", "reason"]) expect(result).toHaveProperty(key);
    const unknown = expectOk(
      await payg.post("/v2/email/verify?metadata=true", { email: "a@unknown-company-zz.com" }),
      responses.verifyV2,
    ) as Record<string, unknown>;
    expect(unknown.status).toBe("Unknown");
    expect(typeof unknown.reason).toBe("string");
  });

  it("422 for a malformed address or a bad metadata value", async () => {
    expect422(await payg.post("/v2/email/verify", { email: "no at sign" }));
    expect422(await payg.post("/v2/email/verify?metadata=maybe", { email: known[0] }));
  });
});

describe("v1 batch: batch-process-email -> status (GET ?process_id= and POST {process_id}) -> COMPLETED -> batch-download", () => {
  it("a batch completes; the download lists every address in the real-time format; priced per definite answer", async () => {
    const emails = [...known.slice(5, 15), "bad address", "x@unknown-company-zz.com", "info@example.org"];
    const singles: V1Result[] = [];
    for (const email of emails)
      singles.push(
        expectOk(await api(server.url, KEYS.ayce).post("/v1/process-email", { email }), responses.verifyV1),
      );
    const before = await creditsOf(payg);
    const started = expectOk(
      await payg.post("/v1/batch-process-email", { emails }),
      responses.batchStartedV1,
    );
    expect(started.process_id).toMatch(/^\d+$/);
    expect(["QUEUED", "PROCESSING", "COMPLETED"]).toContain(started.status);

    const done = await waitV1(payg, started.process_id, ["COMPLETED", "ERROR"]);
    expect(done.status).toBe("COMPLETED");
    expect(done.current_status).toBe("COMPLETED");
    expect(done.process_id).toBe(started.process_id);
    const viaPost = expectOk(
      await payg.post("/v1/batch-process-email-status", { process_id: started.process_id }),
      responses.jobStatusV1,
    );
    expect(viaPost).toEqual(done);

    const download = expectOk(
      await payg.post("/v1/batch-download", { process_id: started.process_id }),
      responses.verifyV1Batch,
    );
    expect(download).toEqual(singles);
    const definite = download.filter((r) => DEFINITE.has(r.deliverability)).length;
    expect(before - (await creditsOf(payg))).toBe(definite);
  });

  it("1 to 10,000 addresses: an empty list is a 422; process_id must be a string in v1", async () => {
    expect422(await payg.post("/v1/batch-process-email", { emails: [] }));
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `n${i}@unknown-company-zz.com`);
    expect422(await payg.post("/v1/batch-process-email", { emails: tooMany }));
    expect422(await payg.post("/v1/batch-process-email-status", { process_id: 1001 }));
  });

  it("an unknown process_id is a 400 {detail}", async () => {
    expectDetail(await payg.get("/v1/batch-process-email-status?process_id=999999"), 400);
    expectDetail(await payg.post("/v1/batch-download", { process_id: "999999" }), 400);
  });

  it("another account cannot see the job", async () => {
    const started = expectOk(
      await payg.post("/v1/batch-process-email", { emails: [known[0]] }),
      responses.batchStartedV1,
    );
    expectDetail(
      await api(server.url, KEYS.ayce).get(`/v1/batch-process-email-status?process_id=${started.process_id}`),
      400,
    );
    expectDetail(await api(server.url, KEYS.ayce).get(`/v2/jobs/${started.process_id}`), 400);
  });
});

describe("v1 POST /v1/batch-upload (multipart requested_file): .csv with header, .json; bad extension 400; empty 422", () => {
  it("a CSV with a header row: the header is not an address; every row gets one result", async () => {
    const rows = known.slice(0, 5);
    const csv = `email,name\r\n${rows.map((e, i) => `${e},Person ${i}`).join("\r\n")}\r\n`;
    const answer = await payg.post("/v1/batch-upload", undefined, { raw: upload("people.csv", csv) });
    const started = expectOk(answer, responses.batchUploadedV1);
    expect(started.filename).toBe("people.csv");
    expect(started.process_id).toMatch(/^\d+$/);
    await waitV1(payg, started.process_id, ["COMPLETED"]);
    const results = expectOk(
      await payg.post("/v1/batch-download", { process_id: started.process_id }),
      responses.verifyV1Batch,
    );
    expect(results.map((r) => r.email)).toEqual(rows);
    expect(results.every((r) => r.deliverability === "DELIVERABLE")).toBe(true);
  });

  it("a JSON list is accepted too", async () => {
    const answer = await payg.post("/v1/batch-upload", undefined, {
      raw: upload("list.json", JSON.stringify(known.slice(0, 3)), "application/json"),
    });
    const started = expectOk(answer, responses.batchUploadedV1);
    await waitV1(payg, started.process_id, ["COMPLETED"]);
  });

  it("a bad extension is a 400 {detail}; an empty file is a 422; nothing is charged", async () => {
    const before = await creditsOf(payg);
    expectDetail(
      await payg.post("/v1/batch-upload", undefined, { raw: upload("people.txt", `${known[0]}\r\n`) }),
      400,
    );
    expectDetail(
      await payg.post("/v2/email/verify/batch", undefined, { raw: upload("people.xlsx", "x") }),
      400,
    );
    const empty = expect422(await payg.post("/v1/batch-upload", undefined, { raw: upload("empty.csv", "") }));
    expect(empty.detail[0]!.loc).toEqual(["body", "requested_file"]);
    expect422(
      await payg.post("/v1/batch-upload", undefined, { raw: upload("header-only.csv", "email\r\n") }),
    );
    expect(await creditsOf(payg)).toBe(before);
  });
});

describe("v2 jobs (public docs): verify/batch, /v2/jobs, /v2/jobs/{id}, cancel, download CSV", () => {
  it("POST /v2/email/verify/batch answers an integer process_id; the job completes; the CSV download", async () => {
    const emails = [known[6]!, "nope", "x@unknown-company-zz.com", "=cmd@example.com"];
    const answer = await payg.post("/v2/email/verify/batch", undefined, {
      raw: upload("list.csv", `${emails.join("\r\n")}\r\n`),
    });
    const started = expectOk(answer, responses.batchUploadedV2);
    expect(Number.isInteger(started.process_id)).toBe(true);
    expect(started.filename).toBe("list.csv");
    const done = await waitJob(payg, started.process_id, ["COMPLETED", "ERROR"]);
    expect(done).toMatchObject({
      process_id: started.process_id,
      filename: "list.csv",
      current_status: "COMPLETED",
    });
    expect(typeof done.message).toBe("string");

    const download = await payg.get(`/v2/jobs/${started.process_id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(download.headers.get("content-disposition")).toMatch(/filename=".+"/);
    expect(download.text.split("\r\n")[0]).toBe("email,status,deliverability,role,risk");
    const csv = csvObjects(download.text);
    expect(csv.rows).toHaveLength(emails.length);
    const statusOf = { DELIVERABLE: "Valid", UNDELIVERABLE: "Invalid", UNKNOWN: "Unknown" } as Record<
      string,
      string
    >;
    for (const row of csv.rows) {
      expect(statusOf[String(row.deliverability)]).toBe(row.status);
      expect(["true", "false"]).toContain(row.role);
      expect(["LOW", "MEDIUM", "HIGH"]).toContain(row.risk);
    }
    expect(csv.rows[0]).toMatchObject({ email: known[6], status: "Valid", deliverability: "DELIVERABLE" });
    expect(csv.rows[1]).toMatchObject({ email: "nope", status: "Invalid" });
    expect(csv.rows[2]).toMatchObject({ email: "x@unknown-company-zz.com", status: "Unknown" });

    // Completed: not cancellable; not in the active lists.
    const cancel = expectDetail(await payg.post(`/v2/jobs/${started.process_id}/cancel`), 400);
    expect(cancel.detail).toMatch(/not_cancellable/);
    const jobs = expectOk(await payg.get("/v2/jobs"), responses.processesV2);
    expect(jobs.processes.map((p) => p.process_id)).not.toContain(started.process_id);
  });

  it("the v1 process_id is the decimal string of the v2 integer id (same jobs)", async () => {
    const v1 = expectOk(
      await payg.post("/v1/batch-process-email", { emails: [known[7]] }),
      responses.batchStartedV1,
    );
    const asV2 = await waitJob(payg, Number(v1.process_id), ["COMPLETED"]);
    expect(String(asV2.process_id)).toBe(v1.process_id);
    const v2 = expectOk(
      await payg.post("/v2/email/verify/batch", undefined, { raw: upload("one.csv", `${known[8]}\r\n`) }),
      responses.batchUploadedV2,
    );
    const asV1 = await waitV1(payg, String(v2.process_id), ["COMPLETED"]);
    expect(asV1.process_id).toBe(String(v2.process_id));
    expect(asV1.filename).toBe("one.csv");
    const v1Results = expectOk(
      await payg.post("/v1/batch-download", { process_id: String(v2.process_id) }),
      responses.verifyV1Batch,
    );
    expect(v1Results).toEqual([{ email: known[8], deliverability: "DELIVERABLE", role: false, risk: "LOW" }]);
  });

  it("a non-integer id is a 422; an unknown one a 400", async () => {
    expect422(await payg.get("/v2/jobs/12ab"));
    expectDetail(await payg.get("/v2/jobs/424242"), 400);
    expectDetail(await payg.post("/v2/jobs/424242/cancel"), 400);
  });
});

describe("Jobs in progress (verifyRate 20): queued lists, not_completed, cancel -> CANCELLING/CANCELLED", () => {
  let slow: SandboxServer;
  let client: ReturnType<typeof api>;
  beforeAll(async () => {
    slow = await startSandboxServer({ verifyRate: 20 });
    client = api(slow.url, KEYS.payg);
  });
  afterAll(async () => {
    await slow?.close();
  });

  it("v1: queued-process lists only active jobs; cancel-process stops the job and keeps results so far", async () => {
    const emails = Array.from({ length: 150 }, (_, i) => `person${i}@unknown-company-zz.com`);
    const started = expectOk(
      await client.post("/v1/batch-process-email", { emails }),
      responses.batchStartedV1,
    );
    const running = await waitV1(client, started.process_id, ["PROCESSING"]);
    expect(running.status).toBe("PROCESSING");
    const queued = expectOk(await client.get("/v1/queued-process"), responses.processesV1);
    expect(queued.processes.map((p) => p.process_id)).toContain(started.process_id);
    for (const p of queued.processes) expect(["QUEUED", "PROCESSING"]).toContain(p.status);
    const v2List = expectOk(await client.get("/v2/jobs"), responses.processesV2);
    expect(v2List.processes.map((p) => String(p.process_id))).toContain(started.process_id);

    // Not completed yet: download is a 400 not_completed on v1 and v2.
    const early = expectDetail(
      await client.post("/v1/batch-download", { process_id: started.process_id }),
      400,
    );
    expect(early.detail).toMatch(/not_completed/);
    const earlyV2 = expectDetail(await client.get(`/v2/jobs/${started.process_id}/download`), 400);
    expect(earlyV2.detail).toMatch(/not_completed/);

    const cancel = expectOk(
      await client.post("/v1/cancel-process", { process_id: started.process_id }),
      responses.jobStatusV1,
    );
    expect(["CANCELLING", "CANCELLED"]).toContain(cancel.status);
    const cancelled = await waitV1(client, started.process_id, ["CANCELLED"]);
    expect(cancelled.status).toBe("CANCELLED");
    const listed = expectOk(await client.get("/v1/queued-process"), responses.processesV1);
    expect(listed.processes.map((p) => p.process_id)).not.toContain(started.process_id);

    const sofar = expectOk(
      await client.post("/v1/batch-download", { process_id: started.process_id }),
      responses.verifyV1Batch,
    );
    expect(sofar.length).toBeGreaterThan(0);
    expect(sofar.length).toBeLessThan(emails.length);
    expect(sofar.map((r) => r.email)).toEqual(emails.slice(0, sofar.length));
    // It stays stopped.
    await sleep(500);
    const later = expectOk(
      await client.post("/v1/batch-download", { process_id: started.process_id }),
      responses.verifyV1Batch,
    );
    expect(later).toHaveLength(sofar.length);
    const again = expectDetail(
      await client.post("/v1/cancel-process", { process_id: started.process_id }),
      400,
    );
    expect(again.detail).toMatch(/already_cancelled/);
  });

  it("v2: cancel -> CANCELLED; already_cancelled on a second cancel; the CSV of results so far", async () => {
    const emails = Array.from({ length: 120 }, (_, i) => `p${i}@unknown-company-zz.com`);
    const started = expectOk(
      await client.post("/v2/email/verify/batch", undefined, {
        raw: upload("slow.csv", `email\r\n${emails.join("\r\n")}\r\n`),
      }),
      responses.batchUploadedV2,
    );
    await waitJob(client, started.process_id, ["PROCESSING"]);
    const earlyDownload = expectDetail(await client.get(`/v2/jobs/${started.process_id}/download`), 400);
    expect(earlyDownload.detail).toMatch(/not_completed/);
    const cancel = expectOk(
      await client.post(`/v2/jobs/${started.process_id}/cancel`),
      responses.jobStatusV2,
    );
    expect(["CANCELLING", "CANCELLED"]).toContain(cancel.current_status);
    const twice = expectDetail(await client.post(`/v2/jobs/${started.process_id}/cancel`), 400);
    expect(twice.detail).toMatch(/already_cancelled/);
    await waitJob(client, started.process_id, ["CANCELLED"]);
    const download = await client.get(`/v2/jobs/${started.process_id}/download`);
    expect(download.status).toBe(200);
    const csv = csvObjects(download.text);
    expect(csv.header).toEqual(["email", "status", "deliverability", "role", "risk"]);
    expect(csv.rows.length).toBeLessThan(emails.length);
    expect(csv.rows.map((r) => r.email)).toEqual(emails.slice(0, csv.rows.length));
  });

  it("a queued job waits behind a running one and is listed as QUEUED", async () => {
    const first = expectOk(
      await client.post("/v1/batch-process-email", {
        emails: Array.from({ length: 60 }, (_, i) => `a${i}@unknown-company-zz.com`),
      }),
      responses.batchStartedV1,
    );
    const second = expectOk(
      await client.post("/v1/batch-process-email", { emails: ["b@unknown-company-zz.com"] }),
      responses.batchStartedV1,
    );
    await waitV1(client, first.process_id, ["PROCESSING"]);
    const list = expectOk(await client.get("/v2/jobs"), responses.processesV2);
    const entry = list.processes.find((p) => String(p.process_id) === second.process_id);
    expect(entry?.status).toBe("QUEUED");
    for (const p of list.processes) expect(Number.isNaN(Date.parse(p.last_updated))).toBe(false);
    for (const id of [first.process_id, second.process_id])
      await client.post("/v1/cancel-process", { process_id: id });
  });
});

describe("A batch job survives a sandbox restart mid-run (INFERRED: jobs persist in the data folder)", () => {
  it("200 addresses at 20/s: closed after ~2 s, reopened: completes; one result per address; charged exactly the definite ones", async () => {
    let slow = await startSandboxServer({ verifyRate: 20 });
    try {
      const dataset = await datasetEmails(slow.url, 70);
      expect(dataset).toHaveLength(70);
      const emails = Array.from({ length: 200 }, (_, i) =>
        i % 3 === 0 && dataset[i / 3]
          ? dataset[i / 3]!
          : i % 3 === 1
            ? `broken-${i}`
            : `u${i}@unknown-company-zz.com`,
      );
      expect(new Set(emails).size).toBe(200);
      let client = api(slow.url, KEYS.payg);
      const before = await creditsOf(client);
      const started = expectOk(
        await client.post("/v1/batch-process-email", { emails }),
        responses.batchStartedV1,
      );
      await sleep(2_000);
      const midway = await waitV1(client, started.process_id, ["PROCESSING"]);
      expect(midway.status).toBe("PROCESSING");
      await slow.close({ keepData: true });

      slow = await startSandboxServer({ verifyRate: 20, dataDir: slow.dataDir });
      client = api(slow.url, KEYS.payg);
      const resumed = expectOk(
        await client.get(`/v1/batch-process-email-status?process_id=${started.process_id}`),
        responses.jobStatusV1,
      );
      expect(["QUEUED", "PROCESSING"]).toContain(resumed.status);
      const done = await waitV1(client, started.process_id, ["COMPLETED", "ERROR"]);
      expect(done.status).toBe("COMPLETED");

      const results = expectOk(
        await client.post("/v1/batch-download", { process_id: started.process_id }),
        responses.verifyV1Batch,
      );
      expect(results).toHaveLength(200);
      expect(results.map((r) => r.email)).toEqual(emails);
      const definite = results.filter((r) => DEFINITE.has(r.deliverability)).length;
      expect(definite).toBe(67 + 67); // dataset addresses + broken ones
      expect(before - (await creditsOf(client))).toBe(definite);
    } finally {
      await slow.close();
    }
  });
});
