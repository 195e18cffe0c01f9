import os from "node:os";
import { downloadBench } from "./download-bench";
import { editorBench } from "./editor-bench";
import { exclusionBench } from "./exclusion-bench";
import { latencyBench } from "./latency-bench";
import { proxyBench } from "./proxy-bench";
import { sandboxBench } from "./sandbox-bench";
import { storeBench } from "./store-bench";

/**
 * `npm run bench`: every speed and memory target of the project, each printed beside a baseline
 * measured in the same run (machines here are noisy, so ratios, not absolute times, are the
 * figures to compare). BENCH_ROWS and BENCH_RUNS shrink it for a quick look; BENCH_ONLY (a comma
 * list of sandbox, proxy, store, editor, download, exclusion, latency) runs some parts only.
 */
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const runs = Math.max(20, Number(process.env.BENCH_RUNS ?? 30));
const only = process.env.BENCH_ONLY?.split(",").map((part) => part.trim());
const parts = [
  { name: "sandbox", run: () => sandboxBench({ rows, runs }) },
  { name: "proxy", run: () => proxyBench({ rows, runs }) },
  { name: "store", run: () => storeBench({ rows, runs }) },
  { name: "editor", run: () => editorBench({ rows }) },
  { name: "download", run: () => downloadBench({ rows, runs }) },
  { name: "exclusion", run: () => exclusionBench({ rows, runs }) },
  { name: "latency", run: () => latencyBench({ rows }) },
].filter((part) => !only || only.includes(part.name));

console.log(`# Audience Builder benchmark, ${new Date().toISOString()}`);
console.log(
  `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
);
for (const part of parts) console.log(`\n${await part.run()}`);
