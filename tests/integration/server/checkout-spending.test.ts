/**
 * Checkout through the proxy over the real sandbox, on the PAYG demo key, with the sandbox's own
 * balance read after every step: an export is started once per Idempotency-Key however often (and
 * however concurrently) it is sent, charged exactly its estimate once, on completion, and a cancel
 * charges nothing; enrich charges once for duplicates and for a request whose browser went away
 * before the answer; downloads are free, survive an interruption, refuse an unfinished export in
 * words, and are paced by the browser (a reader that stops holds the upstream back, one that
 * leaves cancels it); with `?headers=labels` (the proxy's own parameter, never sent on) the header
 * row is in labels and the rest byte for byte the service's. A 402 arrives intact and charges nothing; AYCE exports cost nothing.
 * The journal surviving a proxy restart is idempotency.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvHeaders, getColumn } from "../../../src/contract/columns";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  type Browser,
  browser,
  sandboxCall as callSandbox,
  fakeUpstream,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const PAYG = "sbx_payg_demo";
const AYCE = "sbx_ayce_demo";
/** Polling an export's status must never wait on the proxy's own rate shaper. */
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };

const germany = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

let sandbox: Sandbox;
/** Set by a test to hold the sandbox's enrich answer (already charged) until it says so. */
let holdEnrich: { answered: () => void; release: Promise<void> } | null = null;
const upstream = recording(async (request) => {
  const response = await sandbox.fetch(request);
  const hold = holdEnrich;
  if (hold && new URL(request.url).pathname === "/v2/contact/enrich") {
    holdEnrich = null;
    hold.answered();
    await hold.release;
  }
  return response;
});
const upstreamCalls = (pathname: string) => upstream.seen.filter((s) => s.path === pathname).length;

let payg: ProxyServer;
let ayce: ProxyServer;
let api: Browser;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  // These tests are about the journal and the charges of each purchase: nothing is served from the
  // team's store (an earlier export's rows would make a randomly sampled person free: see
  // owned-ledger.test.ts and exports-owned.test.ts for that).
  const env = { ...FAST, OWNED_RETENTION_DAYS: "0" };
  payg = await startProxy(upstream, { env: { SANDBOX_KEY: PAYG, ...env } });
  ayce = await startProxy(upstream, { env: { SANDBOX_KEY: AYCE, ...env } });
  api = browser(payg.url);
});
afterAll(async () => {
  await payg?.close();
  await ayce?.close();
  await sandbox?.close();
});

/** Straight to the sandbox with a key: the proxy is not trusted to report what it spends. */
const sandboxCall = <T>(key: string, method: string, pathname: string, body?: unknown) =>
  callSandbox<T>(sandbox, key, method, pathname, body);

const balance = async (key = PAYG) =>
  (await sandboxCall<{ credits: number }>(key, "GET", "/v2/credits")).credits;
const exportIds = async (key = PAYG) =>
  (await sandboxCall<{ exports: { exportId: string }[] }>(key, "GET", "/v2/contact/exports")).exports.map(
    (e) => e.exportId,
  );

interface ExportStatus {
  exportId: string;
  status: string;
  rows: number;
  credits: number;
}

async function waitFor(client: Browser, exportId: string, wanted: string[]): Promise<ExportStatus> {
  for (let i = 0; i < 400; i++) {
    const answer = await client.get<ExportStatus>(`/api/v2/contact/export/${exportId}`);
    expect(answer.status).toBe(200);
    if (wanted.includes(answer.body.status)) return answer.body;
    await sleep(25);
  }
  throw new Error(`export ${exportId} never reached ${wanted.join(" or ")}`);
}

/** A started export that is still QUEUED: the sandbox runs one at a time, so one runs ahead of it. */
async function queueBehindBlocker() {
  await sandboxCall(AYCE, "POST", "/v2/contact/export", { filter: null, maxRows: 50_000, reveal: "both" });
}

