// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generationMemory } from "../../../../src/app/api/generations";
import { fetchActiveJobs } from "../../../../src/app/features/verify/active-jobs";
import { cancelJob } from "../../../../src/app/features/verify/cancel-job";
import { downloadResults } from "../../../../src/app/features/verify/download-results";
import { fetchJobStatus } from "../../../../src/app/features/verify/job-status";
import { startBatch } from "../../../../src/app/features/verify/start-batch";
import { verifyEmail } from "../../../../src/app/features/verify/verify-email";

/**
 * The endpoint files over a fake fetch: each asks v2 first, falls back to v1 on a 404/405, goes
 * back to v2 on a v1 410, and sends what the proxy needs (x-csrf, Idempotency-Key on spends,
 * multipart `requested_file` uploads).
 */

interface Sent {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  json: unknown;
  form: FormData | null;
}

type Route = (request: Sent) => Response | Promise<Response>;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const notFound = () => json({ detail: "Not Found" }, 404);
const gone = () => json({ detail: "API v1 was retired on 2026-07-07. Use the v2 endpoints." }, 410);

let sent: Sent[] = [];

function install(routes: Record<string, Route>) {
  sent = [];
  const BaseRequest = globalThis.Request;
  // The FormData the app built, as it built it (jsdom's File does not survive Node's serialisation).
  const forms = new WeakMap<Request, FormData>();
  class BrowserRequest extends BaseRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href).href : input, init);
      if (init?.body instanceof FormData) forms.set(this, init.body);
    }
  }
  vi.stubGlobal("Request", BrowserRequest);
  vi.stubGlobal("fetch", async (input: Request) => {
    const url = new URL(input.url);
    const type = input.headers.get("content-type") ?? "";
    const request: Sent = {
      method: input.method,
      path: url.pathname,
      search: url.search,
      headers: input.headers,
      json: type.includes("json") ? await input.clone().json() : null,
      form: type.startsWith("multipart/form-data") ? (forms.get(input) ?? null) : null,
    };
    // Take the body, as a server does: an unread upload body leaves the request hanging here.
    if (request.form) await input.clone().arrayBuffer();
    sent.push(request);
    const route = routes[`${input.method} ${url.pathname}`];
    return route ? route(request) : notFound();
  });
}

