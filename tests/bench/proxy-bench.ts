import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { stopProcess } from "../support/processes";
import {
  callsOf,
  counters,
  KEY,
  post,
  startEmbeddedProxy,
  startProxy,
  startSandboxProcess,
} from "./services";
import { fmt, median, p95, table, timed } from "./stats";

/**
 * Part two of `npm run bench`: the proxy (`src/launcher.ts` in its own process) in front of a live
 * sandbox (another process), everything on 127.0.0.1. Every figure is a ratio to, or a count from,
 * something measured in the same run:
 *  1. the proxy's overhead on a count, against the same count sent straight to the sandbox
 *     (interleaved, the proxy's cache off so that every call reaches the sandbox);
 *  2. cached counts under load (autocannon, 50 connections), against the proxy's `/healthz` under
 *     the same load;
 *  3. a burst of identical counts on a cold cache, against the upstream calls it caused.
 */
const COUNT_PATH = "/v2/contact/count";
const LOAD_SECONDS = 10;
const CONNECTIONS = 50;
const BURST = 300;

const TARGET = {
  overheadMs: 1,
  cachedRps: 3000,
  /** Requests/s of the cached count over /healthz's, in the same run: the machine's speed cancels out. */
  cachedOfHealth: 0.6,
  cachedP99Ms: 50,
};

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

/** A count filter of one condition: cheap for the sandbox, so the proxy's share shows. */
const oneCondition = (column: string, operator: string, value: string | number) => ({
  filter: {
    type: "group",
    op: "AND",
    children: [{ type: "condition", column, operator, value }],
  },
});