describe("export start", () => {
  it("starts once per key: 5 concurrent sends and a later one get the same exportId, charged the estimate once on completion", async () => {
    const body = { filter: germany, maxRows: 100, reveal: "email", name: "Germany 100" };
    const before = await balance();
    const exportsBefore = await exportIds();
    const estimate = await api.post<{ credits: number; rows: number; balance: number; sufficient: boolean }>(
      "/api/v2/contact/export/estimate",
      { filter: body.filter, maxRows: body.maxRows, reveal: body.reveal },
    );
    expect(estimate.status).toBe(200);
    expect(estimate.body).toMatchObject({ rows: 100, balance: before, sufficient: true });
    expect(estimate.body.credits).toBeGreaterThan(100); // rows plus revealed emails

    const key = "checkout-export-0001";
    const startCalls = upstreamCalls("/v2/contact/export");
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        api.post<{ exportId: string; credits: number }>("/api/v2/contact/export", body, {
          idempotencyKey: key,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    const replayed = answers.filter((a) => a.headers.get("idempotent-replayed") === "true");
    expect(replayed).toHaveLength(4); // the one that reached the sandbox is not a replay
    const { exportId, credits } = answers[0]!.body;
    expect(credits).toBe(estimate.body.credits);
    expect(upstreamCalls("/v2/contact/export")).toBe(startCalls + 1);

    const done = await waitFor(api, exportId, ["COMPLETED", "ERROR"]);
    expect(done).toMatchObject({ status: "COMPLETED", rows: 100, credits: estimate.body.credits });
    expect(await balance()).toBe(before - estimate.body.credits);

    // Sent again after completion: the same answer, no second export, no second charge.
    const later = await api.post("/api/v2/contact/export", body, { idempotencyKey: key });
    expect(later.status).toBe(202);
    expect(later.text).toBe(answers[0]!.text);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(upstreamCalls("/v2/contact/export")).toBe(startCalls + 1);
    const exportsAfter = await exportIds();
    expect(exportsAfter.filter((id) => !exportsBefore.includes(id))).toEqual([exportId]);
    const listed = await api.get<{ exports: ExportStatus[] }>("/api/v2/contact/exports");
    expect(listed.body.exports.filter((e) => e.exportId === exportId)).toHaveLength(1);
    expect(await balance()).toBe(before - estimate.body.credits);
  });

  it("charges nothing for a cancelled export, and refuses its download in words (409) before and after", async () => {
    await queueBehindBlocker();
    const before = await balance();
    const started = await api.post<{ exportId: string; credits: number }>(
      "/api/v2/contact/export",
      { filter: germany, maxRows: 300, reveal: "none" },
      { idempotencyKey: "checkout-cancel-0001" },
    );
    expect(started.status).toBe(202);
    expect(started.body.credits).toBe(300);
    const { exportId } = started.body;

    const early = await api.get(`/api/v2/contact/export/${exportId}/download`);
    expect(early.status).toBe(409);
    expect(early.headers.get("content-type")).toMatch(/^application\/json/);
    expect(early.body).toEqual({
      detail: expect.stringMatching(/^The export is (QUEUED|PROCESSING); .*COMPLETED/),
    });

    const cancelled = await api.post<ExportStatus>(`/api/v2/contact/export/${exportId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("CANCELLED");
    // Once the export ahead of it has finished, it is still cancelled and nothing was taken.
    await waitFor(browser(ayce.url), (await exportIds(AYCE))[0]!, ["COMPLETED"]);
    expect((await waitFor(api, exportId, ["CANCELLED", "COMPLETED"])).status).toBe("CANCELLED");
    expect(await balance()).toBe(before);
    const late = await api.get(`/api/v2/contact/export/${exportId}/download`);
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: expect.stringContaining("CANCELLED") });
  });

  it("passes a 402 on with { detail, code, required, balance } intact, and charges nothing", async () => {
    const before = await balance();
    const exportsBefore = await exportIds();
    const body = { filter: null, maxRows: 50_000, reveal: "both" };
    const estimate = await api.post<{ credits: number; sufficient: boolean }>(
      "/api/v2/contact/export/estimate",
      body,
    );
    expect(estimate.body.sufficient).toBe(false);
    const refused = await api.post("/api/v2/contact/export", body, { idempotencyKey: "checkout-402-00001" });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      detail: expect.stringContaining("Not enough credits"),
      code: "INSUFFICIENT_CREDITS",
      required: estimate.body.credits,
      balance: before,
    });
    expect(await balance()).toBe(before);
    expect(await exportIds()).toEqual(exportsBefore);
  });

  it("costs nothing on AYCE, whatever is revealed", async () => {
    const client = browser(ayce.url);
    const before = await balance(AYCE);
    const body = { filter: germany, maxRows: 500, reveal: "both" };
    const estimate = await client.post<{ credits: number; plan: string }>(
      "/api/v2/contact/export/estimate",
      body,
    );
    expect(estimate.body).toMatchObject({ credits: 0, plan: "AYCE" });
    const started = await client.post<{ exportId: string; credits: number }>("/api/v2/contact/export", body, {
      idempotencyKey: "checkout-ayce-00001",
    });
    expect(started.status).toBe(202);
    expect(started.body.credits).toBe(0);
    expect((await waitFor(client, started.body.exportId, ["COMPLETED", "ERROR"])).status).toBe("COMPLETED");
    expect(await balance(AYCE)).toBe(before);
  });
});

describe("enrich", () => {
  let ids: string[];
  beforeAll(async () => {
    const view = await sandboxCall<{ rows: { RBID_PAO: string }[] }>(PAYG, "POST", "/v2/contact/view", {
      filter: germany,
      limit: 6,
    });
    ids = view.rows.map((r) => r.RBID_PAO);
    expect(ids).toHaveLength(6);
  });

  it("charges once for two concurrent identical requests, and refuses the key with another body (409)", async () => {
    const before = await balance();
    const calls = upstreamCalls("/v2/contact/enrich");
    const body = { personIds: ids.slice(0, 2), reveal: "email" };
    const key = "checkout-enrich-0001";
    const [a, b] = await Promise.all([
      api.post<{ creditsCharged: number; matched: number }>("/api/v2/contact/enrich", body, {
        idempotencyKey: key,
      }),
      api.post("/api/v2/contact/enrich", body, { idempotencyKey: key }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.text).toBe(a.text);
    expect(
      [a, b].filter((x) => x.headers.get("idempotent-replayed") === "true"),
      "exactly one is a replay",
    ).toHaveLength(1);
    expect(a.body.matched).toBe(2);
    expect(a.body.creditsCharged).toBeGreaterThanOrEqual(2);
    expect(upstreamCalls("/v2/contact/enrich")).toBe(calls + 1);
    expect(await balance()).toBe(before - a.body.creditsCharged);

    const other = await api.post(
      "/api/v2/contact/enrich",
      { personIds: ids.slice(0, 3), reveal: "email" },
      { idempotencyKey: key },
    );
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      detail: expect.stringContaining("already used for a different request"),
      code: "IDEMPOTENCY_KEY_REUSED",
    });
    expect(upstreamCalls("/v2/contact/enrich")).toBe(calls + 1);
    expect(await balance()).toBe(before - a.body.creditsCharged);
  });

  it("charges once when the browser left before the answer and sends it again with the same key", async () => {
    const before = await balance();
    const calls = upstreamCalls("/v2/contact/enrich");
    const body = { personIds: ids.slice(3, 6), reveal: "both" };
    const key = "checkout-enrich-gone1";
    let release!: () => void;
    const answered = new Promise<void>((resolve) => {
      holdEnrich = { answered: resolve, release: new Promise<void>((r) => (release = r)) };
    });

    const leaving = new AbortController();
    const first = fetch(`${payg.url}/api/v2/contact/enrich`, {
      method: "POST",
      headers: { "x-csrf": "1", "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
      signal: leaving.signal,
    });
    await answered; // the sandbox has charged; its answer is on its way back
    const charged = before - (await balance());
    expect(charged).toBeGreaterThan(0);
    leaving.abort();
    await expect(first).rejects.toThrow();
    release();

    const again = await api.post<{ creditsCharged: number; matched: number }>(
      "/api/v2/contact/enrich",
      body,
      {
        idempotencyKey: key,
      },
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toMatchObject({ matched: 3, creditsCharged: charged });
    expect(upstreamCalls("/v2/contact/enrich")).toBe(calls + 1);
    expect(await balance()).toBe(before - charged);
  });
});

describe("download", () => {
  let exportId: string;
  let rows: number;
  beforeAll(async () => {
    const started = await api.post<{ exportId: string; rows: number }>(
      "/api/v2/contact/export",
      { filter: germany, maxRows: 1000, reveal: "none", name: "germany/1000" },
      { idempotencyKey: "checkout-download-01" },
    );
    expect(started.status).toBe(202);
    ({ exportId, rows } = started.body);
    await waitFor(api, exportId, ["COMPLETED"]);
  });

  it("gives the whole file again after an interrupted download, and charges nothing for either", async () => {
    const before = await balance();
    const url = `${payg.url}/api/v2/contact/export/${exportId}/download`;
    const cut = await fetch(url, { headers: { "x-csrf": "1" } });
    expect(cut.status).toBe(200);
    const size = Number(cut.headers.get("content-length"));
    const reader = cut.body!.getReader();
    const first = await reader.read();
    expect(first.value!.byteLength).toBeLessThan(size); // really cut mid-way
    await reader.cancel();

    const whole = await api.get(`/api/v2/contact/export/${exportId}/download`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-disposition")).toBe('attachment; filename="germany_1000.csv"');
    expect(Buffer.byteLength(whole.text)).toBe(size);
    const lines = whole.text.trimEnd().split("\r\n");
    expect(lines[0]!.split(",")[0]).toBe("RBID_PAO");
    expect(lines).toHaveLength(rows + 1);
    expect(new Set(lines.slice(1).map((l) => l.split(",")[0])).size).toBe(rows);
    expect(await balance()).toBe(before);
  });

  it("gives the header row in labels with ?headers=labels, the rest byte for byte; the service is asked as always", async () => {
    const before = await balance();
    const path = `/api/v2/contact/export/${exportId}/download`;
    const plain = await api.get(path);
    const seen = upstream.seen.length;
    const labelled = await api.get(`${path}?headers=labels`);
    expect(labelled.status).toBe(200);
    const [plainHead, ...plainRest] = plain.text.split("\r\n");
    const [head, ...rest] = labelled.text.split("\r\n");
    const names = plainHead!.split(",");
    expect(names[0]).toBe("RBID_PAO");
    expect(head!.startsWith("Contact ID,Full name,")).toBe(true);
    expect(head!.split(",")).toEqual(names.map((name) => getColumn(name)!.label));
    expect(rest.join("\r\n")).toBe(plainRest.join("\r\n"));
    // Its own length, its name and type as the service gave them.
    expect(Number(labelled.headers.get("content-length"))).toBe(Buffer.byteLength(labelled.text));
    for (const header of ["content-type", "content-disposition"])
      expect(labelled.headers.get(header), header).toBe(plain.headers.get(header));
    // The parameter is the proxy's: the service got the same request as for the plain file.
    expect(upstream.seen.slice(seen).map((s) => `${s.path}${s.search}`)).toEqual([
      `/v2/contact/export/${exportId}/download`,
    ]);
    // In the service's names: the file as it comes.
    expect((await api.get(`${path}?headers=names`)).text).toBe(plain.text);
    // In HubSpot's field names: its names where it has a property, the labels elsewhere.
    const forHubspot = await api.get(`${path}?headers=hubspot`);
    const [hubspotHead, ...hubspotRest] = forHubspot.text.split("\r\n");
    expect(hubspotHead!.split(",")).toEqual(csvHeaders(names, "hubspot"));
    expect(hubspotHead!.split(",")).toContain("jobtitle");
    expect(hubspotRest.join("\r\n")).toBe(plainRest.join("\r\n"));
    expect(Number(forHubspot.headers.get("content-length"))).toBe(Buffer.byteLength(forHubspot.text));
    expect(await balance()).toBe(before);
  });

  it("refuses another header style, another parameter or one given twice with the 422 record, sending nothing", async () => {
    const path = `/api/v2/contact/export/${exportId}/download`;
    const seen = upstream.seen.length;
    const headers = ["query", "headers"];
    const refused: [string, Record<string, unknown>][] = [
      [
        "headers=LABELS",
        {
          loc: headers,
          msg: "Input should be 'labels', 'names', 'hubspot' or 'salesforce'",
          type: "enum",
          input: "LABELS",
        },
      ],
      [
        "headers=labels&columns=x",
        {
          loc: ["query", "columns"],
          msg: "Extra inputs are not permitted",
          type: "extra_forbidden",
          input: "x",
        },
      ],
      [
        "headers=labels&headers=names",
        { loc: headers, msg: "Value error, give this parameter once", type: "value_error", input: "names" },
      ],
    ];
    for (const [query, record] of refused) {
      const answer = await api.get(`${path}?${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body, query).toEqual({ detail: [record] });
    }
    expect(upstream.seen.length).toBe(seen);
  });

  it.each([
    ["as it comes", "", "RBID_PAO,FULL_NAME_PER\r\n"],
    ["in labels", "?headers=labels", "Contact ID,Full name\r\n"],
  ])(
    "reads the upstream only as fast as the browser takes it (%s), and cancels it when the browser leaves",
    async (_, query, firstLine) => {
      // An endless file: only backpressure keeps the proxy from reading all of it. Its header row
      // comes cut in two, as a slow upstream may send it.
      const head = ["RBID_PAO,FULL", "_NAME_PER\r\n"].map((text) => new TextEncoder().encode(text));
      const chunk = new Uint8Array(64 * 1024).fill(120);
      let produced = 0;
      let cancelled = false;
      const endless = fakeUpstream(
        () =>
          new Response(
            new ReadableStream<Uint8Array>(
              {
                pull(controller) {
                  const next = head.shift();
                  if (next) return controller.enqueue(next);
                  produced += chunk.byteLength;
                  controller.enqueue(chunk.slice());
                },
                cancel() {
                  cancelled = true;
                },
              },
              { highWaterMark: 0 },
            ),
            { headers: { "content-type": "text/csv" } },
          ),
      );
      const server = await startProxy(endless);
      try {
        const leaving = new AbortController();
        const response = await fetch(`${server.url}/api/v2/contact/export/exp_endless/download${query}`, {
          headers: { "x-csrf": "1" },
          signal: leaving.signal,
        });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        let text = "";
        while (!text.includes("\n")) text += new TextDecoder().decode((await reader.read()).value);
        expect(text.startsWith(firstLine)).toBe(true);
        // The browser stops reading: socket and stream buffers fill, then the proxy stops pulling.
        let held = -1;
        for (let i = 0; i < 30 && produced !== held; i++) {
          held = produced;
          await sleep(150);
        }
        expect(produced, "the proxy stopped reading ahead").toBe(held);
        expect(held).toBeLessThan(32 * 2 ** 20);
        await sleep(300);
        expect(produced).toBe(held);
        expect(cancelled).toBe(false);

        leaving.abort();
        for (let i = 0; i < 100 && !cancelled; i++) await sleep(20);
        expect(cancelled, "the upstream stream is cancelled once the browser has gone").toBe(true);
      } finally {
        await server.close();
      }
    },
  );
});
