/**
 * Shared pieces of the sandbox integration suites: demo keys, polling with a deadline, an RFC 4180
 * reader, the price table as the contract states it, and small request helpers. Every call goes
 * over real HTTP through `api()` of tests/support/sandbox-server.ts.
 */
import { afterEach, expect } from "vitest";
import type { z } from "zod";
import { validationRecordSchema } from "../../../src/contract/errors";
import { PRICE, type Reveal } from "../../../src/contract/inferred";
import { responses } from "../../../src/contract/operations";
import type { SandboxOptions } from "../../../src/sandbox/config";
import {
  type Api,
  type ApiAnswer,
  type SandboxServer,
  startSandboxServer,
} from "../../support/sandbox-server";

export const KEYS = {
  payg: "sbx_payg_demo",
  ayce: "sbx_ayce_demo",
  viewonly: "sbx_viewonly_demo",
  revoked: "sbx_revoked_demo",
} as const;

/** The View's default fields (src/sandbox/README.md, "Columns"). */
export const DEFAULT_VIEW_FIELDS = [
  "RBID_PAO",
  "FULL_NAME_PER",
  "JOB_TITLE_PER",
  "JOB_LEVEL_PER",
  "COMPANY_NAME_ORG",
  "COUNTRY_NAME_PER",
  "hasEmail",
  "hasMobile",
];
/** Full-row default columns before reveal (the View set without the flags). */
export const DEFAULT_FULL_COLUMNS = DEFAULT_VIEW_FIELDS.filter((f) => !f.startsWith("has"));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until `done` holds or the deadline passes (then fails with the last value seen). */
export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${options.what ?? "a condition"}; last: ${JSON.stringify(last)}`,
      );
    await sleep(options.intervalMs ?? 50);
    last = await probe();
  }
  return last;
}

/** Expects a status and parses the body with a schema (so shape errors show the body). */
export function expectOk<S extends z.ZodType>(answer: ApiAnswer, schema: S, status = 200): z.infer<S> {
  expect(answer.status, answer.text).toBe(status);
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success)
    throw new Error(`body does not match its schema: ${parsed.error.message}\n${answer.text}`);
  return parsed.data;
}

/** Expects a 422 whose body is the documented validation record; returns it. */
export function expect422(answer: ApiAnswer) {
  expect(answer.status, answer.text).toBe(422);
  const parsed = validationRecordSchema.safeParse(answer.body);
  if (!parsed.success) throw new Error(`422 body is not a validation record: ${answer.text}`);
  expect(parsed.data.detail.length).toBeGreaterThan(0);
  return parsed.data;
}

/** Expects `{ detail: string }` with the status given. */
export function expectDetail(answer: ApiAnswer, status: number) {
  expect(answer.status, answer.text).toBe(status);
  return expectOk({ ...answer, status }, responses.detail, status);
}

export const revealsEmail = (r: Reveal) => r === "email" || r === "both";
export const revealsMobile = (r: Reveal) => r === "mobile" || r === "both";

/** The contract's PAYG price for delivered rows, computed from the rows themselves. */
export function priceOfRows(rows: readonly Record<string, unknown>[], reveal: Reveal): number {
  let cost = 0;
  for (const row of rows) {
    cost += PRICE.perRow;
    if (revealsEmail(reveal) && row.EMAIL_ADDRESS_PER != null && row.EMAIL_ADDRESS_PER !== "")
      cost += PRICE.perRevealedEmail;
    if (revealsMobile(reveal) && row.CELLPHONE_PER != null && row.CELLPHONE_PER !== "")
      cost += PRICE.perRevealedMobile;
  }
  return cost;
}

export async function creditsOf(client: Api): Promise<number> {
  return expectOk(await client.get("/v2/credits"), responses.credits).credits;
}

export async function countOf(client: Api, filter: unknown): Promise<number> {
  return expectOk(await client.post("/v2/contact/count", { filter }), responses.count).count;
}

/** Waits for an export to leave QUEUED / PROCESSING; returns its final status record. */
export async function waitExport(client: Api, exportId: string, timeoutMs = 30_000) {
  const answer = await until(
    () => client.get(`/v2/contact/export/${exportId}`),
    (a) => a.status !== 200 || !["QUEUED", "PROCESSING"].includes((a.body as { status: string }).status),
    { timeoutMs, what: `export ${exportId}` },
  );
  return expectOk(answer, responses.exportStatus);
}

/** Waits for a v2 verification job to reach one of `statuses`. */
export async function waitJob(
  client: Api,
  processId: number | string,
  statuses: string[],
  timeoutMs = 30_000,
) {
  const answer = await until(
    () => client.get(`/v2/jobs/${processId}`),
    (a) => a.status !== 200 || statuses.includes((a.body as { current_status: string }).current_status),
    { timeoutMs, intervalMs: 100, what: `job ${processId} to reach ${statuses.join("/")}` },
  );
  return expectOk(answer, responses.jobStatusV2);
}

/** RFC 4180: records of fields; quoted fields may hold commas, quotes (doubled) and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (ch === ",") {
      record.push(field);
      field = "";
      fieldStarted = false;
      i++;
      continue;
    }
    if (ch === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      fieldStarted = false;
      i += 2;
      continue;
    }
    if (ch === "\n" || ch === "\r")
      throw new Error(`bare line break at offset ${i}: RFC 4180 ends records with CRLF`);
    field += ch;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new Error("unterminated quoted field");
  if (fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** CSV text as header + objects (empty field -> null, as the contract writes null). */
export function csvObjects(text: string): { header: string[]; rows: Record<string, string | null>[] } {
  const [header = [], ...records] = parseCsv(text);
  for (const record of records) expect(record.length).toBe(header.length);
  return {
    header,
    rows: records.map((r) =>
      Object.fromEntries(header.map((h, i) => [h, r[i] === "" ? null : (r[i] ?? null)])),
    ),
  };
}

/** A condition node. */
export const cond = (column: string, operator: string, extra: Record<string, unknown> = {}) => ({
  type: "condition",
  column,
  operator,
  ...extra,
});
/** A group node. */
export const group = (children: unknown[], extra: Record<string, unknown> = {}) => ({
  type: "group",
  op: "AND",
  children,
  ...extra,
});

/** RBID_PAO values of a View sample. */
export async function sampleIds(client: Api, filter: unknown, limit: number): Promise<string[]> {
  const view = expectOk(await client.post("/v2/contact/view", { filter, limit }), responses.view);
  return view.rows.map((r) => String(r.RBID_PAO));
}

/** Multipart body with one `requested_file`. */
export function upload(name: string, content: string, type = "text/csv"): FormData {
  const form = new FormData();
  form.append("requested_file", new Blob([content], { type }), name);
  return form;
}

/**
 * For tests that stop a sandbox and start another on its data: a `start` whose servers are all
 * closed (newest first) after each test, whether it passed or not.
 */
export function sandboxesClosedAfterEach(): (options?: Partial<SandboxOptions>) => Promise<SandboxServer> {
  const servers: SandboxServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0).reverse()) await s.close();
  });
  return async (options = {}) => {
    const server = await startSandboxServer(options);
    servers.push(server);
    return server;
  };
}