beforeEach(() => {
  generationMemory.absent.clear();
  generationMemory.v1Retired = false;
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const processV2 = {
  process_id: 7,
  filename: "list.csv",
  status: "PROCESSING",
  message: "Processing: 3 of 10 addresses verified",
  last_updated: "2026-03-01T10:00:00.000Z",
};

describe("jobs list", () => {
  it("v2 GET /api/v2/jobs, with x-csrf", async () => {
    install({ "GET /api/v2/jobs": () => json({ processes: [processV2] }) });
    expect(await fetchActiveJobs()).toEqual([
      {
        id: "7",
        filename: "list.csv",
        status: "PROCESSING",
        message: "Processing: 3 of 10 addresses verified",
        lastUpdated: "2026-03-01T10:00:00.000Z",
        generation: "v2",
      },
    ]);
    expect(sent[0]!.headers.get("x-csrf")).toBe("1");
  });

  it("v2 absent (404): v1 queued-process; the next call goes straight to v1", async () => {
    install({ "GET /api/v1/queued-process": () => json({ processes: [{ ...processV2, process_id: "7" }] }) });
    expect((await fetchActiveJobs())[0]).toMatchObject({ id: "7", generation: "v1" });
    await fetchActiveJobs();
    expect(sent.map((s) => s.path)).toEqual([
      "/api/v2/jobs",
      "/api/v1/queued-process",
      "/api/v1/queued-process",
    ]);
  });

  it("v2 absent and v1 retired: a readable error", async () => {
    install({ "GET /api/v1/queued-process": gone });
    await expect(fetchActiveJobs()).rejects.toMatchObject({
      message: expect.stringMatching(/neither in API v2/),
    });
  });
});

describe("verify one address", () => {
  it("v2 with ?metadata=true and the Idempotency-Key", async () => {
    install({
      "POST /api/v2/email/verify": () =>
        json({ email: "a@x.com", status: "Valid", domain: "x.com", reason: null }),
    });
    const result = await verifyEmail("a@x.com", "key-12345678");
    expect(result).toEqual({
      generation: "v2",
      result: { email: "a@x.com", status: "Valid", domain: "x.com", reason: null },
    });
    expect(sent[0]!.search).toBe("?metadata=true");
    expect(sent[0]!.json).toEqual({ email: "a@x.com" });
    expect(sent[0]!.headers.get("idempotency-key")).toBe("key-12345678");
  });

  it("v2 absent (405): v1 process-email with the same key", async () => {
    install({
      "POST /api/v2/email/verify": () => json({ detail: "Method Not Allowed" }, 405),
      "POST /api/v1/process-email": () =>
        json({ email: "a@x.com", deliverability: "UNKNOWN", role: false, risk: "MEDIUM" }),
    });
    expect(await verifyEmail("a@x.com", "key-12345678")).toMatchObject({ generation: "v1" });
    expect(sent[1]!.headers.get("idempotency-key")).toBe("key-12345678");
  });

  it("a v2 402 is an answer, shown as it is: no fallback", async () => {
    install({
      "POST /api/v2/email/verify": () => json({ detail: "Not enough credits" }, 402),
    });
    await expect(verifyEmail("a@x.com", "key-12345678")).rejects.toMatchObject({
      kind: "insufficient-credits",
      message: "Not enough credits",
    });
    expect(sent).toHaveLength(1);
  });
});

describe("start a batch", () => {
  it("a pasted list goes to v2 as a one-column CSV upload (requested_file)", async () => {
    install({
      "POST /api/v2/email/verify/batch": () =>
        json({ process_id: 41, filename: "pasted.csv", status: "QUEUED" }),
    });
    const job = await startBatch(
      { kind: "list", addresses: ["a@x.com", "b@x.com"], filename: "pasted.csv" },
      2,
      "key-batch-0001",
    );
    expect(job).toMatchObject({ id: "41", generation: "v2", status: "QUEUED", addresses: 2 });
    const file = sent[0]!.form!.get("requested_file") as File;
    expect(file.name).toBe("pasted.csv");
    expect(await file.text()).toBe("email\r\na@x.com\r\nb@x.com\r\n");
    expect([...sent[0]!.form!.keys()]).toEqual(["requested_file"]);
    expect(sent[0]!.headers.get("idempotency-key")).toBe("key-batch-0001");
  });

  it("v2 absent: a list goes to v1 batch-process-email as JSON; a file to v1 batch-upload", async () => {
    install({
      "POST /api/v1/batch-process-email": () => json({ process_id: "42", status: "QUEUED" }),
      "POST /api/v1/batch-upload": () => json({ process_id: "43", filename: "mine.json", status: "QUEUED" }),
    });
    const fromList = await startBatch(
      { kind: "list", addresses: ["a@x.com"], filename: "p.csv" },
      1,
      "key-batch-0002",
    );
    expect(fromList).toMatchObject({ id: "42", generation: "v1", filename: "p.csv" });
    expect(sent[1]!.json).toEqual({ emails: ["a@x.com"] });
    const file = new File(['["a@x.com"]'], "mine.json", { type: "application/json" });
    const fromFile = await startBatch(
      { kind: "file", name: file.name, type: file.type, text: await file.text() },
      1,
      "key-batch-0003",
    );
    expect(fromFile).toMatchObject({ id: "43", generation: "v1", filename: "mine.json" });
    expect((sent.at(-1)!.form!.get("requested_file") as File).name).toBe("mine.json");
  });
});

describe("status, cancel, download", () => {
  it("status: v2 GET /api/v2/jobs/{id}; v1 GET with ?process_id= when v2 is absent", async () => {
    const status = { process_id: 7, filename: "list.csv", current_status: "COMPLETED", message: "Completed" };
    install({ "GET /api/v2/jobs/7": () => json(status) });
    expect(await fetchJobStatus("7")).toMatchObject({ id: "7", status: "COMPLETED", generation: "v2" });
    install({
      "GET /api/v1/batch-process-email-status": () =>
        json({ ...status, process_id: "7", status: "CANCELLED", current_status: "CANCELLED" }),
    });
    generationMemory.absent.clear();
    expect(await fetchJobStatus("7")).toMatchObject({ status: "CANCELLED", generation: "v1" });
    expect(sent.at(-1)!.search).toBe("?process_id=7");
  });

  it("a v1 410 sends the next call to v2, even when v2 was thought absent", async () => {
    generationMemory.absent.add("jobStatus:v2");
    install({
      "GET /api/v1/batch-process-email-status": gone,
      "GET /api/v2/jobs/7": () =>
        json({ process_id: 7, filename: "l.csv", current_status: "PROCESSING", message: "Processing" }),
    });
    expect(await fetchJobStatus("7")).toMatchObject({ generation: "v2", status: "PROCESSING" });
    expect(generationMemory.v1Retired).toBe(true);
  });

  it("cancel: v2 POST /api/v2/jobs/{id}/cancel without a body", async () => {
    install({
      "POST /api/v2/jobs/7/cancel": () =>
        json({
          process_id: 7,
          filename: "l.csv",
          current_status: "CANCELLING",
          message: "Cancelling after 3 of 10",
        }),
    });
    expect(await cancelJob("7")).toMatchObject({ status: "CANCELLING", generation: "v2" });
    expect(sent[0]!.json).toBeNull();
    expect(sent[0]!.headers.get("x-csrf")).toBe("1");
  });

  it("download: v2's CSV file; v1's JSON turned into the same CSV", async () => {
    // jsdom has no object URLs and does not download: record what would be saved.
    const saved: string[] = [];
    Object.defineProperty(URL, "createObjectURL", { value: () => "blob:fake", configurable: true });
    Object.defineProperty(URL, "revokeObjectURL", { value: () => {}, configurable: true });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      saved.push(this.download);
    });
    install({
      "GET /api/v2/jobs/7/download": () =>
        new Response("email,status,deliverability,role,risk\r\n", {
          headers: {
            "content-type": "text/csv",
            "content-disposition": 'attachment; filename="list-results.csv"',
          },
        }),
    });
    expect(await downloadResults("7", "list.csv")).toMatchObject({ filename: "list-results.csv" });
    install({
      "POST /api/v1/batch-download": () =>
        json([{ email: "a@x.com", deliverability: "DELIVERABLE", role: false, risk: "LOW" }]),
    });
    generationMemory.absent.clear();
    const v1 = await downloadResults("7", "list.csv");
    expect(v1.filename).toBe("list-results.csv");
    expect(v1.bytes).toBe(
      "email,status,deliverability,role,risk\r\na@x.com,Valid,DELIVERABLE,false,LOW\r\n".length,
    );
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      "GET /api/v2/jobs/7/download",
      "POST /api/v1/batch-download",
    ]);
    expect(sent[1]!.json).toEqual({ process_id: "7" });
    expect(saved).toEqual(["list-results.csv", "list-results.csv"]);
    click.mockRestore();
  });
});
