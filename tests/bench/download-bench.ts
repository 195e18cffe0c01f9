import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, startPostgres } from "../support/postgres";
import { rssMb, stopProcess, tail } from "../support/processes";
import { get, KEY, post, startEmbeddedProxy, startProxy, startSandboxProcess } from "./services";
import { median, table } from "./stats";

/**
 * Part four of `npm run bench`: the download of a completed export, streamed through the proxy.
 * On the AYCE demo key (nothing is charged) one export of 100,000 rows with email and mobile is
 * made by the sandbox; its CSV is then downloaded several times through the proxy, read as a
 * stream and counted record by record, interleaved with the same file downloaded straight from
 * the sandbox (the baseline of the same run). The proxy's resident memory is sampled throughout.
 * Two set-ups: the proxy in front of the sandbox as a live upstream (the proxy process holds only
 * the proxy), and the proxy as `npm start` runs it, the sandbox embedded in its process.
 */
const EXPORT_ROWS = 100_000;
const PATH = "/v2/contact/export";

const TARGET = {
  rowsPerSecond: 100_000,
  growthMb: 50,
  /** The whole proxy process in front of a live upstream (its store embedded or on a server). */
  residentMb: 250,
};

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

interface Download {
  ms: number;
  bytes: number;
  /** CSV records after the header. */
  rows: number;
}

interface Series {
  label: string;
  store: string;
  /** Its first start, on a new store, once started. */
  rssNewStoreMb: number;
  /** Started again, once its export was made and the export's rows recorded as the team's. */
  rssSettledMb: number;
  /** From the export's COMPLETED to its rows recorded (the settlement, in the embedded or server store). */
  settleSeconds: number;
  proxied: Download[];
  direct: Download[];
  rssBeforeMb: number;
  rssWarmMb: number;
  /** While downloading: the peak less the figure before the first download. */
  growthMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  exportSeconds: number;
}

