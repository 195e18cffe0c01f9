/**
 * An export whose audience holds 50,000 contacts the team owns delivers none of them and charges
 * only the new rows. The 50,000 are owned for real: an export of them bought on an AYCE account
 * through the proxy (its file read once by the proxy on completion and its rows recorded); then a
 * proxy on a PAYG key over the same store exports the same audience. The sandbox's own balance is
 * read before and after; the file is downloaded and checked row by row. Run on PGlite and PostgreSQL.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerAnswer } from "../../../src/contract/ledger";
import { exportReview } from "../../../src/contract/spending";
import type { Sandbox } from "../../../src/sandbox/app";
import { ensureDataset } from "../../../src/sandbox/dataset/index";
import {
  type Browser,
  browser,
  sandboxCall as callSandbox,
  type ProxyServer,
  recording,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const ROWS = 120_000;
const OWNED = 50_000;
const BOUGHT = 5_000;
const FAST = { UPSTREAM_RATE_PER_MIN: "100000", CACHE_TTL_MS: "0" };
const everyone = { type: "group", op: "AND", children: [] };

let sandbox: Sandbox;
const upstream = recording(async (request) => sandbox.fetch(request));
let dataDir: string;

beforeAll(async () => {
  const datasetFile = await ensureDataset(path.resolve(".data/test-dataset"), { rows: ROWS, seed: 7 });
  ({ sandbox } = await startSandbox({ rows: ROWS, datasetFile }));
  dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-it-exports-owned-"));
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

const sandboxCall = <T>(key: string, method: string, pathname: string) =>
  callSandbox<T>(sandbox, key, method, pathname);
const balance = async () =>
  (await sandboxCall<{ credits: number }>("sbx_payg_demo", "GET", "/v2/credits")).credits;

interface Status {
  exportId: string;
  status: string;
  rows: number;
  rowsWritten: number;
  credits: number;
}

/** Polls the export's status through the proxy until it ends (the proxy settles it as it passes). */
/**
 * Polls the export until it ended, then waits for the proxy to settle it: the poll that saw it end
 * settles it in the background (its rows recorded as owned, its ledger row written).
 */
