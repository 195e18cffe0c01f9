/**
 * Settlement as a durable job (an export here; batch verifications share it): a file that keeps
 * failing is tried again after a backoff, then given up after its attempts with the ledger saying
 * so, never tried every minute forever; a 200,000-row export is settled in the background (the
 * status poll does not wait), streamed into the owned contacts in batches with memory bounded.
 */
import { createReadStream } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLedgerRow } from "../../../src/server/spend/ledger-store";
import { backoffMs, SETTLE_ATTEMPTS } from "../../../src/server/spend/settlement";
import { liveUpstream } from "../../../src/server/upstream/upstream";
import { browser, fakeUpstream, json, type ProxyServer, startProxy } from "../../support/proxy-server";

const BIG = 200_000;
const COLUMNS = [
  "RBID_PAO",
  "RBID_PER",
  "FIRST_NAME_PER",
  "LAST_NAME_PER",
  "JOB_TITLE_PER",
  "NAME_ORG",
  "DOMAIN_ORG",
];

/** The file of the big export, made as it is read (the service streams it). */
function bigFile(): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i === 0) controller.enqueue(encoder.encode(`${COLUMNS.join(",")}\r\n`));
      let text = "";
      for (const end = Math.min(BIG, i + 2000); i < end; i++)
        text += `pao_big${i},per_big${i},Firstname${i},Lastname${i},Head of Something Important,Company ${i % 997} GmbH,company${i % 997}.example\r\n`;
      controller.enqueue(encoder.encode(text));
      if (i >= BIG) controller.close();
    },
  });
}

const status = (exportId: string, rows: number) => ({
  exportId,
  name: "list",
  status: "COMPLETED",
  rows,
  rowsWritten: rows,
  credits: rows,
  createdAt: "2026-11-28T00:00:00Z",
});

const upstream = fakeUpstream(async (request) => {
  const { pathname } = new URL(request.url);
  if (pathname === "/v2/contact/export/broken") return json(status("broken", 10));
  if (pathname === "/v2/contact/export/broken/download") return new Response("gone", { status: 500 });
  if (pathname === "/v2/contact/export/taken") return json(status("taken", 10));
  if (pathname === "/v2/contact/export/taken/download") {
    // While this instance reads the file, another one judges it stopped and takes the claim over.
    await proxy.proxy.database.db
      .updateTable("export_purchases")
      .set({ claimed_by: "another-instance" })
      .where("export_id", "=", "taken")
      .execute();
    return new Response("gone", { status: 500 });
  }
  if (pathname === "/v2/contact/export/short") return json(status("short", 10));
  if (pathname === "/v2/contact/export/short/download")
    // Two of its ten rows, then the connection ends: shorter than the length it declared.
    return new Response(`${COLUMNS.join(",")}\r\npao_s1,per_s1,A,B,C,D,d.example\r\n`, {
      status: 200,
      headers: { "content-type": "text/csv", "content-length": "4096" },
    });
  if (pathname === "/v2/contact/export/big") return json(status("big", BIG));
  if (pathname === "/v2/contact/export/big/download")
    return new Response(bigFile(), { status: 200, headers: { "content-type": "text/csv" } });
  return json({ detail: "not here" }, 404);
});

let proxy: ProxyServer;

beforeAll(async () => {
  proxy = await startProxy(upstream, { env: { UPSTREAM_RATE_PER_MIN: "100000", UPSTREAM_MAX_RETRIES: "0" } });
});
afterAll(async () => {
  await proxy?.close();
});

/** An export the proxy started: its row to settle and its pending ledger row. */
async function started(exportId: string, rows: number, on: ProxyServer = proxy) {
  const { db } = on.proxy.database;
  const purchaseId = `purchase-${exportId}`;
  await db.transaction().execute(async (trx) => {
    await writeLedgerRow(trx, {
      person: "local",
      operation: "exportStart",
      audienceName: exportId,
      filter: null,
      detail: null,
      rows,
      rowsFree: 0,
      estimated: rows,
      charged: null,
      outcome: "pending",
      keyHash: purchaseId,
      keyLast4: "0001",
    });
    await trx
      .insertInto("export_purchases")
      .values({
        export_id: exportId,
        purchase_id: purchaseId,
        person: "local",
        reveal: "none",
        columns_key: JSON.stringify([...COLUMNS].sort()),
        credits_estimated: rows,
        free_ids: null,
        state: "pending",
        started_at: new Date(),
        claimed_at: null,
        settled_at: null,
      })
      .execute();
  });
  return purchaseId;
}

