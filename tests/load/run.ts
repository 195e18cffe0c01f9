import { readFileSync } from "node:fs";
import os from "node:os";
import { table } from "../bench/stats";
import { rssMb } from "../support/processes";
import { loadAverage, machine, writeSection } from "./report";
import { type Stack, startStack } from "./stack";
import { discover, type Ingredients, type MixedRun, runMix, TABLE_HEADERS } from "./traffic";

/**
 * `npm run load`: mixed traffic (count, view, insights, enrich, export start and status) from 200
 * connections for 60 s against the proxy (own process) in front of the sandbox (own process, a
 * million contacts), on the AYCE demo key, with the sandbox's limits and the proxy's shaper raised
 * far above the load. The requirement is no failed request at all: every non-2xx answer, timeout
 * or connection error counts, and any makes the exit code 1. Prints p50 / p99 / max per operation.
 *
 * Runs with the proxy's response cache on (the deployed default, 60 s) and then off (every read
 * reaches the sandbox), one proxy each in front of the same sandbox.
 *
 * Not run in CI: it takes minutes and needs the machine to itself. Environment: LOAD_ROWS
 * (1,000,000), LOAD_SECONDS (60), LOAD_CONNECTIONS (200), LOAD_CACHE (both | on | off),
 * LOAD_SEED (7), LOAD_TIMEOUT_SECONDS (30: a request unanswered by then counts as a timeout).
 */
const rows = Number(process.env.LOAD_ROWS ?? 1_000_000);
const seconds = Number(process.env.LOAD_SECONDS ?? 60);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 200);
const seed = Number(process.env.LOAD_SEED ?? 7);
const timeoutSeconds = Number(process.env.LOAD_TIMEOUT_SECONDS ?? 30);
const cacheModes = ({ on: [true], off: [false], both: [true, false] } as const)[
  (process.env.LOAD_CACHE ?? "both") as "on" | "off" | "both"
];
if (!cacheModes) throw new Error("LOAD_CACHE must be on, off or both");
const WARM_UP = { seconds: 5, connections: 20 };

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat (Linux, 100 ticks/s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

type Healthz = Record<string, number> & { upstreamCalls: Record<string, number> };
const healthz = async (url: string) => (await (await fetch(`${url}/healthz`)).json()) as Healthz;

/** One measured run: the per-operation table and the totals below it. */
async function measure(stack: Stack, ingredients: Ingredients, cache: boolean) {
  const url = stack.proxy.url;
  const warm = await runMix({
    url,
    ...WARM_UP,
    timeoutSeconds,
    seed: seed + 1000,
    ingredients,
  });
  const before = await healthz(url);
  const peak = { proxy: 0, sandbox: 0 };
  const sampler = setInterval(() => {
    peak.proxy = Math.max(peak.proxy, rssMb(stack.proxy.child.pid!));
    peak.sandbox = Math.max(peak.sandbox, rssMb(stack.sandbox.child.pid!));
  }, 1000);
  const cpu = () => ({
    proxy: cpuSeconds(stack.proxy.child.pid!),
    sandbox: cpuSeconds(stack.sandbox.child.pid!),
    load: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  const cpuBefore = cpu();
  let run: MixedRun;
  try {
    run = await runMix({ url, connections, seconds, timeoutSeconds, seed, ingredients });
  } finally {
    clearInterval(sampler);
  }
  const cpuAfter = cpu();
  const after = await healthz(url);
  const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  const { result, recorder } = run;
  const connectionErrors = result.errors - result.timeouts;
  const warmFailures = warm.recorder.failed + warm.result.errors;
  const failures = recorder.failed + result.errors + warmFailures;
  const rps = recorder.total / result.duration;
  const hits = delta("cacheHits");
  const misses = delta("cacheMisses");
  const joins = delta("singleFlightJoins");
  const lines = [
    `### Proxy response cache ${cache ? "on (the deployed default, 60 s TTL)" : "off (every read reaches the sandbox)"}`,
    "",
    table(TABLE_HEADERS, recorder.rows()),
    "",
    `- ${recorder.total.toLocaleString("en-US")} answers in ${result.duration.toFixed(1)} s: **${rps.toFixed(0)} requests/s** overall (autocannon's own latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms).`,
    `- Failures: non-2xx ${recorder.failed}, timeouts (> ${timeoutSeconds} s) ${result.timeouts}, connection errors ${connectionErrors}; in the ${WARM_UP.seconds} s warm-up before it: ${warmFailures}. Status codes: ${[
      ...recorder.statuses,
    ]
      .map(([status, n]) => `${status} x ${n}`)
      .join(", ")}.`,
    `- Proxy: ${delta("totalUpstreamCalls").toLocaleString("en-US")} upstream calls; cache ${hits} hits, ${misses} misses, ${joins} joined in flight (${((100 * hits) / Math.max(1, hits + misses + joins)).toFixed(0)}% of cacheable reads answered from the cache); ${delta("queueTimeouts")} queue timeouts, ${delta("retries")} retries, ${delta("idempotentReplays")} idempotent replays.`,
    `- CPU used during the run (of ${(os.cpus().length * result.duration).toFixed(0)} core-seconds on this machine, shared with other work): proxy ${(cpuAfter.proxy - cpuBefore.proxy).toFixed(1)} s, sandbox ${(cpuAfter.sandbox - cpuBefore.sandbox).toFixed(1)} s, load generator ${(cpuAfter.load - cpuBefore.load).toFixed(1)} s.`,
    `- Peak resident memory during the run: proxy ${peak.proxy.toFixed(0)} MB, sandbox ${peak.sandbox.toFixed(0)} MB. Load average after: ${loadAverage()}.`,
  ];
  if (recorder.samples.length > 0)
    lines.push("", "First failed answers:", "", ...recorder.samples.map((s) => `    ${s}`));
  return { text: lines.join("\n"), failures };
}

const header = [
  "## Load",
  "",
  `Measured ${machine()}.`,
  "",
  `${rows.toLocaleString("en-US")} contacts; ${connections} connections for ${seconds} s (autocannon in the measuring process), after a ${WARM_UP.seconds} s warm-up at ${WARM_UP.connections} connections. Sandbox and proxy in their own processes on 127.0.0.1, AYCE demo key, the sandbox's rate limits and View budget and the proxy's shaper raised far above the load, everything else as deployed (\`LOG_LEVEL=info\`, default timeouts and queue). Latencies are from sending the request to the last byte of its answer.`,
].join("\n");
console.log(header);

const stack = await startStack({ rows, cache: cacheModes[0]!, label: "load" });
let failures = 0;
const sections: string[] = [header];
try {
  const ingredients = await discover(stack.proxy.url);
  for (const [i, cache] of cacheModes.entries()) {
    if (i > 0) await stack.restartProxy({ cache });
    const measured = await measure(stack, ingredients, cache);
    console.log(`\n${measured.text}`);
    sections.push(measured.text);
    failures += measured.failures;
  }
} finally {
  await stack.stop();
}
const verdict = failures === 0 ? "PASS: no failed request." : `FAIL: ${failures} failed requests.`;
sections.push(`**${verdict}**`);
console.log(`\n${verdict}`);
console.log(`written to ${writeSection("load", sections.join("\n\n"))}`);
process.exitCode = failures === 0 ? 0 : 1;