async function untilEnded(api: Browser, server: ProxyServer, exportId: string): Promise<Status> {
  for (let i = 0; i < 600; i++) {
    const status = await api.get<Status>(`/api/v2/contact/export/${exportId}`);
    expect(status.status).toBe(200);
    if (["COMPLETED", "ERROR", "CANCELLED"].includes(status.body.status)) {
      await expect
        .poll(async () => {
          const row = await server.proxy.database.db
            .selectFrom("export_purchases")
            .select("state")
            .where("export_id", "=", exportId)
            .executeTakeFirst();
          return row?.state ?? "settled";
        })
        .toBe("settled");
      return status.body;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the export did not end");
}

async function fileIds(api: Browser, exportId: string): Promise<string[]> {
  const file = await api.get(`/api/v2/contact/export/${exportId}/download`);
  expect(file.status).toBe(200);
  const parsed = Papa.parse<Record<string, string>>(file.text, { header: true, skipEmptyLines: true });
  return parsed.data.map((r) => r.RBID_PAO!);
}

describe("exports leave out the contacts the team owns", () => {
  let owned: string[] = [];

  it("an export bought on AYCE records its 50,000 delivered rows as owned once the proxy sees it complete", async () => {
    const server = await startProxy(upstream, {
      env: { SANDBOX_KEY: "sbx_ayce_demo", DATA_DIR: dataDir, ...FAST },
    });
    try {
      const api = browser(server.url);
      const started = await api.post<{ exportId: string; credits: number }>(
        "/api/v2/contact/export",
        { filter: everyone, maxRows: OWNED, reveal: "none", name: "first fifty thousand" },
        { idempotencyKey: `owned-first-${Date.now()}` },
      );
      expect(started.status).toBe(202);
      const ended = await untilEnded(api, server, started.body.exportId);
      expect(ended.status).toBe("COMPLETED");
      owned = await fileIds(api, started.body.exportId);
      expect(owned).toHaveLength(OWNED);
      const db = server.proxy.database.db;
      const recorded = await db
        .selectFrom("owned_contacts")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("operation", "=", "exportStart")
        .executeTakeFirstOrThrow();
      expect(Number(recorded.n)).toBe(OWNED);
      const ledger = ledgerAnswer.parse((await api.get("/api/ledger")).body);
      expect(ledger.entries).toHaveLength(1);
      expect(ledger.entries[0]).toMatchObject({
        operation: "exportStart",
        outcome: "free",
        rows: OWNED,
        creditsCharged: 0,
      });
    } finally {
      await server.close();
    }
  }, 300_000);

  it("the same audience exported on PAYG delivers none of the 50,000 and charges only the new rows", async () => {
    expect(owned).toHaveLength(OWNED);
    const server = await startProxy(upstream, {
      env: { SANDBOX_KEY: "sbx_payg_demo", DATA_DIR: dataDir, ...FAST },
    });
    try {
      const api = browser(server.url);
      const request = { filter: everyone, maxRows: BOUGHT, reveal: "none" as const };

      const review = await api.post("/api/purchases/review", { kind: "export", ...request });
      expect(review.status, review.text).toBe(200);
      expect(exportReview.parse(review.body)).toMatchObject({
        audience: ROWS,
        suppressed: 0,
        owned: OWNED,
        owned_choice: "leave-out",
        rows: BOUGHT,
        credits: BOUGHT,
        freeRows: 0,
      });
      const estimate = await api.post<{ audienceCount: number; credits: number }>(
        "/api/v2/contact/export/estimate",
        request,
      );
      expect(estimate.body).toMatchObject({ audienceCount: ROWS - OWNED, credits: BOUGHT });

      const before = await balance();
      const started = await api.post<{ exportId: string; credits: number; rows: number }>(
        "/api/v2/contact/export",
        { ...request, name: "the new ones" },
        { idempotencyKey: `owned-second-${Date.now()}` },
      );
      expect(started.status, started.text).toBe(202);
      expect(started.body).toMatchObject({ rows: BOUGHT, credits: BOUGHT });
      // Until the proxy sees it end, the ledger holds the start as pending with its estimate.
      const pending = ledgerAnswer.parse((await api.get("/api/ledger")).body).entries[0]!;
      expect(pending).toMatchObject({ outcome: "pending", creditsEstimated: BOUGHT, creditsCharged: null });

      const ended = await untilEnded(api, server, started.body.exportId);
      expect(ended).toMatchObject({ status: "COMPLETED", rowsWritten: BOUGHT, credits: BOUGHT });
      const delivered = await fileIds(api, started.body.exportId);
      expect(delivered).toHaveLength(BOUGHT);
      const mine = new Set(owned);
      expect(delivered.filter((id) => mine.has(id))).toEqual([]);
      expect(before - (await balance())).toBe(BOUGHT);

      const ledger = ledgerAnswer.parse((await api.get("/api/ledger")).body);
      const settled = ledger.entries.find((e) => e.keyLast4 === pending.keyLast4 && e.rows === BOUGHT)!;
      expect(settled).toMatchObject({ outcome: "charged", creditsCharged: BOUGHT, creditsEstimated: BOUGHT });
      // Settled once: polling again changes nothing.
      await api.get(`/api/v2/contact/export/${started.body.exportId}`);
      await api.get("/api/v2/contact/exports");
      expect(ledgerAnswer.parse((await api.get("/api/ledger")).body).totals.creditsCharged).toBe(BOUGHT);

      // The 5,000 just bought are owned too now; buying again is the buyer's choice, and is charged.
      const again = await api.post("/api/purchases/review", {
        kind: "export",
        ...request,
        maxRows: 10,
        owned: "buy-again",
      });
      expect(exportReview.parse(again.body)).toMatchObject({ owned: OWNED + BOUGHT, rows: 10, credits: 10 });
      const refused = await api.post("/api/v2/contact/export", request, {
        idempotencyKey: `owned-odd-${Date.now()}`,
        headers: { "x-owned-contacts": "sometimes" },
      });
      expect(refused.status).toBe(422);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("add-free: the owned rows of the audience are added to the file for nothing, and only the new rows are charged", async () => {
    const server = await startProxy(upstream, {
      env: { SANDBOX_KEY: "sbx_payg_demo", DATA_DIR: dataDir, ...FAST },
    });
    try {
      const api = browser(server.url);
      const mine = OWNED + BOUGHT;
      const request = { filter: everyone, maxRows: 100, reveal: "none" as const };
      const review = exportReview.parse(
        (await api.post("/api/purchases/review", { kind: "export", ...request, owned: "add-free" })).body,
      );
      expect(review).toMatchObject({ owned: mine, rows: 100, credits: 100, freeRows: mine, notes: [] });

      const before = await balance();
      const started = await api.post<{ exportId: string }>(
        "/api/v2/contact/export",
        { ...request, name: "new and owned" },
        { idempotencyKey: `owned-free-${Date.now()}`, headers: { "x-owned-contacts": "add-free" } },
      );
      expect(started.status, started.text).toBe(202);
      expect(await untilEnded(api, server, started.body.exportId)).toMatchObject({
        status: "COMPLETED",
        credits: 100,
      });
      const delivered = await fileIds(api, started.body.exportId);
      expect(delivered).toHaveLength(100 + mine);
      expect(new Set(delivered).size).toBe(delivered.length);
      // In labels, the same rows: the free ones are matched to the service's names before relabelling.
      const labelled = await api.get(
        `/api/v2/contact/export/${started.body.exportId}/download?headers=labels`,
      );
      const read = Papa.parse<Record<string, string>>(labelled.text, { header: true, skipEmptyLines: true });
      expect(read.meta.fields?.[0]).toBe("Contact ID");
      expect(read.data.map((r) => r["Contact ID"])).toEqual(delivered);
      const fresh = delivered.slice(0, 100);
      expect(fresh.filter((id) => owned.includes(id))).toEqual([]);
      const ownedNow = await server.proxy.database.db
        .selectFrom("owned_contacts")
        .select("rbid_pao")
        .distinct()
        .execute();
      expect(new Set(delivered.slice(100))).toEqual(
        new Set(ownedNow.map((r) => r.rbid_pao).filter((id) => !fresh.includes(id))),
      );
      expect(before - (await balance())).toBe(100);
      const entry = ledgerAnswer.parse((await api.get("/api/ledger")).body).entries[0]!;
      expect(entry).toMatchObject({
        outcome: "charged",
        creditsCharged: 100,
        rows: 100 + mine,
        rowsFree: mine,
      });

      // An audience holding only some of them: found with the free calls allowed, and said when not all.
      const germany = {
        type: "group",
        children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
      };
      const partial = exportReview.parse(
        (
          await api.post("/api/purchases/review", {
            kind: "export",
            filter: germany,
            maxRows: 10,
            reveal: "none",
            owned: "add-free",
          })
        ).body,
      );
      expect(partial.owned).toBeGreaterThan(0);
      expect(partial.freeRows).toBeGreaterThan(0);
      expect(partial.freeRows).toBeLessThan(partial.owned);
      expect(partial.notes.join(" ")).toMatch(/could be listed with the free counts allowed/);
    } finally {
      await server.close();
    }
  }, 300_000);

  it("an export nobody polls is settled by the proxy's own check of its pending exports", async () => {
    const server = await startProxy(upstream, {
      env: { SANDBOX_KEY: "sbx_payg_demo", DATA_DIR: dataDir, ...FAST },
    });
    try {
      const api = browser(server.url);
      const started = await api.post<{ exportId: string }>(
        "/api/v2/contact/export",
        { filter: everyone, maxRows: 10, reveal: "none", name: "unwatched" },
        { idempotencyKey: `owned-unwatched-${Date.now()}` },
      );
      expect(started.status, started.text).toBe(202);
      for (let i = 0; ; i++) {
        const status = await sandboxCall<{ status: string }>(
          "sbx_payg_demo",
          "GET",
          `/v2/contact/export/${started.body.exportId}`,
        );
        if (status.status === "COMPLETED") break;
        expect(i).toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 100));
      }
      const read = async () => ledgerAnswer.parse((await api.get("/api/ledger")).body).entries[0]!;
      expect(await read()).toMatchObject({ outcome: "pending", creditsEstimated: 10 });
      await server.proxy.checkSettlements();
      expect(await read()).toMatchObject({ outcome: "charged", creditsCharged: 10, rows: 10 });
      const recorded = await server.proxy.database.db
        .selectFrom("export_purchases")
        .select("state")
        .where("export_id", "=", started.body.exportId)
        .executeTakeFirstOrThrow();
      expect(recorded.state).toBe("settled");
    } finally {
      await server.close();
    }
  }, 120_000);
});