const purchaseState = (exportId: string, on: ProxyServer = proxy) =>
  on.proxy.database.db
    .selectFrom("export_purchases")
    .select(["state", "attempts", "next_attempt_at", "last_error"])
    .where("export_id", "=", exportId)
    .executeTakeFirstOrThrow();
const ledgerRow = (purchaseId: string, on: ProxyServer = proxy) =>
  on.proxy.database.db
    .selectFrom("ledger")
    .select(["outcome", "credits_charged", "detail"])
    .where("key_hash", "=", purchaseId)
    .executeTakeFirstOrThrow();
const downloads = (exportId: string) =>
  upstream.seen.filter((r) => r.path === `/v2/contact/export/${exportId}/download`).length;

describe("settlement as a durable job", () => {
  it("a file that keeps failing is tried again after a backoff, then given up in words after its attempts", async () => {
    const purchaseId = await started("broken", 10);
    await proxy.proxy.checkSettlements();
    let state = await purchaseState("broken");
    expect(state).toMatchObject({ state: "pending", attempts: 1 });
    expect(state.last_error).toMatch(/could not be read/);
    const wait = new Date(state.next_attempt_at!).getTime() - Date.now();
    expect(wait).toBeGreaterThan(backoffMs(1) - 5_000);
    // Within the backoff, the minute's check leaves it alone: no download asked.
    await proxy.proxy.checkSettlements();
    expect(downloads("broken")).toBe(1);

    for (let attempt = 2; attempt <= SETTLE_ATTEMPTS; attempt++) {
      await proxy.proxy.database.db
        .updateTable("export_purchases")
        .set({ next_attempt_at: null }) // the backoff has passed
        .where("export_id", "=", "broken")
        .execute();
      await proxy.proxy.checkSettlements();
      expect((await purchaseState("broken")).attempts).toBe(attempt);
    }
    state = await purchaseState("broken");
    expect(state.state).toBe("given-up");
    expect(downloads("broken")).toBe(SETTLE_ATTEMPTS);
    const row = await ledgerRow(purchaseId);
    expect(row).toMatchObject({ outcome: "unknown", credits_charged: null });
    expect(row.detail).toMatch(
      new RegExp(`tried ${SETTLE_ATTEMPTS} times .* gave up .* Check it in the service`),
    );
    // Given up is final: neither the minute's check nor a status poll tries it again.
    await proxy.proxy.checkSettlements();
    await browser(proxy.url).get("/api/v2/contact/export/broken");
    await new Promise((r) => setTimeout(r, 200));
    expect(downloads("broken")).toBe(SETTLE_ATTEMPTS);
  });

  it("a file cut short of its declared length is a failed attempt, nothing recorded, and the attempt says why", async () => {
    await started("short", 10);
    await proxy.proxy.checkSettlements();
    const state = await purchaseState("short");
    expect(state).toMatchObject({ state: "pending", attempts: 1 });
    expect(state.last_error).toMatch(
      /the download was interrupted \(the file ended at \d+ of its 4096 bytes\)/,
    );
    const owned = await proxy.proxy.database.db
      .selectFrom("owned_contacts")
      .select("rbid_pao")
      .where("rbid_pao", "=", "pao_s1")
      .execute();
    expect(owned).toEqual([]);
  });

  it("a failed attempt of an instance whose claim was taken over leaves the new claim alone", async () => {
    const purchaseId = await started("taken", 10);
    await proxy.proxy.database.db
      .updateTable("export_purchases")
      .set({ attempts: SETTLE_ATTEMPTS - 1 }) // its last attempt: a failure here would give it up
      .where("export_id", "=", "taken")
      .execute();
    await proxy.proxy.checkSettlements();
    expect(downloads("taken")).toBe(1);
    // Still the other instance's, not handed back as pending nor given up under it.
    const row = await proxy.proxy.database.db
      .selectFrom("export_purchases")
      .select(["state", "attempts", "claimed_by"])
      .where("export_id", "=", "taken")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: "settling", attempts: SETTLE_ATTEMPTS - 1, claimed_by: "another-instance" });
    expect((await ledgerRow(purchaseId)).outcome).toBe("pending");
  });

  it(`a ${BIG.toLocaleString("en")}-row export is settled in the background, its file streamed in batches`, async () => {
    const purchaseId = await started("big", BIG);
    const heapBefore = process.memoryUsage().heapUsed;
    let heapMax = heapBefore;
    const sampler = setInterval(() => {
      heapMax = Math.max(heapMax, process.memoryUsage().heapUsed);
    }, 20);
    try {
      const poll = await browser(proxy.url).get("/api/v2/contact/export/big");
      expect(poll.status).toBe(200);
      // The poll answered before the file was read: the purchase is not settled yet.
      expect((await ledgerRow(purchaseId)).outcome).toBe("pending");
      await expect
        .poll(async () => (await ledgerRow(purchaseId)).outcome, { timeout: 300_000, interval: 500 })
        .toBe("charged");
    } finally {
      clearInterval(sampler);
    }
    const owned = await proxy.proxy.database.db
      .selectFrom("owned_contacts")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("purchase_id", "=", purchaseId)
      .executeTakeFirstOrThrow();
    expect(Number(owned.n)).toBe(BIG);
    expect(await purchaseState("big")).toMatchObject({ state: "settled", attempts: 0 });
    const growthMb = (heapMax - heapBefore) / 2 ** 20;
    console.log(`[settlement] ${BIG} rows: JS heap grew at most ${growthMb.toFixed(0)} MB while settling`);
    // The whole file as row objects would be several hundred MB of heap; batches keep it to a few.
    expect(growthMb).toBeLessThan(150);
  }, 330_000);

  it("a big file from a service over HTTP that closes idle connections after a moment is settled whole", async () => {
    // As the sandbox serves a file (Hono on Node, its length declared), with the idle keep-alive
    // connection closed after 100 ms instead of Node's 5 s: a reader that paced the connection by
    // its database writes found the file's end cut off, at every attempt.
    const rows = 25_000;
    const file = path.join(os.tmpdir(), `settlement-live-${process.pid}.csv`);
    let text = `${COLUMNS.join(",")}\r\n`;
    for (let i = 0; i < rows; i++)
      text += `pao_live${i},per_live${i},Firstname${i},Lastname${i},Head of Something Important,Company ${i % 997} GmbH,company${i % 997}.example\r\n`;
    await writeFile(file, text);
    const service = new Hono();
    service.get("/v2/contact/export/live", (c) => c.json(status("live", rows)));
    service.get("/v2/contact/export/live/download", (c) => {
      c.header("Content-Type", "text/csv; charset=utf-8");
      c.header("Content-Length", String(Buffer.byteLength(text)));
      return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream);
    });
    const server = serve({ fetch: service.fetch, port: 0, hostname: "127.0.0.1" });
    (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 100;
    await new Promise((resolve) => server.once("listening", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const live = await startProxy(liveUpstream(url), {
      env: { UPSTREAM_RATE_PER_MIN: "100000", UPSTREAM_MAX_RETRIES: "0" },
    });
    try {
      const purchaseId = await started("live", rows, live);
      await live.proxy.checkSettlements();
      const state = await purchaseState("live", live);
      expect(state.last_error).toBeNull();
      expect(state).toMatchObject({ state: "settled", attempts: 0 });
      expect((await ledgerRow(purchaseId, live)).outcome).toBe("charged");
      const owned = await live.proxy.database.db
        .selectFrom("owned_contacts")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("purchase_id", "=", purchaseId)
        .executeTakeFirstOrThrow();
      expect(Number(owned.n)).toBe(rows);
    } finally {
      await live.close();
      await new Promise((resolve) => server.close(resolve));
      await rm(file, { force: true });
    }
  }, 120_000);
});
