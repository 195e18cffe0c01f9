import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import { inject } from "vitest";
import { createSandbox, type Sandbox } from "../../src/sandbox/app";
import type { SandboxOptions } from "../../src/sandbox/config";

/** A sandbox served over real HTTP on a loopback port, with state of its own. */
export interface SandboxServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /**
   * Stops listening (dropping open connections), then closes the sandbox (state saved). A temp
   * `dataDir` made by this helper is then deleted, unless `keepData` (to restart on it).
   */
  close(options?: { keepData?: boolean }): Promise<void>;
  sandbox: Sandbox;
  /** The state folder: pass it back as `dataDir` to restart on the same state. */
  dataDir: string;
}

const TEMP_PREFIX = "sandbox-it-";

/** Only folders this helper makes (under the OS temp folder, with its prefix) are ever deleted. */
function isOurTempDir(dir: string): boolean {
  const parent = path.resolve(os.tmpdir());
  return path.dirname(path.resolve(dir)) === parent && path.basename(dir).startsWith(TEMP_PREFIX);
}

/**
 * Starts a sandbox over the test dataset (generated once by the global setup) with a fresh temp
 * `dataDir` unless one is given, generous rate limits and a fast verifier unless overridden.
 */
export async function startSandboxServer(overrides: Partial<SandboxOptions> = {}): Promise<SandboxServer> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), TEMP_PREFIX)));
  const options: SandboxOptions = {
    rows: 50_000,
    seed: 7,
    viewBudget: 100_000,
    ratePerMinute: 100_000,
    ratePerDay: 100_000,
    verifyRate: 500,
    v1Retired: false,
    datasetFile: inject("datasetFile"),
    ...overrides,
    dataDir,
  };
  const sandbox = await createSandbox(options, () => {});
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve, reject) => {
    const s = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      resolve({ server: s as Server, port: info.port }),
    ) as Server;
    s.once("error", reject);
  });
  let closed: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    sandbox,
    dataDir,
    close(closeOptions = {}) {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await sandbox.close();
        if (!closeOptions.keepData && isOurTempDir(dataDir))
          await rm(dataDir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

export interface ApiAnswer<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: T;
  text: string;
}

export interface ApiOptions {
  /** Extra headers (they win over the defaults). */
  headers?: Record<string, string>;
  /** A raw body sent as is (not JSON-encoded). */
  raw?: BodyInit;
  /** Leave the `x-key` header out. */
  noKey?: boolean;
}

/** A tiny client: JSON in, JSON (or text) out, the key in `x-key`. */
export function api(url: string, key: string | null) {
  async function call<T = unknown>(
    method: string,
    pathname: string,
    body?: unknown,
    options: ApiOptions = {},
  ): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = {};
    if (key !== null && !options.noKey) headers["x-key"] = key;
    let payload: BodyInit | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const response = await fetch(`${url}${pathname}`, {
      method,
      headers: { ...headers, ...options.headers },
      body: payload,
    });
    const text = await response.text();
    const type = response.headers.get("content-type") ?? "";
    let parsed: unknown = text;
    if (type.includes("application/json")) parsed = text === "" ? null : JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  return {
    key,
    call,
    get: <T = unknown>(pathname: string, options?: ApiOptions) =>
      call<T>("GET", pathname, undefined, options),
    post: <T = unknown>(pathname: string, body?: unknown, options?: ApiOptions) =>
      call<T>("POST", pathname, body, options),
  };
}

export type Api = ReturnType<typeof api>;
