import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildHarness, launchBrowser, serveStatic } from "./editor-bench";
import { compareEditors } from "./editor-compare";

/**
 * `node --import tsx tests/bench/editor-compare-run.ts`: only the comparison of our editor with
 * react-querybuilder (`npm run bench` runs it within its editor part). BENCH_COMPARE_ROUNDS sets
 * the number of rounds (12).
 */
const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-compare-"));
try {
  await buildHarness(dir);
  const server = await serveStatic(dir);
  const browser = await launchBrowser();
  try {
    const { port } = server.address() as { port: number };
    const result = await compareEditors(browser, `http://127.0.0.1:${port}/compare.html`);
    console.log([...result.lines, "", `${result.pass ? "PASS" : "FAIL"}: ${result.summary}`].join("\n"));
  } finally {
    await browser.close();
    server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
