/**
 * `npm test`: type-check and lint beside Vitest; each phase's output printed whole when it ends
 * (Vitest's as it goes), then the wall time of every phase and the count of tests. The type-check
 * and the lint run at the lowest CPU priority (nice 19): they fill the gaps Vitest leaves and never
 * slow a browser test. The fuzz run is a Vitest file (tests/fuzz/sandbox-fuzz.test.ts), in the last
 * group beside the timed browser file. Exits non-zero when any phase fails. `--quick` is the edit
 * loop's run (`npm run test:quick`): unit and integration tests on the embedded database, no
 * browser, no PostgreSQL, no fuzz.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureDataset } from "../../src/sandbox/dataset/index";
import { TEST_DATASET } from "./global-setup";
import { TEST_V8_FLAGS } from "./processes";

const quick = process.argv.includes("--quick");
const bin = (name: string) => path.join("node_modules", ".bin", name);
const REPORT = path.join("test-artifacts", "vitest-report.json");

interface Phase {
  name: string;
  command: string[];
  /** Printed as it comes (the long one); the others are printed whole at their end. */
  stream?: boolean;
  /** Runs at the lowest CPU priority: it only takes what the tests leave. */
  background?: boolean;
}

/** The edit loop's projects: no browser, no PostgreSQL server, no fuzz run. */
const QUICK_PROJECTS = ["unit", "unit-mocking", "unit-pure", "integration"];

const vitest: Phase = {
  name: "vitest",
  // Its main process makes the run's database image (PGlite's initdb): 8 CPU-s, 5 with TEST_V8_FLAGS.
  command: [
    process.execPath,
    ...TEST_V8_FLAGS,
    path.join("node_modules", "vitest", "vitest.mjs"),
    "run",
    ...(quick ? QUICK_PROJECTS.flatMap((name) => ["--project", name]) : []),
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${REPORT}`,
  ],
  stream: true,
};
const phases: Phase[] = quick
  ? [vitest]
  : [
      { name: "typecheck", command: [bin("tsc"), "--noEmit"], background: true },
      { name: "lint", command: [bin("biome"), "check", "."], background: true },
      vitest,
    ];

const started = performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

// The dataset first, so that Vitest's set-up and the fuzz run find it rather than each making it.
await ensureDataset(path.resolve(".data/test-dataset"), TEST_DATASET);
const datasetMs = performance.now() - started;
mkdirSync(path.dirname(REPORT), { recursive: true });
rmSync(REPORT, { force: true });

// The run's temporary folders (proxies' data folders, sandboxes, Chromium's profiles, the crash
// suite's copies: about 2 GB) under one folder, removed at the end, so that many runs do not fill
// the disk. KEEP_TEST_TMP=1 keeps it to look into.
const runTmp = mkdtempSync(path.join(os.tmpdir(), "ab-test-run-"));
// Open to every user as the system's own is (sticky): the PostgreSQL server, run as its own user,
// makes its data folders here.
chmodSync(runTmp, 0o1777);
const removeRunTmp = () => {
  if (process.env.KEEP_TEST_TMP) console.log(`temporary folders kept in ${runTmp}`);
  else rmSync(runTmp, { recursive: true, force: true });
};

const children = new Set<ChildProcess>();
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    for (const child of children) child.kill(signal);
    removeRunTmp();
    process.exit(130);
  });

function run(phase: Phase): Promise<{ phase: Phase; code: number; ms: number }> {
  const t0 = performance.now();
  const [command, ...args] = phase.background ? ["nice", "-n", "19", ...phase.command] : phase.command;
  const child = spawn(command!, args, {
    stdio: phase.stream ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      TMPDIR: runTmp,
      FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0"),
    },
  });
  children.add(child);
  const output: Buffer[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d));
  child.stderr?.on("data", (d: Buffer) => output.push(d));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      children.delete(child);
      const ms = performance.now() - t0;
      const failed = code !== 0;
      if (!phase.stream) {
        process.stdout.write(`\n── ${phase.name} (${failed ? "FAILED" : "ok"}, ${seconds(ms)}) ──\n`);
        process.stdout.write(Buffer.concat(output));
      }
      resolve({ phase, code: code ?? (signal ? 128 : 1), ms });
    });
  });
}

const results = await Promise.all(phases.map(run));
removeRunTmp();

interface Report {
  numTotalTestSuites: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: unknown[];
}
let report: Report | null = null;
try {
  report = JSON.parse(readFileSync(REPORT, "utf8")) as Report;
} catch {
  // Vitest ended before writing it (a failed set-up): its own output says why.
}

console.log("\n── the suite ──");
console.log(`test dataset       ${seconds(datasetMs)}`);
for (const { phase, code, ms } of results)
  console.log(
    `${phase.name.padEnd(18)} ${seconds(ms).padStart(6)}  ${code === 0 ? "ok" : `FAILED (exit ${code})`}`,
  );
console.log(`${"all (wall)".padEnd(18)} ${seconds(performance.now() - started).padStart(6)}`);
if (report) {
  console.log(`test files: ${report.testResults.length}`);
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
