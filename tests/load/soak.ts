import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { table } from "../bench/stats";
import { rssMb, tail } from "../support/processes";
import type { MemoryReport } from "./memory-report";
import { ARTIFACTS, loadAverage, machine, writeSection } from "./report";
import { startStack } from "./stack";
import { discover, runMix, TABLE_HEADERS } from "./traffic";
import { CRITERIA, type Sample, sparkline, type Trend, trend, verdict } from "./trend";

/**
 * `npm run soak`: ten minutes of steady mixed traffic (the load suite's mix) at a moderate rate
 * through the proxy (own process, response cache on as deployed) in front of the sandbox (own
 * process), sampling both processes' resident memory (/proc/<pid>/status VmRSS) every two seconds.
 *
 * The run: a warm-up minute, 90 s at rest, a minute of traffic again (the re-warm: the rest gave
 * memory back, and taking it again is not growth), the ten judged minutes, and 90 s at rest. A
 * least-squares line through each process's judged samples gives the slope (MB/min) and the drift;
 * ./trend.ts says when that is a growth trend. When it is, the two rests decide whether the growth
 * lasts (see `verdict`). Every sample goes to test-artifacts/load/soak.csv; any failed request also
 * fails the soak.
 *
 * Not run in CI: it takes about fifteen minutes. Environment: SOAK_SECONDS (judged traffic, 600),
 * SOAK_RATE (requests/s, 40), SOAK_CONNECTIONS (20), SOAK_ROWS (1,000,000), SOAK_WARMUP_SECONDS
 * (60, also the re-warm), SOAK_IDLE_SECONDS (90), SOAK_SAMPLE_MS (2000), LOAD_SEED (7).
 */
const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const rate = Number(process.env.SOAK_RATE ?? 40);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 20);
const rows = Number(process.env.SOAK_ROWS ?? 1_000_000);
const warmUp = Number(process.env.SOAK_WARMUP_SECONDS ?? 60);
const idleSeconds = Number(process.env.SOAK_IDLE_SECONDS ?? 90);
const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 2000);
const seed = Number(process.env.LOAD_SEED ?? 7);

type Phase = "warm-up" | "rest 1" | "re-warm" | "traffic" | "rest 2";
interface Row {
  seconds: number;
  phase: Phase;
  proxyMb: number;
  sandboxMb: number;
  /** The sandbox's own view (./memory-report.ts), its latest report: V8's heap and the rest. */
  sandboxHeapTotalMb: number;
  sandboxHeapUsedMb: number;
  /** Resident memory outside V8's heap, same instant (rss - heapTotal): DuckDB, buffers, allocator. */
  sandboxOutsideHeapMb: number;
  answers: number;
  failures: number;
}

const header = [
  "## Soak",
  "",
  `Measured ${machine()}.`,
  "",
  `${rows.toLocaleString("en-US")} contacts; the load suite's mix at ${rate} requests/s from ${connections} connections : a ${warmUp} s warm-up, ${idleSeconds} s at rest, ${warmUp} s of traffic again (the re-warm), ${(seconds / 60).toFixed(1)} min judged, ${idleSeconds} s at rest; proxy (response cache on, as deployed) and sandbox in their own processes, resident memory (VmRSS) of each sampled every ${sampleMs / 1000} s.`,
  "",
  `Judged on the samples of the judged minutes: a growth trend if the least-squares slope is >= ${CRITERIA.maxSlopeMbPerMin} MB/min, or if the last third's median is above the middle third's by more than ${CRITERIA.maxStepMb} MB. Growth found that way is "no lasting growth" when the memory at rest after the run (the lowest sample of the rest) is within ${CRITERIA.maxStepMb} MB of the memory at rest after the warm-up: kept objects (a leak) stay when the traffic stops, heap and allocator capacity taken under load does not.`,
].join("\n");
console.log(header);

