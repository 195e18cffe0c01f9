import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import fc from "fast-check";
import { validationRecordSchema } from "../../src/contract/errors";
import { OPERATIONS } from "../../src/contract/routes";
import { createSandbox } from "../../src/sandbox/app";
import { ensureDataset } from "../../src/sandbox/dataset/index";
import { DOMAINS } from "../support/arbitraries/node-inputs";
import { bodyArbs } from "../support/arbitraries/request-bodies";

/**
 * Hostile-input run of the sandbox: at least FUZZ_RUNS (default 2,000) random bodies per operation
 * that takes a JSON body, valid and broken, over real HTTP. Every answer must be 2xx or 4xx, never
 * 5xx, and every 422 must be the service's validation record. Key rotation is left out: it would
 * retire the key the run uses. Exits non-zero on any failure.
 */
const RUNS = Math.max(2000, Number(process.env.FUZZ_RUNS ?? 2000));
const CONCURRENCY = 8;
/** Export bodies ask for at most this many rows, so the run does not fill the disk with CSVs. */
const EXPORT_ROWS_CAP = 50;

const dataDir = mkdtempSync(path.join(os.tmpdir(), "ab-fuzz-"));
const datasetFile = await ensureDataset(path.resolve(".data/test-dataset"), { rows: 50_000, seed: 7 });
const sandbox = await createSandbox(
  {
    dataDir,
    datasetFile,
    rows: 50_000,
    seed: 7,
    viewBudget: 100_000_000,
    ratePerMinute: 100_000_000,
    ratePerDay: 100_000_000,
    verifyRate: 1000,
    v1Retired: false,
  },
  () => {},
);
const server = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" });
// The run shares the machine with the rest of `npm test` at the lowest priority, and may wait long
// for a core: Node's own server timers (idle keep-alive sockets closed after 5 s, headers within
// 60 s) would then close sockets the client is about to reuse, failing requests for reasons that
// are not the sandbox's answers. What is fuzzed is the answers, so those timers are off here.
Object.assign(server as Server, { keepAliveTimeout: 0, headersTimeout: 0, requestTimeout: 0 });
await new Promise((r) => server.once("listening", r));
const { port } = server.address() as { port: number };
const base = `http://127.0.0.1:${port}`;

// The arbitraries name made-up companies; half the bodies name real ones instead, so lookalikes
// reach the vector search rather than stopping at "no such company".
const realDomains = await realCompanyDomains(DOMAINS.length);

let passed = 0;
const failures: string[] = [];

const fuzzed = OPERATIONS.filter((op) => op.body && op.bodyKind === "json" && !op.id.startsWith("rotate"));
for (const op of fuzzed) {
  const arbs = bodyArbs[op.body as keyof typeof bodyArbs];
  if (!arbs) {
    failures.push(`${op.id}: no body arbitrary for schema ${op.body}`);
    continue;
  }
  const bodies = fc.sample(fc.oneof(arbs.valid, arbs.broken, fc.anything()), {
    numRuns: RUNS,
    seed: 20261121,
  });
  const statuses = new Map<number, number>();
  const opStarted = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const body = capExport(op.id, bodies[index]);
      const text =
        index % 2 === 0 ? withRealDomains(JSON.stringify(body) ?? "null") : (JSON.stringify(body) ?? "null");
      const problem = await check(op.method, op.path, text, statuses);
      if (problem) failures.push(`${op.id}: ${problem} for body ${text.slice(0, 300)}`);
      else passed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const summary = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`);
  const opSeconds = ((performance.now() - opStarted) / 1000).toFixed(1);
  console.log(
    `${op.id.padEnd(22)} ${bodies.length} bodies in ${opSeconds.padStart(4)} s: ${summary.join(" ")}`,
  );
}

// Raw bytes that are not JSON at all, on every JSON operation.
for (const op of fuzzed) {
  for (const text of ["{", "nul", '{"filter":', "\u0000", "[]", '"x"', "1e999", "{}".repeat(10_000)]) {
    const problem = await check(op.method, op.path, text, new Map());
    if (problem) failures.push(`${op.id}: ${problem} for raw ${JSON.stringify(text.slice(0, 40))}`);
    else passed++;
  }
}

server.close();
await sandbox.close();
rmSync(dataDir, { recursive: true, force: true });

for (const failure of failures.slice(0, 50)) console.error(`FAIL ${failure}`);
console.log(`fuzz: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);

async function check(method: string, opPath: string, text: string, statuses: Map<number, number>) {
  const url = `${base}${opPath.replace(/:(\w+)/g, "fuzz")}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { "content-type": "application/json", "x-key": "sbx_ayce_demo" },
      body: text,
    });
  } catch (error) {
    return `request failed (${(error as Error).message}): the sandbox crashed or hung up`;
  }
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const answer = await response.text();
  if (response.status >= 500) return `${response.status} ${answer.slice(0, 200)}`;
  if (response.status === 422) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch {
      return `422 that is not JSON: ${answer.slice(0, 200)}`;
    }
    if (!validationRecordSchema.safeParse(parsed).success)
      return `422 not in the record shape: ${answer.slice(0, 200)}`;
  }
  if (answer.includes("sbx_ayce_demo")) return "the key appears in the answer";
  return null;
}

async function realCompanyDomains(n: number): Promise<string[]> {
  const answer = await fetch(`${base}/v2/contact/view`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-key": "sbx_ayce_demo" },
    body: JSON.stringify({ columns: ["DOMAIN_ORG"], limit: n }),
  });
  const { rows } = (await answer.json()) as { rows: { DOMAIN_ORG: string }[] };
  return rows.map((r) => r.DOMAIN_ORG);
}

function withRealDomains(text: string): string {
  return DOMAINS.reduce(
    (t, fake, i) => t.replaceAll(`"${fake}"`, JSON.stringify(realDomains[i] ?? fake)),
    text,
  );
}

function capExport(id: string, body: unknown): unknown {
  if (
    (id === "exportStart" || id === "estimate") &&
    body &&
    typeof body === "object" &&
    !Array.isArray(body)
  ) {
    const b = body as Record<string, unknown>;
    if (typeof b.maxRows === "number" && b.maxRows > EXPORT_ROWS_CAP)
      return { ...b, maxRows: EXPORT_ROWS_CAP };
  }
  return body;
}
