import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

/**
 * Preloaded into a process under soak (`node --import ./tests/load/memory-report.ts`, through
 * NODE_OPTIONS) so the soak can see what its resident memory is made of: /proc gives only the
 * total, and a slope in it may be V8 sizing its heap rather than memory kept. Every
 * MEMORY_REPORT_MS (2000) it appends one JSON line of `process.memoryUsage()` (bytes) to
 * MEMORY_REPORT_FILE. Nothing of the product knows about it.
 */
const file = process.env.MEMORY_REPORT_FILE;
const every = Number(process.env.MEMORY_REPORT_MS ?? 2000);

export interface MemoryReport {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Bytes V8 holds for each of its heap spaces (new_space, old_space, code_space, ...). */
  spaces: Record<string, number>;
}

if (file) {
  const report = () => {
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    const line: MemoryReport = { at: Date.now(), ...process.memoryUsage(), spaces };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  report();
  setInterval(report, every).unref();
}