mkdirSync(ARTIFACTS, { recursive: true });
const reportFile = path.join(ARTIFACTS, "soak-sandbox-memory.jsonl");
rmSync(reportFile, { force: true });
const stack = await startStack({
  rows,
  cache: true,
  label: "soak",
  sandboxEnv: {
    NODE_OPTIONS: "--import tsx --import ./tests/load/memory-report.ts",
    MEMORY_REPORT_FILE: reportFile,
    MEMORY_REPORT_MS: String(sampleMs),
  },
});
/** The sandbox's latest memory report (the last complete line of its file). */
const latestReport = (): MemoryReport => {
  const lines = tail(reportFile, 1024).trimEnd().split("\n");
  return JSON.parse(lines.at(-1)!) as MemoryReport;
};
const MB = 2 ** 20;
const samples: Row[] = [];
let answers = 0;
let failed = 0;
let text: string;
let ok: boolean;
try {
  const ingredients = await discover(stack.proxy.url);
  const started = performance.now();
  let phase: Phase = "warm-up";
  const sample = () => {
    const report = latestReport();
    samples.push({
      seconds: (performance.now() - started) / 1000,
      phase,
      proxyMb: rssMb(stack.proxy.child.pid!),
      sandboxMb: rssMb(stack.sandbox.child.pid!),
      sandboxHeapTotalMb: report.heapTotal / MB,
      sandboxHeapUsedMb: report.heapUsed / MB,
      sandboxOutsideHeapMb: (report.rss - report.heapTotal) / MB,
      answers,
      failures: failed,
    });
  };
  sample();
  const sampler = setInterval(sample, sampleMs);
  const progress = setInterval(() => {
    const last = samples.at(-1)!;
    console.log(
      `${last.seconds.toFixed(0)} s (${last.phase}): ${answers} answers, ${failed} failed; proxy ${last.proxyMb.toFixed(1)} MB, sandbox ${last.sandboxMb.toFixed(1)} MB; load ${loadAverage()}`,
    );
  }, 60_000);
  const traffic = (duration: number, partSeed: number) =>
    runMix({
      url: stack.proxy.url,
      connections,
      seconds: duration,
      overallRate: rate,
      timeoutSeconds: 30,
      seed: partSeed,
      ingredients,
      onResponse: (_op, status) => {
        answers++;
        if (status < 200 || status > 299) failed++;
      },
    });
  const rest = () => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  let warm: Awaited<ReturnType<typeof runMix>>;
  let run: Awaited<ReturnType<typeof runMix>>;
  try {
    warm = await traffic(warmUp, seed + 1000);
    phase = "rest 1";
    await rest();
    phase = "re-warm";
    const judged = setTimeout(() => (phase = "traffic"), warmUp * 1000);
    run = await traffic(warmUp + seconds, seed).finally(() => clearTimeout(judged));
    phase = "rest 2";
    await rest();
  } finally {
    clearInterval(sampler);
    clearInterval(progress);
  }
  const { result, recorder } = run;

  mkdirSync(ARTIFACTS, { recursive: true });
  const csv = path.join(ARTIFACTS, "soak.csv");
  const csvLines = samples.map((s) =>
    [
      s.seconds.toFixed(1),
      s.phase,
      s.proxyMb.toFixed(2),
      s.sandboxMb.toFixed(2),
      s.sandboxHeapTotalMb.toFixed(2),
      s.sandboxHeapUsedMb.toFixed(2),
      s.sandboxOutsideHeapMb.toFixed(2),
      s.answers,
      s.failures,
    ].join(","),
  );
  writeFileSync(
    csv,
    `${["seconds,phase,proxy_rss_mb,sandbox_rss_mb,sandbox_heap_total_mb,sandbox_heap_used_mb,sandbox_outside_heap_mb,answers,failures", ...csvLines].join("\n")}\n`,
  );

  const loaded = samples.filter((s) => s.phase === "traffic");
  /**
   * At rest: the lowest sample of a rest. Node gives memory back in a step some 20 to 50 s into a
   * rest (seen in every run: V8's memory reducer, then the allocator), not at once.
   */
  const atRest = (which: Phase, pick: (s: Row) => number) =>
    Math.min(...samples.filter((s) => s.phase === which).map(pick));
  const judge = (pick: (s: Row) => number) => {
    const t = trend(loaded.map((s): Sample => ({ seconds: s.seconds, mb: pick(s) })));
    const before = atRest("rest 1", pick);
    const after = atRest("rest 2", pick);
    return { t, before, after, verdict: verdict(t, before, after) };
  };
  const proxy = judge((s) => s.proxyMb);
  const sandbox = judge((s) => s.sandboxMb);
  // What the sandbox's resident memory is made of, judged the same way but only to explain it.
  const heapTotal = judge((s) => s.sandboxHeapTotalMb);
  const heapUsed = judge((s) => s.sandboxHeapUsedMb);
  const outsideHeap = judge((s) => s.sandboxOutsideHeapMb);
  const failures = recorder.failed + result.errors + warm.recorder.failed + warm.result.errors;
  ok = failures === 0 && proxy.verdict !== "GROWTH TREND" && sandbox.verdict !== "GROWTH TREND";
  const mb = (v: number) => v.toFixed(1);
  const trendRow = (name: string, j: { t: Trend; before: number; after: number; verdict: string }) => [
    name,
    `${mb(j.t.firstMb)} -> ${mb(j.t.lastMb)}`,
    `${j.t.slopeMbPerMin.toFixed(3)} ± ${j.t.slopeErrorMbPerMin.toFixed(3)}`,
    mb(j.t.driftMb),
    j.t.thirds.map(mb).join(" / "),
    mb(j.t.stepMb),
    j.t.peaks.map(mb).join(" / "),
    `${mb(j.before)} -> ${mb(j.after)}`,
    j.verdict,
  ];
  const sparkLines: [string, (s: Row) => number][] = [
    ["proxy", (s) => s.proxyMb],
    ["sandbox", (s) => s.sandboxMb],
    ["heap", (s) => s.sandboxHeapTotalMb],
    ["outside", (s) => s.sandboxOutsideHeapMb],
  ];
  const spark = (name: string, values: number[]) =>
    `    ${name.padEnd(8)}${sparkline(values)}  ${mb(Math.min(...values))}..${mb(Math.max(...values))} MB`;
  const lines = [
    `Resident memory in the judged minutes (${loaded.length} samples over ${proxy.t.spanMinutes.toFixed(1)} min), and at rest:`,
    "",
    table(
      [
        "process",
        "first -> last MB",
        "slope MB/min (± s.e.)",
        "drift MB",
        "median by thirds MB",
        "last - middle MB",
        "highest by thirds MB",
        "at rest after warm-up -> after run MB",
        "verdict",
      ],
      [
        trendRow("proxy", proxy),
        trendRow("sandbox", sandbox),
        trendRow("(sandbox: V8 heap size)", heapTotal),
        trendRow("(sandbox: V8 heap in use)", heapUsed),
        trendRow("(sandbox: outside V8's heap)", outsideHeap),
      ],
    ),
    "",
    "The rows in brackets split the sandbox's resident memory by its own `process.memoryUsage()` (tests/load/memory-report.ts, preloaded): they explain the verdict, they do not make it.",
    "",
    "Whole run (warm-up, rest, re-warm, judged minutes, rest; each line scaled to its own range):",
    "",
    ...sparkLines.map(([name, pick]) => spark(name, samples.map(pick))),
    "",
    `Traffic after the first rest (re-warm and judged minutes): ${recorder.total.toLocaleString("en-US")} answers in ${result.duration.toFixed(0)} s (${(recorder.total / result.duration).toFixed(1)} requests/s); failures over the whole run: non-2xx ${recorder.failed + warm.recorder.failed}, timeouts ${result.timeouts + warm.result.timeouts}, connection errors ${result.errors - result.timeouts + warm.result.errors - warm.result.timeouts}. Load average at the end: ${loadAverage()}. Samples: ${path.relative(process.cwd(), csv)}.`,
    "",
    table(TABLE_HEADERS, recorder.rows()),
  ];
  const firstFailures = [...warm.recorder.samples, ...recorder.samples].slice(0, 20);
  if (firstFailures.length > 0)
    lines.push("", "First failed answers:", "", ...firstFailures.map((s) => `    ${s}`));
  lines.push(
    "",
    `**${ok ? "PASS" : "FAIL"}: ${failures} failed requests; proxy: ${proxy.verdict}; sandbox: ${sandbox.verdict}.**`,
  );
  text = lines.join("\n");
} finally {
  await stack.stop();
}
console.log(`\n${text}`);
console.log(`written to ${writeSection("soak", `${header}\n\n${text}`)}`);
process.exitCode = ok ? 0 : 1;
