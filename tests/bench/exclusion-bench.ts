import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { sql } from "kysely";
import { createProxy } from "../../src/server/app";
import { configFromEnv } from "../../src/server/config";
import { serveProxy } from "../../src/server/serve";
import { liveUpstream } from "../../src/server/upstream/upstream";
import { stopProcess } from "../support/processes";
import { KEY, startSandboxProcess } from "./services";
import { fmt, median, p95, table } from "./stats";

/**
 * Part six of `npm run bench`: an export's estimate and the export itself over the whole
 * audience (every contact of the dataset, a million by default) with the 50,000 contacts the team
 * owns left out (`X-Owned-Contacts: leave-out`: the proxy reads them from its store and sends
 * `RBID_PAO notIn` in five lists of 10,000), interleaved with the same requests bought again
 * (`buy-again`: no exclusion), same run. Target: with exclusions at most 2x the time without.
 * The owned contacts are every 20th contact, written straight into the proxy's store (embedded);
 * the proxy runs in this process in front of the sandbox as a live upstream (AYCE key: nothing is
 * charged). An export is timed from its start through the proxy to COMPLETED read from the
 * sandbox; its settlement by the proxy is not part of it (the bench forgets the started export in
 * the store, so every run leaves out the same 50,000).
 */
const OWNED = 50_000;
const EXPORT_ROWS = 100_000;
const TARGET_RATIO = 2;