export async function proxyBench(options: { rows: number; runs: number }) {
  const runs = Math.max(500, options.runs);
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-proxy-"));
  const children: ChildProcess[] = [];
  const lines: string[] = [];
  try {
    // The sandbox, as a live upstream (its own process, its own dataset: part one removed its copy).
    const sandbox = await startSandboxProcess(dir, options.rows);
    children.push(sandbox.child);
    const sandboxUrl = sandbox.url;

    // 1. Overhead, as deployed: the proxy of `npm start` (the sandbox embedded in its process, over
    // the same dataset file), cache off, interleaved with the same count sent to the sandbox directly.
    const body = oneCondition("JOB_LEVEL_PER", "eq", "VP");
    const embedded = await startEmbeddedProxy(dir, options.rows);
    children.push(embedded.child);
    const overheadRow = await measureOverhead(sandboxUrl, embedded.url, body, runs);
    await stopProcess(embedded.child);
    // The same with the sandbox as a live upstream: one more loopback hop, for information.
    const uncached = await startProxy(dir, "uncached", sandboxUrl, { CACHE_TTL_MS: "0" });
    children.push(uncached.child);
    const liveRow = await measureOverhead(sandboxUrl, uncached.url, body, runs);
    await stopProcess(uncached.child);

    // 2. and 3.: the proxy with its cache on (default TTL).
    const cached = await startProxy(dir, "cached", sandboxUrl, {});
    children.push(cached.child);
    const countUrl = `${cached.url}/api${COUNT_PATH}`;
    const loadBody = oneCondition("JOB_LEVEL_PER", "eq", "Director");
    const load = (url: string, method: "GET" | "POST", seconds: number) =>
      autocannon({
        url,
        method,
        connections: CONNECTIONS,
        duration: seconds,
        headers: method === "POST" ? { "x-csrf": "1", "content-type": "application/json" } : {},
        body: method === "POST" ? JSON.stringify(loadBody) : undefined,
      });
    await post(countUrl, loadBody, { "x-csrf": "1" }); // warms the cache
    await load(`${cached.url}/healthz`, "GET", 2); // warms both routes' code, discarded
    await load(countUrl, "POST", 2);
    const health = await load(`${cached.url}/healthz`, "GET", LOAD_SECONDS);
    await post(countUrl, loadBody, { "x-csrf": "1" }); // still warm (TTL 60 s), but be sure
    const before2 = await counters(cached.url);
    const count = await load(countUrl, "POST", LOAD_SECONDS);
    const after2 = await counters(cached.url);
    const loadUpstream = callsOf(after2, "count") - callsOf(before2, "count");

    // 3. A burst of identical counts with a filter never asked before. Its connections are opened
    // first (kept alive by fetch), so the requests arrive together rather than one handshake apart.
    const burstBody = oneCondition("EMPLOYEE_COUNT_MIN", "gte", 4321);
    await Promise.all(
      Array.from({ length: BURST }, () => fetch(`${cached.url}/healthz`).then((r) => r.arrayBuffer())),
    );
    const before3 = await counters(cached.url);
    const answers = await Promise.all(
      Array.from({ length: BURST }, () =>
        fetch(countUrl, {
          method: "POST",
          headers: { "x-csrf": "1", "content-type": "application/json" },
          body: JSON.stringify(burstBody),
        }).then(async (r) => ({ status: r.status, text: await r.text() })),
      ),
    );
    const after3 = await counters(cached.url);
    const burstUpstream = callsOf(after3, "count") - callsOf(before3, "count");
    const burstOk = answers.filter((a) => a.status === 200).length;
    const distinct = new Set(answers.filter((a) => a.status === 200).map((a) => a.text)).size;
    const misses = after3.cacheMisses - before3.cacheMisses;
    const joins = after3.singleFlightJoins - before3.singleFlightJoins;
    const hits = after3.cacheHits - before3.cacheHits;

    const rps = count.requests.average;
    const healthRps = health.requests.average;
    const failures = (r: autocannon.Result) => r.non2xx + r.errors + r.timeouts;
    const burstPass = burstUpstream === 1 && burstOk === BURST && distinct === 1;

    lines.push(
      `Proxy overhead on a one-condition count, ${options.rows.toLocaleString("en-US")} contacts, cache off, ${runs} interleaved runs each (ms):`,
      "",
      table(
        [
          "proxy in front of",
          "proxy median",
          "proxy p95",
          "direct median",
          "direct p95",
          "overhead",
          "paired",
          "ratio",
        ],
        [
          overheadRow.cells("the embedded sandbox (npm start)"),
          liveRow.cells("a live upstream (sandbox over HTTP)"),
        ],
      ),
      "",
      `Proxied calls that reached the sandbox: ${overheadRow.reached} and ${liveRow.reached} of ${runs}. Overhead = difference of the medians; paired = median of the per-run differences. "Direct" is the same sandbox code over HTTP with the key; a live upstream adds a second loopback hop.`,
      "",
      `Proxy (own process, cache on) under autocannon (this process), ${CONNECTIONS} connections, ${LOAD_SECONDS} s each:`,
      "",
      table(
        ["route", "requests/s", "p50 ms", "p99 ms", "non-2xx", "errors", "ratio to /healthz"],
        [
          [
            "GET /healthz (baseline)",
            healthRps.toFixed(0),
            health.latency.p50,
            health.latency.p99,
            health.non2xx,
            health.errors + health.timeouts,
            "1.00",
          ],
          [
            "POST /api/v2/contact/count (cached)",
            rps.toFixed(0),
            count.latency.p50,
            count.latency.p99,
            count.non2xx,
            count.errors + count.timeouts,
            (rps / healthRps).toFixed(2),
          ],
        ],
      ),
      "",
      `Upstream calls during the cached-count load: ${loadUpstream}.`,
      "",
      table(
        ["target", "figure", "result"],
        [
          [
            // The median of the per-call differences: each proxied call is timed beside a direct one.
            `proxy overhead at the median <= ${TARGET.overheadMs} ms (as deployed)`,
            `${fmt(overheadRow.paired)} ms per call (difference of medians ${fmt(overheadRow.overhead)} ms, ratio ${overheadRow.ratio.toFixed(2)})`,
            verdict(overheadRow.paired <= TARGET.overheadMs),
          ],
          [
            `cached count >= ${TARGET.cachedRps.toLocaleString("en-US")} requests/s`,
            `${rps.toFixed(0)} requests/s (${(rps / healthRps).toFixed(2)} of /healthz)`,
            verdict(rps >= TARGET.cachedRps),
          ],
          [
            `cached count >= ${TARGET.cachedOfHealth} of /healthz's requests/s`,
            `${(rps / healthRps).toFixed(2)} (${rps.toFixed(0)} against ${healthRps.toFixed(0)})`,
            verdict(rps / healthRps >= TARGET.cachedOfHealth),
          ],
          [
            `cached count p99 <= ${TARGET.cachedP99Ms} ms`,
            `${count.latency.p99} ms`,
            verdict(count.latency.p99 <= TARGET.cachedP99Ms),
          ],
          [
            "cached count: no failed request",
            `${failures(count)} non-2xx or errors of ${count.requests.total}`,
            verdict(failures(count) === 0),
          ],
          [
            `burst of ${BURST} identical counts (cold) reaches the upstream once`,
            `${BURST} requests -> ${burstUpstream} upstream call${burstUpstream === 1 ? "" : "s"} (${misses} miss, ${joins} joined in flight, ${hits} cache hits; ${burstOk} answered 200, ${distinct} distinct answer${distinct === 1 ? "" : "s"})`,
            verdict(burstPass),
          ],
        ],
      ),
      "",
      `Part two took ${((performance.now() - started) / 1000).toFixed(0)} s (the sandbox's dataset generated again included).`,
    );
  } finally {
    // A child already gone (stopped above, or crashed) has nothing left to stop.
    for (const child of children.reverse())
      if (child.exitCode === null && child.signalCode === null) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join("\n");
}

/**
 * Times the same count sent straight to the sandbox and through a proxy, interleaved and in
 * alternating order so neither always follows the other; checks every proxied call reached it.
 */
async function measureOverhead(sandboxUrl: string, proxyUrl: string, body: unknown, runs: number) {
  const direct = () => post(`${sandboxUrl}${COUNT_PATH}`, body, { "x-key": KEY });
  const proxied = () => post(`${proxyUrl}/api${COUNT_PATH}`, body, { "x-csrf": "1" });
  const [directAnswer, proxiedAnswer] = [await direct(), await proxied()];
  if (JSON.stringify(directAnswer) !== JSON.stringify(proxiedAnswer))
    throw new Error(
      `the proxy and the sandbox disagree: ${JSON.stringify(proxiedAnswer)} vs ${JSON.stringify(directAnswer)}`,
    );
  for (let i = 0; i < 30; i++) {
    await direct();
    await proxied();
  }
  const before = await counters(proxyUrl);
  const directMs: number[] = [];
  const proxiedMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const pair = i % 2 === 0 ? [direct, proxied] : [proxied, direct];
    for (const call of pair) (call === direct ? directMs : proxiedMs).push((await timed(call))[0]);
  }
  const reached = callsOf(await counters(proxyUrl), "count") - callsOf(before, "count");
  const overhead = median(proxiedMs) - median(directMs);
  const paired = median(proxiedMs.map((ms, i) => ms - directMs[i]!));
  const ratio = median(proxiedMs) / median(directMs);
  return {
    overhead,
    paired,
    ratio,
    reached,
    cells: (label: string) => [
      label,
      fmt(median(proxiedMs)),
      fmt(p95(proxiedMs)),
      fmt(median(directMs)),
      fmt(p95(directMs)),
      fmt(overhead),
      fmt(paired),
      ratio.toFixed(2),
    ],
  };
}
