/**
 * estimatePurchase (the price the spending rules judge before anything is sent), over the real
 * sandbox through the proxy's upstream client and the proxy's store: Enrich priced on what will
 * be sent (owned ids served free are not), Preview on its limit, an export by the service's own
 * estimate of the filter as sent (owned contacts left out unless bought again). PGlite and PostgreSQL.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import { configFromEnv } from "../../../src/server/config";
import { type Database, openDatabase } from "../../../src/server/db/database";
import { ProxyStats } from "../../../src/server/http/stats";
import { estimatePurchase } from "../../../src/server/spend/purchase-kinds";
import { KeyStore } from "../../../src/server/upstream/key-store";
import { RateShaper } from "../../../src/server/upstream/rate-shaper";
import { UpstreamClient } from "../../../src/server/upstream/upstream";
import { startSandbox, testDatabaseFor } from "../../support/proxy-server";

let sandbox: Sandbox;
let database: Database;
let client: UpstreamClient;
let germanIds: string[];
const germany = {
  type: "group",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  const dir = await mkdtemp(path.join(os.tmpdir(), "purchase-estimate-"));
  const store = await testDatabaseFor(dir, false);
  database = store.database ?? (await openDatabase({ databaseUrl: store.url ?? null, dataDir: dir }));
  const config = configFromEnv({
    DATA_DIR: dir,
    SANDBOX_KEY: "sbx_payg_demo",
    UPSTREAM_RATE_PER_MIN: "100000",
  });
  const shaper = new RateShaper(config.rate);
  client = new UpstreamClient({
    upstream: async (request) => sandbox.fetch(request),
    keys: new KeyStore(config),
    shaper,
    stats: new ProxyStats(() => 0),
    config,
  });
  const view = await sandbox.fetch(
    new Request("http://sandbox.test/v2/contact/view", {
      method: "POST",
      headers: { "x-key": "sbx_payg_demo", "content-type": "application/json" },
      body: JSON.stringify({ filter: germany, columns: ["RBID_PAO"], limit: 40 }),
    }),
  );
  germanIds = ((await view.json()) as { rows: { RBID_PAO: string }[] }).rows.map((r) => r.RBID_PAO);
  // 12 of them owned (bought with the default columns, email and mobile revealed).
  await database.db
    .insertInto("owned_contacts")
    .values(
      germanIds.slice(0, 12).map((id) => ({
        rbid_pao: id,
        rbid_per: null,
        revealed_email: true,
        revealed_mobile: true,
        columns_key: "",
        row: JSON.stringify({ RBID_PAO: id }),
        bought_at: sql<Date>`now()` as never,
        bought_by: "ann",
        purchase_id: "earlier",
        operation: "enrich",
      })),
    )
    .execute();
}, 120_000);
afterAll(async () => {
  await database?.close();
  await sandbox?.close();
});

const deps = (plan: string | null) => ({
  db: database.db,
  retentionDays: 180,
  client,
  plan: async () => plan,
});

describe("estimatePurchase", () => {
  it("prices an Enrich on the ids not owned and every email, a Preview on its limit", async () => {
    const body = {
      personIds: [...germanIds.slice(10, 15)],
      emails: ["a@b.com", "A@B.com "],
      reveal: "email",
    };
    // 2 of the 5 owned: 3 ids and 1 email, 2 credits each (a row and its email).
    expect(await estimatePurchase(deps("PAYG"), "enrich", body)).toBe(8);
    expect(await estimatePurchase(deps("AYCE"), "enrich", body)).toBe(0);
    expect(await estimatePurchase(deps(null), "enrich", body)).toBeNull();
    expect(
      await estimatePurchase(deps("PAYG"), "preview", { filter: germany, limit: 10, reveal: "both" }),
    ).toBe(50);
  });

  it("prices an export by the service's estimate of the filter as sent: owned left out unless bought again", async () => {
    const body = { filter: germany, maxRows: 1_000_000, reveal: "none", name: "germans" };
    const again = await estimatePurchase(deps("PAYG"), "exportStart", body, "buy-again");
    const leftOut = await estimatePurchase(deps("PAYG"), "exportStart", body);
    expect(again).toBeGreaterThan(40);
    expect(leftOut).toBe(again! - 12);
  });
});
