import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { TEST_V8_FLAGS } from "./v8-flags.mjs";

/** A free loopback port, found by binding port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** V8 flags of the test processes: see v8-flags.mjs. */
export { TEST_V8_FLAGS };

/** The npm scripts that run the product: `npm start` (the proxy), `npm run sandbox` and `npm run users`. */
export type ProductScript = "start" | "sandbox" | "users";

/**
 * The node arguments of an npm script (`node <flags> <entry>`), read from package.json so that a
 * benchmark or a soak measures the process exactly as it ships, V8 flags included. With `builtDir`
 * (tests: product-build.ts), the same flags run the script's prebuilt bundle instead of tsx, after
 * TEST_V8_FLAGS.
 */
export function nodeArgsOf(script: ProductScript, builtDir?: string): string[] {
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (scripts[script] ?? "").trim().split(/\s+/);
  if (command !== "node") throw new Error(`npm script "${script}" does not run node: ${scripts[script]}`);
  if (!builtDir) return args;
  const flags = args.slice(0, -1).filter((arg, i, all) => arg !== "--import" && all[i - 1] !== "--import");
  return [...TEST_V8_FLAGS, ...flags, path.join(builtDir, `${script}.mjs`)];
}

/**
 * Starts a product process as its npm script does and resolves once its output shows a line
 * matching `ready`, with the milliseconds that took. Output goes to a log file, not a pipe: a child
 * that logs every request would otherwise make this process, which does the timing, handle its
 * lines mid-run.
 */
export async function startProcess(
  script: ProductScript,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 120_000,
  builtDir?: string,
  /** Node flags before the script's own (a test's `--import` of a fault to inject). */
  nodeFlags: string[] = [],
) {
  const started = performance.now();
  const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), "ab-proc-")), "output.log");
  const fd = openSync(logFile, "a");
  const child = spawn(process.execPath, [...nodeFlags, ...nodeArgsOf(script, builtDir)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  for (;;) {
    if (ready.test(tail(logFile))) return { child, startMs: performance.now() - started, logFile };
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `npm run ${script} exited with ${child.exitCode ?? child.signalCode}:\n${tail(logFile)}`,
      );
    if (performance.now() - started > timeoutMs) {
      child.kill("SIGKILL");
      throw new Error(`npm run ${script} not ready after ${timeoutMs} ms:\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The last few KiB of a log file. */
export function tail(file: string, bytes = 4096): string {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(bytes, size));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString();
  } finally {
    closeSync(fd);
  }
}

export async function stopProcess(child: ChildProcess, graceMs = 15_000) {
  // Ended already, by a code or by a signal: nothing to wait for.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  // A process that cannot handle the signal (its thread stuck) is not left running after the test.
  const stuck = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(stuck);
}

/** Resident memory of a process, from /proc (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}