export async function exclusionBench(options: { rows: number; runs: number }) {
  const runs = Math.max(5, Math.round(options.runs / 3));
  const owned = Math.min(OWNED, Math.floor(options.rows / 4));
  const exportRows = Math.min(EXPORT_ROWS, Math.floor(options.rows / 4));
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-exclusion-"));
  const children: ChildProcess[] = [];
  try {
    const sandbox = await startSandboxProcess(dir, options.rows);
    children.push(sandbox.child);
    const ids = await spreadIds(path.join(dir, "sandbox", "dataset"), owned, options.rows);

    const staticDir = path.join(dir, "no-app");
    mkdirSync(staticDir, { recursive: true });
    const config = configFromEnv({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: path.join(dir, "proxy"),
      STATIC_DIR: staticDir,
      UPSTREAM_URL: sandbox.url,
      API_KEY: KEY,
      API_KEY_FILE: "",
      USERS_FILE: "",
      UPSTREAM_RATE_PER_MIN: "100000000",
      CACHE_TTL_MS: "0",
      LOG_LEVEL: "warn",
    });
    const proxy = await createProxy(config, liveUpstream(sandbox.url));
    const served = await serveProxy(proxy, { host: "127.0.0.1", port: 0 });
    try {
      const db = proxy.database.db;
      for (let i = 0; i < ids.length; i += 1000)
        await db
          .insertInto("owned_contacts")
          .values(
            ids.slice(i, i + 1000).map((id) => ({
              rbid_pao: id,
              rbid_per: null,
              revealed_email: true,
              revealed_mobile: true,
              columns_key: "",
              row: JSON.stringify({ RBID_PAO: id }),
              bought_at: sql<Date>`now()` as never,
              bought_by: "bench",
              purchase_id: "bench-owned",
              operation: "exportStart",
            })),
          )
          .execute();

      const call = async (pathname: string, body: unknown, headers: Record<string, string>) => {
        const response = await fetch(`${served.url}/api${pathname}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf": "1", ...headers },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`POST ${pathname}: ${response.status} ${text}`);
        return JSON.parse(text) as Record<string, unknown>;
      };
      const request = { filter: null, maxRows: exportRows, reveal: "none" };
      const choices = ["leave-out", "buy-again"] as const;
      const samples = {
        estimate: { "leave-out": [] as number[], "buy-again": [] as number[] },
        export: { "leave-out": [] as number[], "buy-again": [] as number[] },
        start: { "leave-out": [] as number[], "buy-again": [] as number[] },
      };
      const audience: Record<string, number> = {};
      const estimate = async (choice: (typeof choices)[number]) => {
        const t0 = performance.now();
        const answer = await call("/v2/contact/export/estimate", request, { "x-owned-contacts": choice });
        audience[choice] = Number(answer.audienceCount);
        return performance.now() - t0;
      };
      let n = 0;
      const exportOnce = async (choice: (typeof choices)[number]) => {
        const t0 = performance.now();
        const started = await call(
          "/v2/contact/export",
          { ...request, name: `bench ${choice}` },
          { "x-owned-contacts": choice, "idempotency-key": `bench-exclusion-${Date.now()}-${++n}` },
        );
        const exportId = String(started.exportId);
        samples.start[choice].push(performance.now() - t0);
        // Forgotten by the proxy, so its rows do not join the owned ones (see above).
        await db.deleteFrom("export_purchases").where("export_id", "=", exportId).execute();
        for (;;) {
          const status = (await (
            await fetch(`${sandbox.url}/v2/contact/export/${exportId}`, { headers: { "x-key": KEY } })
          ).json()) as { status: string };
          if (status.status === "COMPLETED") break;
          if (status.status !== "QUEUED" && status.status !== "PROCESSING")
            throw new Error(`bench export ended ${status.status}`);
          await new Promise((r) => setTimeout(r, 10));
        }
        return performance.now() - t0;
      };
      // Warm both paths once, then interleave.
      for (const choice of choices) {
        await estimate(choice);
        await exportOnce(choice);
      }
      for (const kind of ["estimate", "export", "start"] as const)
        for (const c of choices) samples[kind][c].length = 0;
      for (let i = 0; i < runs; i++)
        for (const choice of i % 2 ? [...choices].reverse() : choices) {
          samples.estimate[choice].push(await estimate(choice));
          samples.export[choice].push(await exportOnce(choice));
        }
      const rowsOf = (kind: "estimate" | "export" | "start") => {
        const ratio = median(samples[kind]["leave-out"]) / median(samples[kind]["buy-again"]);
        return [
          kind === "estimate"
            ? "estimate"
            : kind === "start"
              ? "export start (its answer)"
              : `export of ${exportRows.toLocaleString("en")} rows (start to COMPLETED)`,
          fmt(median(samples[kind]["leave-out"])),
          fmt(p95(samples[kind]["leave-out"])),
          fmt(median(samples[kind]["buy-again"])),
          fmt(p95(samples[kind]["buy-again"])),
          ratio.toFixed(2),
          ratio <= TARGET_RATIO ? "PASS" : "FAIL",
        ];
      };
      return [
        `## Exports leaving out owned contacts (${options.rows.toLocaleString("en")}-contact audience, ${ids.length.toLocaleString("en")} owned; ${runs} interleaved runs; ms)`,
        `Audience as estimated: ${audience["buy-again"]?.toLocaleString("en")} bought again, ${audience["leave-out"]?.toLocaleString("en")} with the owned left out.`,
        "",
        table(
          [
            "operation",
            "owned left out median",
            "p95",
            "no exclusion median",
            "p95",
            "ratio",
            `target <= ${TARGET_RATIO}x`,
          ],
          [rowsOf("estimate"), rowsOf("start"), rowsOf("export")],
        ),
      ].join("\n");
    } finally {
      await served.close();
      await proxy.close();
    }
  } finally {
    for (const child of children) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every (rows/count)th contact id of the sandbox's dataset, read straight from its file. */
async function spreadIds(datasetDir: string, count: number, rows: number): Promise<string[]> {
  const file = readdirSync(datasetDir).find((f) => f.endsWith(".duckdb"));
  if (!file) throw new Error(`no dataset in ${datasetDir}`);
  const instance = await DuckDBInstance.create(path.join(datasetDir, file), { access_mode: "READ_ONLY" });
  try {
    const connection = await instance.connect();
    const step = Math.max(1, Math.floor(rows / count));
    const reader = await connection.runAndReadAll(
      `SELECT RBID_PAO AS id FROM (SELECT RBID_PAO, row_number() OVER () AS n FROM contacts) WHERE n % ${step} = 0 LIMIT ${count}`,
    );
    const ids = reader.getRowObjectsJS().map((r) => String(r.id));
    connection.closeSync();
    return ids;
  } finally {
    instance.closeSync();
  }
}
