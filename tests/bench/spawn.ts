import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

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

/**
 * Starts a Node entry point under tsx and resolves once it prints a line matching `ready`,
 * with the milliseconds that took.
 */
export async function startProcess(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 120_000,
) {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Only a tail is kept and tested: a process that logs a lot must not make this quadratic.
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${entry} not ready after ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (data: Buffer) => {
      output = (output + data.toString()).slice(-4096);
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code, signal) =>
      fail(new Error(`${entry} exited with ${code ?? signal}:\n${output}`)),
    );
  });
  child.removeAllListeners("exit");
  return { child, startMs: performance.now() - started };
}

export async function stopProcess(child: ChildProcess) {
  // Ended already, by a code or by a signal: nothing to wait for.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** Resident memory of a process, from /proc (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}