export async function downloadBench(options: { rows: number; runs: number }) {
  const runs = Math.max(5, Math.round(options.runs / 4));
  const exportRows = Math.min(EXPORT_ROWS, options.rows);
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-download-"));
  const children: ChildProcess[] = [];
  const stops: (() => void)[] = [];
  const lines: string[] = [];
  try {
    // The sandbox, as a live upstream and as the baseline (its own dataset: the other parts removed theirs).
    const sandbox = await startSandboxProcess(dir, options.rows);
    children.push(sandbox.child);
    const direct = (p: string) => `${sandbox.url}${p}`;
    const directHeaders = { "x-key": KEY };
    const directExport = await makeExport((p, body) =>
      body === undefined ? get(direct(p), directHeaders) : post(direct(p), body, directHeaders),
    );
    const directDownload = () => download(direct(`${PATH}/${directExport.id}/download`), directHeaders);

    const series: Series[] = [];
    const postgres = await startPostgres({ durable: true });
    stops.push(() => postgres.remove());
    const serverUrl = await createDatabase(postgres.url);
    const setups = [
      {
        label: "a live upstream (sandbox over HTTP)",
        store: "embedded",
        start: () => startProxy(dir, "live", sandbox.url, {}),
      },
      {
        label: "a live upstream, DATABASE_URL",
        store: "PostgreSQL server",
        start: () => startProxy(dir, "live-server", sandbox.url, { DATABASE_URL: serverUrl }),
      },
      {
        label: "the embedded sandbox (npm start)",
        store: "embedded",
        start: () => startEmbeddedProxy(dir, options.rows),
      },
    ];
    for (const setup of setups) {
      // Its first start makes the store; the figures are of the proxy started again on it, as a
      // deployed proxy runs (a new store's creation is a one-off, said apart).
      const first = await setup.start();
      children.push(first.child);
      await settle();
      const rssNewStoreMb = rssMb(first.child.pid!);
      await stopProcess(first.child);
      const proxy = await setup.start();
      children.push(proxy.child);
      await settle();
      // Memory from the restart's first request to the end of its last download.
      const memory = sampleRss(proxy.child.pid!);
      const proxyHeaders = { "x-csrf": "1" };
      const via = (p: string) => `${proxy.url}/api${p}`;
      const proxyExport = await makeExport((p, body, key) =>
        body === undefined
          ? get(via(p), proxyHeaders)
          : post(via(p), body, { ...proxyHeaders, "idempotency-key": key ?? "" }),
      );
      const settling = performance.now();
      await settled(() => get(via("/ledger"), proxyHeaders), proxy.logFile);
      const settleSeconds = (performance.now() - settling) / 1000;
      const proxiedDownload = () => download(via(`${PATH}/${proxyExport.id}/download`), proxyHeaders);

      const rssSettledMb = rssMb(proxy.child.pid!);
      const downloading = sampleRss(proxy.child.pid!);
      const warm = [await proxiedDownload(), await directDownload()];
      for (const d of warm)
        if (d.rows !== exportRows) throw new Error(`a download held ${d.rows} rows, not ${exportRows}`);
      const rssWarmMb = rssMb(proxy.child.pid!);
      const proxied: Download[] = [];
      const directs: Download[] = [];
      for (let i = 0; i < runs; i++) {
        const pair = i % 2 === 0 ? ["proxy", "direct"] : ["direct", "proxy"];
        for (const which of pair)
          if (which === "proxy") proxied.push(await proxiedDownload());
          else directs.push(await directDownload());
      }
      const { beforeMb, peakMb } = memory.stop();
      const whileDownloading = downloading.stop();
      for (const d of [...proxied, ...directs])
        if (d.rows !== exportRows || d.bytes !== warm[1]!.bytes)
          throw new Error(`a download held ${d.rows} rows (${d.bytes} bytes), not ${exportRows}`);
      series.push({
        label: setup.label,
        store: setup.store,
        rssNewStoreMb,
        rssSettledMb,
        settleSeconds,
        proxied,
        direct: directs,
        rssBeforeMb: beforeMb,
        rssWarmMb,
        rssPeakMb: peakMb,
        rssAfterMb: rssMb(proxy.child.pid!),
        growthMb: whileDownloading.peakMb - whileDownloading.beforeMb,
        exportSeconds: proxyExport.seconds,
      });
      await stopProcess(proxy.child);
    }

    const fileMb = (series[0]!.direct[0]?.bytes ?? 0) / 2 ** 20;
    const rate = (d: Download) => d.rows / (d.ms / 1000);
    const mbps = (d: Download) => d.bytes / 2 ** 20 / (d.ms / 1000);
    const figures = series.map((s) => {
      const proxiedRate = median(s.proxied.map(rate));
      const directRate = median(s.direct.map(rate));
      return {
        ...s,
        proxiedRate,
        directRate,
        proxiedMbps: median(s.proxied.map(mbps)),
        directMbps: median(s.direct.map(mbps)),
      };
    });
    const n = (x: number) => Math.round(x).toLocaleString("en-US");

    if (exportRows < EXPORT_ROWS)
      lines.push(
        `BENCH_ROWS=${options.rows.toLocaleString("en-US")} is below ${EXPORT_ROWS.toLocaleString("en-US")}: the export holds all ${exportRows.toLocaleString("en-US")} rows, so the rate is measured on a smaller file than the target names.`,
        "",
      );
    lines.push(
      `Download of a completed export of ${exportRows.toLocaleString("en-US")} rows (reveal both, ${fileMb.toFixed(1)} MB of CSV), ${options.rows.toLocaleString("en-US")} contacts, AYCE key; read as a stream and every record counted; ${runs} interleaved runs each after one warm-up:`,
      "",
      table(
        [
          "proxy in front of",
          "proxy rows/s",
          "proxy MB/s",
          "direct rows/s",
          "direct MB/s",
          "ratio proxy/direct",
        ],
        figures.map((f) => [
          f.label,
          n(f.proxiedRate),
          f.proxiedMbps.toFixed(1),
          n(f.directRate),
          f.directMbps.toFixed(1),
          (f.proxiedRate / f.directRate).toFixed(2),
        ]),
      ),
      "",
      `Medians. "Direct" is the same file straight from the sandbox with the key. Exports made in ${figures.map((f) => `${f.exportSeconds.toFixed(1)} s`).join(", ")} (start to COMPLETED), their rows recorded as the team's in ${figures.map((f) => `${f.settleSeconds.toFixed(1)} s`).join(", ")} more (for information).`,
      "",
      "Resident memory of the whole proxy process (/proc VmRSS, sampled every 10 ms; the embedded store's database worker included):",
      "",
      table(
        [
          "proxy in front of",
          "store",
          "first start, new store",
          "started again",
          "export's rows recorded",
          "after a warm-up download",
          "peak",
          "after the downloads",
        ],
        figures.map((f) => [
          f.label,
          f.store,
          `${f.rssNewStoreMb.toFixed(0)} MB`,
          `${f.rssBeforeMb.toFixed(0)} MB`,
          `${f.rssSettledMb.toFixed(0)} MB`,
          `${f.rssWarmMb.toFixed(0)} MB`,
          `${f.rssPeakMb.toFixed(0)} MB`,
          `${f.rssAfterMb.toFixed(0)} MB`,
        ]),
      ),
      "",
      `Each proxy is started once on a new store (its creation: PostgreSQL's initdb and the migrations, in the first column), stopped, and started again on it, as a deployed proxy runs; from then on it is sampled from its first request to its last download: the export made and its ${n(exportRows)} rows recorded as the team's, then ${runs + 1} downloads of ${fileMb.toFixed(1)} MB each. Downloading levels off instead of adding up: what remains is the socket buffers of chunks already sent, freed at V8's next collection. Where the memory goes and why: src/server/README.md, "Memory".`,
      "",
      table(
        ["target", "figure", "result"],
        figures.flatMap((f) => [
          [
            `download through the proxy >= ${n(TARGET.rowsPerSecond)} rows/s, in front of ${f.label}`,
            `${n(f.proxiedRate)} rows/s (${(f.proxiedRate / f.directRate).toFixed(2)} of direct)`,
            verdict(f.proxiedRate >= TARGET.rowsPerSecond),
          ],
          [
            `proxy memory grows <= ${TARGET.growthMb} MB while downloading, in front of ${f.label}`,
            `+${f.growthMb.toFixed(1)} MB (each file ${fileMb.toFixed(1)} MB)`,
            verdict(f.growthMb <= TARGET.growthMb),
          ],
          ...(f.label.startsWith("a live upstream")
            ? [
                [
                  `proxy resident memory <= ${TARGET.residentMb} MB at its peak, in front of ${f.label} (${f.store} store)`,
                  `${f.rssPeakMb.toFixed(0)} MB (first start on a new store: ${f.rssNewStoreMb.toFixed(0)} MB)`,
                  verdict(f.rssPeakMb <= TARGET.residentMb),
                ],
              ]
            : []),
        ]),
      ),
      "",
      `Part four took ${((performance.now() - started) / 1000).toFixed(0)} s (the sandbox's dataset generated again included).`,
    );
  } finally {
    for (const child of children.reverse())
      if (child.exitCode === null && child.signalCode === null) await stopProcess(child);
    for (const stop of stops) stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join("\n");

  /** Starts the bench export and waits for it to complete; `send` talks to the sandbox or a proxy. */
  async function makeExport(send: (p: string, body?: unknown, idempotencyKey?: string) => Promise<unknown>) {
    const t0 = performance.now();
    const startedExport = (await send(
      PATH,
      { filter: null, maxRows: exportRows, reveal: "both", name: "bench" },
      `bench-export-${Date.now()}`,
    )) as { exportId: string; rows: number };
    if (startedExport.rows !== exportRows)
      throw new Error(`the export holds ${startedExport.rows} rows, not ${exportRows}`);
    for (;;) {
      const status = (await send(`${PATH}/${startedExport.exportId}`)) as { status: string; error?: string };
      if (status.status === "COMPLETED") break;
      if (status.status === "ERROR" || status.status === "CANCELLED")
        throw new Error(`the bench export ended ${status.status}: ${status.error ?? ""}`);
      if (performance.now() - t0 > 600_000)
        throw new Error("the bench export did not complete in 10 minutes");
      await new Promise((r) => setTimeout(r, 100));
    }
    return { id: startedExport.exportId, seconds: (performance.now() - t0) / 1000 };
  }
}

/** One download, read as a stream (never held whole), its CSV records counted as they pass. */
async function download(url: string, headers: Record<string, string>): Promise<Download> {
  const t0 = performance.now();
  const response = await fetch(url, { headers });
  if (response.status !== 200 || !response.body)
    throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  const records = new CsvRecords();
  let bytes = 0;
  const reader = response.body.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    bytes += next.value.byteLength;
    records.push(next.value);
  }
  return { ms: performance.now() - t0, bytes, rows: records.count() - 1 };
}

