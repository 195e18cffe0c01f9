import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KEY, startProxy, startSandboxProcess } from "../bench/services";
import { stopProcess } from "../support/processes";

/**
 * The system under load, as the bench runs it: the sandbox in its own process (limits raised far
 * above the load by `startSandboxProcess`) and the proxy of `npm start` in another, in front of it
 * as a live upstream, on the AYCE demo key (nothing costs credits). Both log to files, never to a
 * pipe this process would have to read while it measures.
 */
export interface Stack {
  dir: string;
  sandbox: { child: ChildProcess; url: string; logFile: string };
  proxy: { child: ChildProcess; url: string };
  key: string;
  /** Starts another proxy in front of the same sandbox (the previous one is stopped). */
  restartProxy(options: { cache: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/** The proxy's shaper raised like the sandbox's limits: the load must never meet a deliberate limit. */
const PROXY_LIMITS = {
  UPSTREAM_RATE_PER_MIN: "100000000",
};

export async function startStack(options: {
  rows: number;
  cache: boolean;
  label: string;
  /** Added to the sandbox process's environment (the soak's memory report). */
  sandboxEnv?: Record<string, string>;
}): Promise<Stack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ab-${options.label}-`));
  const children: ChildProcess[] = [];
  let proxyIndex = 0;
  const launchProxy = (cache: boolean, upstream: string) =>
    startProxy(dir, `proxy-${++proxyIndex}`, upstream, {
      ...PROXY_LIMITS,
      // Empty: the deployed default (60 s); 0 turns the response cache off.
      CACHE_TTL_MS: cache ? "" : "0",
      // The bench's proxy is `LOG_LEVEL=info` as deployed: one log line per request is part of the cost.
    });
  try {
    const sandbox = await startSandboxProcess(dir, options.rows, options.sandboxEnv);
    children.push(sandbox.child);
    const first = await launchProxy(options.cache, sandbox.url);
    children.push(first.child);
    const stack: Stack = {
      dir,
      sandbox,
      proxy: first,
      key: KEY,
      async restartProxy({ cache }) {
        await stopProcess(stack.proxy.child);
        stack.proxy = await launchProxy(cache, sandbox.url);
        children.push(stack.proxy.child);
      },
      async stop() {
        for (const child of children.reverse()) await stopProcess(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return stack;
  } catch (error) {
    for (const child of children.reverse()) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
