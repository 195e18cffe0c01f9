import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSandbox } from "../../src/sandbox/app";
import { ensureDataset } from "../../src/sandbox/dataset/index";
import { KEY } from "../bench/services";
import { table } from "../bench/stats";
import { discover, noteExportStarted, OPERATIONS, type Operation, planner } from "./traffic";
import { leastSquares } from "./trend";

/**
 * `npm run probe`: where does the sandbox's memory go? The soak says whether memory grows; this
 * says which operation grows it. Each operation of the load mix runs alone, in a fresh sandbox
 * process of its own (in-process, no HTTP: `createSandbox(...).fetch`), in a closed loop of a few
 * concurrent requests. After a warm-up and after each round, the probe collects garbage twice
 * (`--expose-gc`), waits for DuckDB's allocator to purge, and reads resident memory, the JS heap in
 * use and external memory. The slope of each against requests served is its cost per request: JS
 * objects kept (heap), or native memory kept outside the heap (resident less heap), which is
 * DuckDB's or the allocator's.
 *
 * Environment: PROBE_OPS (comma-separated names from the load mix, default all), PROBE_ROUNDS (4),
 * PROBE_REQUESTS (requests a round, 1,500), PROBE_CONCURRENCY (4), PROBE_ROWS (1,000,000),
 * PROBE_SETTLE_MS (wait after collecting, 3,000). Writes nothing but its table.
 */
const rounds = Number(process.env.PROBE_ROUNDS ?? 4);
const perRound = Number(process.env.PROBE_REQUESTS ?? 1500);
const concurrency = Number(process.env.PROBE_CONCURRENCY ?? 4);
const rows = Number(process.env.PROBE_ROWS ?? 1_000_000);
const settleMs = Number(process.env.PROBE_SETTLE_MS ?? 3000);

interface Reading {
  served: number;
  rssMb: number;
  heapMb: number;
  /** The JS heap's size, used or not: V8 keeps pages it grew into. */
  heapTotalMb?: number;
  externalMb: number;
  /** DuckDB's own accounting (all tags). */
  databaseMb?: number;
  databaseTags?: Record<string, number>;
}

const child = process.argv[2];
if (child) await probeOne(child as Operation, process.argv[3]!);
else await probeAll();

/** The parent: one child process per operation, one shared dataset, a table at the end. */
async function probeAll() {
  const ops = (process.env.PROBE_OPS?.split(",").map((s) => s.trim()) ?? [...OPERATIONS]) as Operation[];
  for (const op of ops)
    if (op !== ("mix" as Operation) && !OPERATIONS.includes(op)) throw new Error(`unknown operation '${op}'`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-probe-"));
  console.log(
    `Memory per request, one operation at a time: ${rounds} rounds of ${perRound} requests, ${concurrency} at once, ${rows.toLocaleString("en-US")} contacts, after a warm-up of ${perRound} requests; memory read after two forced collections and ${settleMs} ms.`,
  );
  const lines: (string | number)[][] = [];
  try {
    for (const op of ops) {
      const readings = await runChild(op, dir);
      // leastSquares fits MB on minutes; fed requests as minutes, its slope is MB a request.
      const slope = (pick: (r: Reading) => number) =>
        leastSquares(readings.map((r) => ({ seconds: r.served * 60, mb: pick(r) }))).slope * 1024;
      lines.push([
        op,
        readings.map((r) => r.rssMb.toFixed(1)).join(" / "),
        slope((r) => r.rssMb).toFixed(3),
        slope((r) => r.heapMb).toFixed(3),
        slope((r) => r.rssMb - r.heapMb).toFixed(3),
        slope((r) => r.externalMb).toFixed(3),
      ]);
      console.log(`${op}: ${lines.at(-1)!.slice(1).join("  ")}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\n${table(
      [
        "operation",
        "resident after warm-up and each round MB",
        "resident KB/req",
        "JS heap KB/req",
        "resident less heap KB/req",
        "external KB/req",
      ],
      lines,
    )}`,
  );
}

function runChild(op: Operation, dir: string): Promise<Reading[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx", path.resolve("tests/load/probe.ts"), op, dir],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    proc.stdout.on("data", (d: Buffer) => (out += d));
    proc.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("READINGS "));
      if (code !== 0 || !line) reject(new Error(`probe of ${op} exited ${code}:\n${out}`));
      else resolve(JSON.parse(line.slice("READINGS ".length)) as Reading[]);
    });
  });
}

/** A child: the sandbox in this process, `op` alone, memory read after each round. */
async function probeOne(op: Operation, dir: string) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  const dataDir = path.join(dir, op.replace(/\W+/g, "-"));
  mkdirSync(dataDir, { recursive: true });
  const sandbox = await createSandbox({
    dataDir,
    // One dataset for every operation's sandbox: the first child generates it.
    datasetFile: await ensureDataset(path.join(dir, "dataset"), { rows, seed: 42 }),
    rows,
    seed: 42,
    viewBudget: 1e9,
    ratePerMinute: 1e9,
    ratePerDay: 1e9,
    verifyRate: 50,
    v1Retired: false,
  });
  // The load mix speaks to the proxy (`/api/...`, no key); here the sandbox answers it directly.
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("x-key", KEY);
    return sandbox.fetch(
      new Request(`http://sandbox${url.pathname.replace(/^\/api/, "")}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" ? undefined : await request.arrayBuffer(),
      }),
    );
  }) as typeof fetch;
  const ingredients = await discover("http://sandbox");
  const mix = planner(7, ingredients);
  // "mix": the load mix as it comes, every operation in its share.
  const next = () => {
    for (;;) {
      const planned = mix();
      if (op === ("mix" as Operation) || planned.op === op) return planned;
    }
  };
  let served = 0;
  const runRound = async () => {
    let left = perRound;
    const worker = async () => {
      while (left-- > 0) {
        const planned = next();
        const response = await fetch(`http://sandbox${planned.path}`, {
          method: planned.method,
          headers: planned.headers,
          body: planned.body === undefined ? undefined : JSON.stringify(planned.body),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${planned.op}: ${response.status} ${text.slice(0, 300)}`);
        if (planned.op === "export start") noteExportStarted(ingredients, text);
        served++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  const read = async (): Promise<Reading> => {
    gc();
    await new Promise((r) => setTimeout(r, 100));
    gc();
    await new Promise((r) => setTimeout(r, settleMs));
    const tags = await sandbox.databaseMemory();
    const m = process.memoryUsage();
    const mb = (bytes: number) => bytes / 2 ** 20;
    return {
      served,
      rssMb: mb(m.rss),
      heapMb: mb(m.heapUsed),
      heapTotalMb: mb(m.heapTotal),
      externalMb: mb(m.external),
      databaseMb: mb(Object.values(tags).reduce((a, b) => a + b, 0)),
      databaseTags: Object.fromEntries(
        Object.entries(tags).map(([tag, bytes]) => [tag, Math.round(mb(bytes))]),
      ),
    };
  };
  await runRound(); // warm-up: caches, JIT, DuckDB's buffers
  served = 0;
  const readings = [await read()];
  for (let i = 0; i < rounds; i++) {
    await runRound();
    readings.push(await read());
    console.error(`  ${op}, round ${i + 1}: ${JSON.stringify(readings.at(-1))}`);
  }
  globalThis.fetch = realFetch;
  await sandbox.close();
  console.log(`READINGS ${JSON.stringify(readings)}`);
  process.exit(0);
}