/** Counts RFC 4180 records: line feeds outside quoted fields (a quoted field may hold one). */
class CsvRecords {
  private terminators = 0;
  private quoted = false;
  private last = 10;

  push(chunk: Uint8Array) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (bytes.length === 0) return;
    if (!this.quoted && bytes.indexOf(34) === -1) {
      // No quote in the chunk: every line feed ends a record (memchr, not a byte loop).
      for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) this.terminators++;
    } else {
      for (const byte of bytes)
        if (byte === 34) this.quoted = !this.quoted;
        else if (byte === 10 && !this.quoted) this.terminators++;
    }
    this.last = bytes[bytes.length - 1]!;
  }

  /** Records, the header included; a last record without its line feed counts too. */
  count() {
    return this.terminators + (this.last === 10 ? 0 : 1);
  }
}

/** A pause for a started process's own start-up work (its first collections) to pass. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 3_000));

/**
 * Waits until the proxy's ledger holds the export, settled: its rows are recorded as the team's.
 * If it is not, the proxy's own lines other than requests say why.
 */
async function settled(readLedger: () => Promise<unknown>, logFile: string) {
  const started = performance.now();
  for (;;) {
    const { entries } = (await readLedger()) as { entries: { operation: string; outcome: string }[] };
    const exports = entries.filter((entry) => entry.operation === "exportStart");
    if (exports.length > 0 && exports.every((entry) => entry.outcome !== "pending")) return;
    if (performance.now() - started > 300_000)
      throw new Error(
        `the bench export was not settled in 5 minutes; the proxy said:\n${tail(logFile, 65_536)
          .split("\n")
          .filter((line) => line && !line.includes('"msg":"request"'))
          .slice(-10)
          .join("\n")}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Samples a process's resident memory every 10 ms until stopped, or until the process has gone
 * (then the bench's own error, with the proxy's log, is what is said, not a failed read of /proc).
 */
function sampleRss(pid: number) {
  const beforeMb = rssMb(pid);
  let peakMb = beforeMb;
  const read = () => {
    try {
      peakMb = Math.max(peakMb, rssMb(pid));
    } catch {
      clearInterval(timer);
    }
  };
  const timer = setInterval(read, 10);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      read();
      return { beforeMb, peakMb };
    },
  };
}
