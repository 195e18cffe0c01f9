/**
 * What the proxy serves besides operations: downloads streamed through without buffering, a real
 * export end to end over the sandbox, the built SPA with its cache rules, `/api/session`,
 * `/healthz`, and `npm start`'s launcher printing its address.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/app";
import { nodeArgsOf } from "../../support/processes";
import { builtProduct, sandboxOnTestDataset } from "../../support/product-build";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  recording,
  sleep,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

const started: ProxyServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe("downloads", () => {
  it("streams a large CSV through without buffering it, with its headers", async () => {
    const chunk = `${"x".repeat(1023)}\n`;
    const chunks = 24 * 1024; // 24 MiB
    let releaseRest!: () => void;
    const firstBytesSeen = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    let produced = 0;
    const upstream = fakeUpstream(() => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          // The rest is only produced once the browser has the first bytes: a buffering proxy would hang here.
          if (produced === 1) await firstBytesSeen;
          if (produced === chunks) return controller.close();
          controller.enqueue(encoder.encode(chunk));
          produced++;
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": 'attachment; filename="audience.csv"',
          "content-length": String(chunk.length * chunks),
        },
      });
    });
    const server = await startProxy(upstream);
    started.push(server);
    const response = await fetch(`${server.url}/api/v2/contact/export/exp_big/download`, {
      headers: { "x-csrf": "1" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="audience.csv"');
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-length")).toBe(String(chunk.length * chunks));
    const reader = response.body!.getReader();
    const first = await Promise.race([reader.read(), sleep(5000).then(() => null)]);
    expect(first, "first bytes arrive before the upstream has produced the rest").not.toBeNull();
    expect(produced).toBeLessThan(chunks);
    releaseRest();
    let total = first!.value?.byteLength ?? 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
    }
    expect(total).toBe(chunk.length * chunks);
  });

  it("cuts a download off when the upstream stops sending (idle timeout)", async () => {
    const upstream = fakeUpstream(() => {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!sent) {
            sent = true;
            return controller.enqueue(new TextEncoder().encode("a,b\r\n"));
          }
          await sleep(5000); // stalls
        },
      });
      return new Response(body, { headers: { "content-type": "text/csv" } });
    });
    const server = await startProxy(upstream, { env: { UPSTREAM_TIMEOUTS: "exportDownload=300" } });
    started.push(server);
    const t0 = Date.now();
    const response = await fetch(`${server.url}/api/v2/contact/export/exp_1/download`, {
      headers: { "x-csrf": "1" },
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("serves a download that claims HTML as an attachment of opaque bytes", async () => {
    const upstream = fakeUpstream(
      () => new Response("<script>alert(1)</script>", { headers: { "content-type": "text/html" } }),
    );
    const server = await startProxy(upstream);
    started.push(server);
    const answer = await browser(server.url).get("/api/v2/jobs/7/download");
    expect(answer.headers.get("content-type")).toBe("application/octet-stream");
    expect(answer.headers.get("content-disposition")).toBe("attachment");
  });
});

describe("over the sandbox", () => {
  let sandbox: Sandbox;
  let server: ProxyServer;
  beforeAll(async () => {
    ({ sandbox } = await startSandbox());
    server = await startProxy(recording(sandbox.fetch));
  });
  afterAll(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it("runs an export end to end: estimate, start (with a key), poll, download the CSV", async () => {
    const api = browser(server.url);
    const filter = {
      type: "group",
      children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
    };
    const estimate = await api.post<{ rows: number; credits: number }>("/api/v2/contact/export/estimate", {
      filter,
      maxRows: 200,
      reveal: "none",
    });
    expect(estimate.status).toBe(200);
    const startedExport = await api.post<{ exportId: string }>(
      "/api/v2/contact/export",
      { filter, maxRows: 200, reveal: "none", name: "Germany" },
      { idempotencyKey: "export-germany-1" },
    );
    expect(startedExport.status).toBe(202);
    const id = startedExport.body.exportId;
    let status = "";
    for (let i = 0; i < 200 && !["COMPLETED", "ERROR", "CANCELLED"].includes(status); i++) {
      status = (await api.get<{ status: string }>(`/api/v2/contact/export/${id}`)).body.status;
      if (status !== "COMPLETED") await sleep(50);
    }
    expect(status).toBe("COMPLETED");
    const file = await api.get(`/api/v2/contact/export/${id}/download`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename=/);
    const lines = file.text.trimEnd().split("\r\n");
    expect(lines.length - 1).toBe(estimate.body.rows);
    expect(lines[0]).toContain("RBID_PAO");
  });

  it("reports the session and health without the key or the upstream address", async () => {
    const api = browser(server.url);
    const session = await api.get("/api/session");
    expect(session.body).toEqual({
      mode: "sandbox",
      plan: "PAYG",
      user: null,
      role: "admin",
      keyLast4: "demo",
    });
    const health = await fetch(`${server.url}/healthz`);
    const body = (await health.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, upstream: "up", queueLength: 0, cacheHits: expect.any(Number) });
    expect(body.upstreamCalls).toEqual(expect.any(Object));
    const text = JSON.stringify(body);
    expect(text).not.toContain("sbx_payg_demo");
    expect(text).not.toContain("upstream.invalid");
  });
});

describe("health of a dead upstream", () => {
  it("says down", async () => {
    const server = await startProxy(fakeUpstream(() => json({ detail: "x" }, 503)));
    started.push(server);
    const body = await (await fetch(`${server.url}/healthz`)).json();
    expect(body).toMatchObject({ ok: true, upstream: "down" });
  });
});

describe("the SPA", () => {
  it("serves index.html (no-cache), hashed assets (immutable) and client routes, never dotfiles", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "proxy-dist-"));
    mkdirSync(path.join(dir, "assets"));
    writeFileSync(
      path.join(dir, "index.html"),
      '<!doctype html><script type="module" src="/assets/app-3f9a1c.js"></script>',
    );
    writeFileSync(path.join(dir, "assets", "app-3f9a1c.js"), "console.log('app')");
    writeFileSync(path.join(dir, ".env"), "SECRET=1");
    const server = await startProxy(fakeUpstream(), { env: { STATIC_DIR: dir } });
    started.push(server);
    const api = browser(server.url);

    const index = await api.get("/");
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/^text\/html/);
    expect(index.headers.get("cache-control")).toBe("no-cache");
    expect(index.headers.get("content-security-policy")).toContain("script-src 'self'");

    const asset = await api.get("/assets/app-3f9a1c.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");

    const route = await api.get("/audiences/42/edit");
    expect(route.status).toBe(200);
    expect(route.text).toBe(index.text);

    expect((await api.get("/assets/missing-000.js")).status).toBe(404);
    const dotfile = await api.get("/.env");
    expect(dotfile.text).not.toContain("SECRET");
    expect((await api.get("/api/unknown")).status).toBe(404);
    expect((await api.post("/", {})).status).toBe(404);
  });
});

describe("the launcher", () => {
  it("starts proxy + embedded sandbox and prints `ready on http://127.0.0.1:<port> (started in N s)`", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-launcher-"));
    const child = spawn(process.execPath, nodeArgsOf("start", builtProduct()), {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        PORT: "0",
        DATA_DIR: path.join(dataDir, "proxy"),
        ...sandboxOnTestDataset(dataDir),
        LOG_LEVEL: "silent",
      },
    });
    try {
      // Waits for the ready line or the end of the process, however long a busy machine takes.
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          const match = /^ready on (http:\/\/127\.0\.0\.1:\d+) \(started in \d+ s\)$/m.exec(out);
          if (match) resolve(match[1]!);
        });
        child.stderr.on("data", (d) => {
          out += d;
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const session = await browser(url).get("/api/session");
      expect(session.body).toEqual({
        mode: "sandbox",
        plan: "PAYG",
        user: null,
        role: "admin",
        keyLast4: "demo",
      });
    } finally {
      child.kill("SIGTERM");
    }
  }, 120_000);
});
