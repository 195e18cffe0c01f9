import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import type { Browser, Page } from "playwright-core";
import { encodeTreeForUrl, WORKING_TREE_KEY } from "../../src/app/lib/working-tree";
import type { FilterNode, GroupNode } from "../../src/contract/filter";
import { CHROMIUM_PATH, launchChromium } from "../support/chromium";
import { stopProcess } from "../support/processes";
import { type CompareResult, compareEditors } from "./editor-compare";
import { startBrowserApp } from "./services";
import { fmt, median, p95, table } from "./stats";

/**
 * Part three of `npm run bench`: the browser side, in Debian's Chromium, everything on 127.0.0.1.
 *  1. Typing in the filter editor: the real FilterEditor + useFilterEditor on a bench-only page
 *     (tests/bench/editor-harness, built here with Vite against react-dom's profiling build), a tree
 *     of 30 groups x 10 conditions against one of 3 x 10 (the baseline of the same run). Per
 *     keystroke: React Profiler times, keydown-to-commit time, and which components rendered. Then
 *     the same editor against react-querybuilder on the same tree, the same scripted edits
 *     interleaved in the same browser (editor-compare.ts). For information, the same keystrokes on
 *     the real Builder page (production build, no profiler).
 *  2. The live count's traffic: the whole app as `npm start` runs it (embedded sandbox, proxy cache
 *     off), a scripted session of 30 edits then 10 undos, counted at the proxy's upstream client.
 *  3. The initial JavaScript of the production build, gzipped, and the lazily loaded chunks.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HARNESS_DIR = fileURLToPath(new URL("./editor-harness", import.meta.url));

const TARGET = {
  commitMs: 16,
  countCalls: 30,
  initialJsKb: 200,
};

// Part 1: the big tree and its baseline, and the condition typed into in each (deep in the tree).
const BIG: TreeShape = { groups: 30, perGroup: 10, target: "g23c7", parent: "g23" };
const BASELINE: TreeShape = { groups: 3, perGroup: 10, target: "g2c7", parent: "g2" };
const WARMUP_TEXT = " warm up";
const TYPED_TEXT = " the quick brown fox jumps over the lazy dog, then types on ab";
const KEY_DELAY_MS = 40;

// Part 2: the scripted session.
const EDITS = 30;
const KEYS_PER_EDIT = 10; // Ctrl+A then a 9-letter word
const KEY_GAP_MS = 120;
const EDIT_PAUSE_MS = 1500;
const REVISITS = 10;
const REVISIT_PAUSE_MS = 1200;
const SESSION_ROWS = 50_000;
const WORDS = [
  "Alexander",
  "Amsterdam",
  "Solutions",
  "Catherine",
  "Barcelona",
  "Logistics",
  "Elizabeth",
  "Frankfurt",
  "Analytics",
  "Frederick",
  "Edinburgh",
  "Platforms",
  "Stephanie",
  "Stockholm",
  "Insurance",
  "Gabrielle",
  "Marseille",
  "Marketing",
  "Sebastian",
  "Rotterdam",
  "Education",
  "Nathaniel",
  "Innsbruck",
  "Financial",
  "Josephine",
  "Cambridge",
  "Resources",
  "Christian",
  "Liverpool",
  "Technique",
];

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

export async function editorBench(options: { rows: number }) {
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-editor-"));
  const lines: string[] = [];
  let browser: Browser | undefined;
  let server: Server | undefined;
  let app: ChildProcess | undefined;
  try {
    // 3. first: its build is also the bundle the session of 2. is served.
    const appDir = path.join(dir, "app");
    const bundle = await measureBundle(appDir);

    // 1. The editor harness, built against the profiling build of react-dom, served statically.
    const harnessDir = path.join(dir, "harness");
    await buildHarness(harnessDir);
    server = await serveStatic(harnessDir);
    const { port } = server.address() as { port: number };
    const harnessUrl = `http://127.0.0.1:${port}/`;
    browser = await launchBrowser();
    const big = await measureTyping(browser, harnessUrl, BIG);
    const baseline = await measureTyping(browser, harnessUrl, BASELINE);
    const compared = await compareEditors(browser, `${harnessUrl}compare.html`);

    // 2. The whole app, as `npm start` runs it.
    const sessionRows = Math.min(options.rows, SESSION_ROWS);
    const started2 = await startBrowserApp(dir, sessionRows, {
      staticDir: appDir,
      logLevel: "info",
      timeoutMs: 300_000,
    });
    app = started2.child;
    const session = await scriptedSession(browser, started2.url);
    const onPage = [
      await measurePageTyping(browser, started2.url, BIG),
      await measurePageTyping(browser, started2.url, BASELINE),
    ];

    lines.push(...typingReport(big, baseline, onPage), "", ...compared.lines, "");
    lines.push(...sessionReport(session, sessionRows), "");
    lines.push(...bundleReport(bundle), "");

    const isolationOk = big.isolated && baseline.isolated;
    lines.push(
      table(
        ["target", "figure", "result"],
        [
          [
            `300 conditions: a keystroke commits in <= ${TARGET.commitMs} ms at the median`,
            `keydown to commit ${fmt(big.latency.median)} ms (p95 ${fmt(big.latency.p95)}); React render ${fmt(big.actual.median)} ms (p95 ${fmt(big.actual.p95)}); ${(big.latency.median / baseline.latency.median).toFixed(2)}x the 30-condition tree`,
            verdict(big.latency.median <= TARGET.commitMs && big.valueOk),
          ],
          compareRow(compared),
          [
            "(information, not the issue's measure) the same on the whole Builder page",
            `keydown to commit ${fmt(onPage[0]!.keydownToCommit.median)} ms (p95 ${fmt(onPage[0]!.keydownToCommit.p95)}), to the end of the keystroke's task ${fmt(onPage[0]!.keydownToEnd.median)} ms (p95 ${fmt(onPage[0]!.keydownToEnd.p95)}); ${(onPage[0]!.keydownToEnd.median / onPage[1]!.keydownToEnd.median).toFixed(2)}x the 30-condition tree`,
            onPage[0]!.keydownToCommit.median <= TARGET.commitMs ? "info: within" : "info: OVER",
          ],
          [
            "a keystroke re-renders only its row and its ancestor groups",
            `${big.isolatedKeys}/${big.samples} keystrokes (300 conditions), ${baseline.isolatedKeys}/${baseline.samples} (30): ${big.offenders.length + baseline.offenders.length === 0 ? "no sibling or other branch rendered" : `foreign renders: ${[...big.offenders, ...baseline.offenders].slice(0, 6).join(", ")}`}`,
            verdict(isolationOk),
          ],
          [
            `${EDITS} edits of ${KEYS_PER_EDIT} keystrokes send <= ${TARGET.countCalls} counts upstream`,
            `${session.editCounts} upstream count calls (${session.browserEditCounts} sent by the browser)`,
            verdict(session.editCounts <= TARGET.countCalls && session.editsOk),
          ],
          [
            `revisiting ${REVISITS} earlier trees sends no count`,
            `${session.revisitCounts} upstream count calls (${session.browserRevisitCounts} sent by the browser); ${session.revisitsMatched}/${REVISITS} undos showed the expected earlier tree`,
            verdict(session.revisitCounts === 0 && session.revisitsMatched === REVISITS),
          ],
          [
            `initial JavaScript <= ${TARGET.initialJsKb} kB gzipped`,
            `${kb(bundle.initialGzip)} (${bundle.initial.length} file${bundle.initial.length === 1 ? "" : "s"}); the Builder screen (/) loads ${kb(bundle.firstScreenGzip)} in all`,
            verdict(bundle.initialGzip <= TARGET.initialJsKb * 1000),
          ],
        ],
      ),
      "",
      `Part three took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    );
  } finally {
    await browser?.close().catch(() => {});
    if (server) await new Promise((resolve) => server!.close(resolve));
    if (app && app.exitCode === null && app.signalCode === null) await stopProcess(app);
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

interface OutputChunkLike {
  type: "chunk";
  fileName: string;
  isEntry: boolean;
  isDynamicEntry: boolean;
  imports: string[];
  facadeModuleId: string | null;
  modules: Record<string, { code: string | null; renderedLength: number }>;
}
interface OutputLike {
  output: ({ type: "asset"; fileName: string } | OutputChunkLike)[];
}

/** Vite's build with NODE_ENV=production (as `npm start` builds), whatever the caller's is. */
async function viteBuild(config: Record<string, unknown>): Promise<OutputChunkLike[]> {
  const { build } = await import("vite");
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    const result = (await build({ mode: "production", logLevel: "warn", ...config })) as
      | OutputLike
      | OutputLike[];
    const outputs = Array.isArray(result) ? result : [result];
    return outputs.flatMap((o) => o.output.filter((f): f is OutputChunkLike => f.type === "chunk"));
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

function compareRow(c: CompareResult): string[] {
  return [
    "300 conditions: our median commit time per edit no worse than react-querybuilder's on the same tree",
    c.summary,
    verdict(c.pass),
  ];
}

/** The bench pages (index.html: the typing harness; compare.html: ours against react-querybuilder). */
export async function buildHarness(outDir: string) {
  await viteBuild({
    root: HARNESS_DIR,
    configFile: false,
    plugins: [react()],
    // The profiling build of react-dom: <Profiler onRender> reports in a production bundle.
    resolve: { alias: [{ find: /^react-dom\/client$/, replacement: "react-dom/profiling" }] },
    // Not minified, so that component names survive for the render report (the code is the same).
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      sourcemap: false,
      rolldownOptions: {
        input: {
          index: path.join(HARNESS_DIR, "index.html"),
          compare: path.join(HARNESS_DIR, "compare.html"),
        },
      },
    },
  });
}

// ---------------------------------------------------------------------------------------------
// 3. The bundle
// ---------------------------------------------------------------------------------------------

interface BundleFile {
  file: string;
  bytes: number;
  gzip: number;
}

interface Bundle {
  initial: BundleFile[];
  initialGzip: number;
  lazy: (BundleFile & { name: string })[];
  firstScreen: BundleFile[];
  firstScreenGzip: number;
  /** Largest contributors (by package or source folder) to the initial files and to the Builder's. */
  initialParts: Part[];
  builderParts: Part[];
}

interface Part {
  name: string;
  rendered: number;
  gzipAlone: number;
}

async function measureBundle(outDir: string): Promise<Bundle> {
  const chunks = await viteBuild({
    root: ROOT,
    configFile: path.join(ROOT, "vite.config.ts"),
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  const html = readFileSync(path.join(outDir, "index.html"), "utf8");
  const initialNames = [
    ...[...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]!),
  ].map((href) => href.replace(/^\//, ""));
  const fileOf = (name: string): BundleFile => {
    const code = readFileSync(path.join(outDir, name));
    return { file: name, bytes: code.length, gzip: gzipSync(code).length };
  };
  const initial = initialNames.map(fileOf);
  const initialSet = new Set(initialNames);
  const byName = new Map(chunks.map((c) => [c.fileName, c]));

  // The Builder's chunk and what it imports beyond the initial files: what "/" loads besides.
  const builderChunk = chunks.find((c) => c.isDynamicEntry && /builder-page/.test(c.fileName));
  const firstScreenNames = new Set(initialNames);
  const visit = (name: string) => {
    if (firstScreenNames.has(name)) return;
    firstScreenNames.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  if (builderChunk) visit(builderChunk.fileName);
  const firstScreen = [...firstScreenNames].map(fileOf);

  const lazy = chunks
    .filter((c) => !initialSet.has(c.fileName))
    .map((c) => ({
      ...fileOf(c.fileName),
      name: c.facadeModuleId ? path.relative(ROOT, c.facadeModuleId) : "(shared)",
    }))
    .sort((a, b) => b.gzip - a.gzip);

  const partsOf = (names: Iterable<string>) => {
    const parts = new Map<string, Part>();
    for (const name of names)
      for (const [id, module] of Object.entries(byName.get(name)?.modules ?? {})) {
        const key = partName(id);
        const part = parts.get(key) ?? { name: key, rendered: 0, gzipAlone: 0 };
        part.rendered += module.renderedLength;
        part.gzipAlone += module.code ? gzipSync(module.code).length : 0;
        parts.set(key, part);
      }
    return [...parts.values()].sort((a, b) => b.rendered - a.rendered);
  };
  return {
    initial,
    initialGzip: initial.reduce((sum, f) => sum + f.gzip, 0),
    lazy,
    firstScreen,
    firstScreenGzip: firstScreen.reduce((sum, f) => sum + f.gzip, 0),
    initialParts: partsOf(initialNames),
    builderParts: builderChunk ? partsOf([builderChunk.fileName]) : [],
  };
}

/** `node_modules/@scope/name/...` -> `@scope/name`; `src/app/features/x/...` -> `src/app/features/x`. */
function partName(id: string): string {
  const clean = id.replace(/\0/g, "").replace(/\?.*$/, "");
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(clean);
  if (inModules) return inModules[1]!;
  const relative = path.relative(ROOT, clean);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return clean;
  const segments = relative.split(path.sep);
  const depth = segments[1] === "app" && segments[2] === "features" ? 4 : 3;
  return segments.slice(0, Math.min(depth, segments.length - 1)).join("/") || relative;
}

function bundleReport(bundle: Bundle): string[] {
  const share = (parts: Part[], top: number) =>
    parts
      .slice(0, top)
      .map((p) => `${p.name} ${kb(p.rendered)} (${kb(p.gzipAlone)} gzipped alone)`)
      .join("; ");
  return [
    "Production build (vite.config.ts, Vite's JS API, a temporary outDir), gzip (zlib, default level):",
    "",
    table(
      ["file", "loaded", "bytes", "gzipped"],
      [
        ...bundle.initial.map((f) => [f.file, "initially (index.html)", kb(f.bytes), kb(f.gzip)]),
        [
          "total initial JavaScript",
          "",
          kb(bundle.initial.reduce((s, f) => s + f.bytes, 0)),
          kb(bundle.initialGzip),
        ],
        ...bundle.lazy.map((f) => [f.file, `lazily: ${f.name}`, kb(f.bytes), kb(f.gzip)]),
        [
          "the Builder screen (/) in all",
          "initial + the Builder's chunks",
          kb(bundle.firstScreen.reduce((s, f) => s + f.bytes, 0)),
          kb(bundle.firstScreenGzip),
        ],
      ],
    ),
    "",
    `Largest parts of the initial JavaScript (rendered bytes before minification): ${share(bundle.initialParts, 6)}.`,
    `Largest parts of the Builder's chunk: ${share(bundle.builderParts, 6)}.`,
  ];
}

// ---------------------------------------------------------------------------------------------
// 1. Typing in the editor harness
// ---------------------------------------------------------------------------------------------

export function serveStatic(dir: string): Promise<Server> {
  const types: Record<string, string> = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
  };
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    const file = path.join(dir, pathname === "/" ? "index.html" : pathname);
    if (!file.startsWith(dir) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} is missing (npm run pretest installs it)`);
  return launchChromium();
}

/** One keystroke as a page saw it (performance.now() clock). */
interface KeyTimes {
  index: number;
  /** The keydown event's timestamp: when the key was pressed. */
  t0: number;
  /** When the keydown reached the page's first (capture) listener. */
  handled: number;
  /** When the keystroke's input event reached the first (capture) listener. */
  input?: number;
  /** When a message posted at the keydown arrived: the keystroke's task had ended. */
  end?: number;
}

interface HarnessDump {
  hookInstalled: boolean;
  keys: KeyTimes[];
  commits: { key: number; actualDuration: number; at: number }[];
  probe: { key: number; name: string }[];
  fibers: { key: number; rendered: { name: string; owner: string }[]; changedProviders: string[] }[];
  fetches: string[];
  value: unknown;
}

interface Series {
  median: number;
  p95: number;
}
const series = (samples: number[]): Series => ({ median: median(samples), p95: p95(samples) });
const cell = (s: Series) => `${fmt(s.median)} / ${fmt(s.p95)}`;

interface TreeShape {
  groups: number;
  perGroup: number;
  target: string;
  parent: string;
}

/** Where a keystroke's time went: before React's onChange, in it, and the task's tail. */
interface Phases {
  keydownToInput: Series;
  inputToEnd: Series;
  keydownToEnd: Series;
}

function phasesOf(keys: KeyTimes[]): Phases {
  const complete = keys.filter((k) => k.input !== undefined && k.end !== undefined);
  return {
    keydownToInput: series(complete.map((k) => k.input! - k.t0)),
    inputToEnd: series(complete.map((k) => k.end! - k.input!)),
    keydownToEnd: series(complete.map((k) => k.end! - k.t0)),
  };
}

interface TypingResult extends Phases {
  conditions: number;
  target: string;
  samples: number;
  commitsPerKey: Series;
  actual: Series;
  latency: Series;
  inputToCommit: Series;
  components: Series;
  probeSet: string;
  isolatedKeys: number;
  isolated: boolean;
  offenders: string[];
  /** Context providers whose value changed, with the number of keystrokes where it did. */
  changedProviders: string;
  keydownListeners: number;
  valueOk: boolean;
}

/** Listeners for `type` on the document (DevTools protocol: page scripts cannot list them). */
async function documentListeners(page: Page, type: string): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { result } = (await cdp.send("Runtime.evaluate", { expression: "document" })) as {
      result: { objectId?: string };
    };
    const { listeners } = (await cdp.send("DOMDebugger.getEventListeners", {
      objectId: result.objectId!,
    })) as { listeners: { type: string }[] };
    return listeners.filter((l) => l.type === type).length;
  } finally {
    await cdp.detach();
  }
}

async function measureTyping(browser: Browser, url: string, tree: TreeShape): Promise<TypingResult> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  try {
    await page.goto(`${url}?groups=${tree.groups}&per=${tree.perGroup}`);
    await page.waitForFunction(() => (window as unknown as { __bench?: { ready: boolean } }).__bench?.ready);
    const input = page.locator(`[data-node-id="${tree.target}"] input[data-field="value"]`);
    await input.scrollIntoViewIfNeeded();
    await input.click();
    await page.keyboard.press("End");
    await page.keyboard.type(WARMUP_TEXT, { delay: KEY_DELAY_MS });
    await sleep(300);
    await page.evaluate(() => (window as unknown as { __bench: { reset(): void } }).__bench.reset());
    await page.keyboard.type(TYPED_TEXT, { delay: KEY_DELAY_MS });
    await sleep(300);
    const dump = (await page.evaluate((id) => {
      const b = (window as unknown as { __bench: HarnessDump & { valueOf(id: string): unknown } }).__bench;
      return {
        hookInstalled: b.hookInstalled,
        keys: b.keys,
        commits: b.commits,
        probe: b.probe,
        fibers: b.fibers,
        fetches: b.fetches,
        value: b.valueOf(id),
      };
    }, tree.target)) as HarnessDump;
    if (errors.length > 0) throw new Error(`the editor harness failed: ${errors.join("; ")}`);
    if (!dump.hookInstalled) throw new Error("the DevTools-style hook was not installed before react-dom");
    if (dump.commits.length === 0)
      throw new Error("no Profiler commit recorded: is the profiling build in use?");
    return analyseTyping(dump, tree, await documentListeners(page, "keydown"));
  } finally {
    await context.close();
  }
}

function analyseTyping(dump: HarnessDump, tree: TreeShape, keydownListeners: number): TypingResult {
  const expected = new Set([
    `ConditionRow:${tree.target}`,
    `NodeItem:${tree.target}`,
    `GroupNode:${tree.parent}`,
    `NodeItem:${tree.parent}`,
    "GroupNode:root",
  ]);
  const allowedOwners = new Set([tree.target, tree.parent, "root", ""]);
  const commitsPerKey: number[] = [];
  const actual: number[] = [];
  const latency: number[] = [];
  const inputToCommit: number[] = [];
  const components: number[] = [];
  const offenders = new Set<string>();
  const probeSets = new Map<string, number>();
  const providers = new Map<string, number>();
  let isolatedKeys = 0;
  for (const key of dump.keys) {
    const commits = dump.commits.filter((c) => c.key === key.index);
    commitsPerKey.push(commits.length);
    if (commits.length === 0) continue;
    actual.push(commits.reduce((s, c) => s + c.actualDuration, 0));
    const committed = Math.max(...commits.map((c) => c.at));
    latency.push(committed - key.t0);
    if (key.input !== undefined) inputToCommit.push(committed - key.input);
    const reports = dump.fibers.filter((f) => f.key === key.index);
    const rendered = reports.flatMap((f) => f.rendered);
    components.push(rendered.length);
    for (const provider of new Set(reports.flatMap((f) => f.changedProviders)))
      providers.set(provider, (providers.get(provider) ?? 0) + 1);
    const foreign = rendered.filter((r) => !allowedOwners.has(r.owner));
    for (const r of foreign) offenders.add(`${r.name}@${r.owner}`);
    const probe = new Set(dump.probe.filter((p) => p.key === key.index).map((p) => p.name));
    const probeKey = [...probe].sort().join(" ");
    probeSets.set(probeKey, (probeSets.get(probeKey) ?? 0) + 1);
    const exact = probe.size === expected.size && [...expected].every((name) => probe.has(name));
    if (exact && foreign.length === 0) isolatedKeys += 1;
  }
  const expectedValue = `Country ${tree.target.slice(1).replace("c", ".")}${WARMUP_TEXT}${TYPED_TEXT}`;
  const samples = dump.keys.length;
  return {
    ...phasesOf(dump.keys),
    conditions: tree.groups * tree.perGroup,
    target: tree.target,
    samples,
    commitsPerKey: series(commitsPerKey),
    actual: series(actual),
    latency: series(latency),
    inputToCommit: series(inputToCommit),
    components: series(components),
    probeSet: [...probeSets.entries()].map(([set, n]) => `${set || "(none)"} x${n}`).join("; "),
    isolatedKeys,
    isolated: isolatedKeys === samples && samples === TYPED_TEXT.length,
    offenders: [...offenders],
    changedProviders: [...providers.entries()].map(([p, n]) => `${p} (${n} keys)`).join("; ") || "none",
    keydownListeners,
    valueOk: dump.value === expectedValue,
  };
}

function typingReport(big: TypingResult, baseline: TypingResult, page: PageTyping[]): string[] {
  const label = (conditions: number, target: string) =>
    `${conditions} (${conditions / 10} x 10), in ${target}`;
  const row = (r: TypingResult) => [
    label(r.conditions, r.target),
    r.samples,
    fmt(r.commitsPerKey.median),
    cell(r.actual),
    cell(r.keydownToInput),
    cell(r.inputToCommit),
    cell(r.latency),
    cell(r.keydownToEnd),
    `${r.components.median}`,
    `${r.isolatedKeys}/${r.samples}`,
    r.valueOk ? "yes" : "NO",
  ];
  const providers = (r: TypingResult) => r.changedProviders;
  return [
    `Typing in the filter editor: bench harness (tests/bench/editor-harness) with the real FilterEditor + useFilterEditor and the Builder's per-node count button, production build with react-dom/profiling, Chromium; ${TYPED_TEXT.length} keystrokes ${KEY_DELAY_MS} ms apart after ${WARMUP_TEXT.length} of warm-up (ms, median / p95):`,
    "",
    table(
      [
        "tree (conditions), typing in",
        "keys",
        "commits/key",
        "React render (Profiler)",
        "keydown to input event",
        "input event to commit",
        "keydown to commit",
        "keydown to end of task",
        "components rendered/key",
        "isolated keys",
        "value typed",
      ],
      [row(big), row(baseline)],
    ),
    "",
    `Ratio 300 / 30 conditions: React render ${(big.actual.median / baseline.actual.median).toFixed(2)}, keydown to commit ${(big.latency.median / baseline.latency.median).toFixed(2)}.`,
    `Node components rendered per keystroke (the editor's render probe), 300 conditions: ${big.probeSet}; 30 conditions: ${baseline.probeSet}.`,
    `Every rendered component fiber, attributed to the filter node it belongs to (a DevTools-style commit hook): ${
      big.offenders.length + baseline.offenders.length === 0
        ? "none outside the typed row, its group and the root"
        : `outside the typed row's branch: ${[...big.offenders, ...baseline.offenders].join(", ")}`
    }.`,
    `Context providers whose value changed on a keystroke (each makes React scan every bailed-out subtree below it for consumers, time the Profiler does not count): ${providers(big)} (300); ${providers(baseline)} (30).`,
    `Keydown listeners on the document: ${big.keydownListeners} (300 conditions), ${baseline.keydownListeners} (30); each runs on every keystroke before React sees it.`,
    `"React render" is the Profiler's actualDuration summed over the keystroke's commits (bailed-out fibers are not timed); "commit" is when onRender ran (layout phase); "end of task" is when a message posted at the keydown arrived (passive effects flushed).`,
    "",
    `The same keystrokes on the real Builder page, for information (the app of the session below, production build, the tree opened from this browser's storage; the whole page: live count, summary, sample, saved audiences, storage) (ms, median / p95):`,
    "",
    table(
      [
        "tree (conditions), typing in",
        "keys",
        "keydown to input event",
        "keydown to commit",
        "keydown to end of task",
        "value typed",
      ],
      page.map((r) => [
        label(r.conditions, r.target),
        r.samples,
        cell(r.keydownToInput),
        cell(r.keydownToCommit),
        cell(r.keydownToEnd),
        r.value.endsWith(TYPED_TEXT) ? "yes" : "NO",
      ]),
    ),
    "",
    `On the page, "commit" is when production react-dom reported the commit to a DevTools-style hook (after the layout phase); the page's extra work per keystroke (live count keys, summary, sample, storage) is in "end of task".`,
  ];
}

interface PageTyping extends Phases {
  /** From the keydown's timestamp to React's last commit in the keystroke's task. */
  keydownToCommit: Series;
  conditions: number;
  target: string;
  samples: number;
  value: string;
}

/** The harness's tree, as the Builder keeps it in storage. */
function generatedTree(groups: number, perGroup: number): GroupNode {
  const children: FilterNode[] = [];
  for (let g = 1; g <= groups; g++) {
    const rows: FilterNode[] = [];
    for (let c = 1; c <= perGroup; c++)
      rows.push({
        type: "condition",
        id: `g${g}c${c}`,
        column: "COUNTRY_NAME_PER",
        operator: "eq",
        value: `Country ${g}.${c}`,
      });
    children.push({
      type: "group",
      id: `g${g}`,
      op: g % 2 === 0 ? "OR" : "AND",
      negate: false,
      children: rows,
    });
  }
  return { type: "group", id: "root", op: "AND", negate: false, children };
}

/** Typing into the real Builder page: the same tree and keystrokes, timed without the profiler. */
async function measurePageTyping(browser: Browser, appUrl: string, tree: TreeShape): Promise<PageTyping> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  // Before any of the page's scripts: a DevTools-style hook (production react-dom reports every
  // commit to it), and the keystroke clocks.
  await context.addInitScript(() => {
    const w = window as unknown as { __keys: KeyTimes[]; __commits: number[] };
    const keys: KeyTimes[] = [];
    const commits: number[] = [];
    w.__keys = keys;
    w.__commits = commits;
    const renderers = new Map<number, unknown>();
    (window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__: unknown }).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      isDisabled: false,
      renderers,
      inject(renderer: unknown) {
        renderers.set(renderers.size + 1, renderer);
        return renderers.size;
      },
      onCommitFiberRoot() {
        commits.push(performance.now());
      },
      onCommitFiberUnmount() {},
      onPostCommitFiberRoot() {},
    };
    const channel = new MessageChannel();
    channel.port1.onmessage = (message: MessageEvent<number>) => {
      const found = keys.find((k) => k.index === message.data);
      if (found) found.end = performance.now();
    };
    let next = 0;
    document.addEventListener(
      "keydown",
      (event) => {
        keys.push({ index: next, t0: event.timeStamp, handled: performance.now() });
        channel.port2.postMessage(next);
        next += 1;
      },
      true,
    );
    document.addEventListener(
      "input",
      () => {
        const last = keys[keys.length - 1];
        if (last && last.input === undefined) last.input = performance.now();
      },
      true,
    );
  });
  const page = await context.newPage();
  try {
    await page.goto(`${appUrl}/`);
    const record = {
      version: 1,
      tree: generatedTree(tree.groups, tree.perGroup),
      urlParam: null,
      savedAt: new Date().toISOString(),
    };
    await page.evaluate(
      ([key, value]) => window.localStorage.setItem(key!, value!),
      [WORKING_TREE_KEY, JSON.stringify(record)],
    );
    await page.reload();
    const input = page.locator(`[data-node-id="${tree.target}"] input[data-field="value"]`);
    await input.waitFor();
    await sleep(1500); // the first count and sample settle
    await input.scrollIntoViewIfNeeded();
    await input.click();
    await page.keyboard.press("End");
    await page.keyboard.type(WARMUP_TEXT, { delay: KEY_DELAY_MS });
    await sleep(300);
    await page.evaluate(() => {
      (window as unknown as { __keys: KeyTimes[] }).__keys.length = 0;
    });
    await page.keyboard.type(TYPED_TEXT, { delay: KEY_DELAY_MS });
    await sleep(300);
    const { keys, commits } = await page.evaluate(() => {
      const w = window as unknown as { __keys: KeyTimes[]; __commits: number[] };
      return { keys: w.__keys, commits: w.__commits };
    });
    const hooked = commits.length > 0;
    const toCommit = keys.flatMap((k) => {
      const mine = commits.filter((at) => at >= k.handled && (k.end === undefined || at <= k.end));
      return mine.length > 0 ? [Math.max(...mine) - k.t0] : [];
    });
    return {
      ...phasesOf(keys),
      keydownToCommit: series(hooked ? toCommit : []),
      conditions: tree.groups * tree.perGroup,
      target: tree.target,
      samples: keys.length,
      value: await input.inputValue(),
    };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. The live count's traffic in a scripted session
// ---------------------------------------------------------------------------------------------

interface Counters {
  upstreamCalls: Record<string, number>;
}

async function counters(url: string): Promise<Counters> {
  const response = await fetch(`${url}/healthz`);
  if (!response.ok) throw new Error(`/healthz: ${response.status} ${await response.text()}`);
  return (await response.json()) as Counters;
}

const callsOf = (c: Counters, op: string) => c.upstreamCalls[op] ?? 0;

interface SessionResult {
  editCounts: number;
  browserEditCounts: number;
  editViews: number;
  editsOk: boolean;
  revisitCounts: number;
  browserRevisitCounts: number;
  revisitViews: number;
  revisitsMatched: number;
  other: string;
  seconds: number;
}

/** The session's tree: three free-text conditions (ids fixed, so the inputs can be found). */
function sessionTree(): GroupNode {
  const condition = (id: string, column: string, operator: string, value: string): FilterNode =>
    ({ type: "condition", id, column, operator, value }) as FilterNode;
  return {
    type: "group",
    op: "AND",
    negate: false,
    children: [
      condition("s-name", "FULL_NAME_PER", "contains", "an"),
      condition("s-city", "CITY_PER", "eq", "London"),
      condition("s-company", "COMPANY_NAME_ORG", "contains", "a"),
    ],
  };
}

async function scriptedSession(browser: Browser, url: string): Promise<SessionResult> {
  const started = performance.now();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const sent: string[] = [];
  let inFlight = 0;
  page.on("request", (request) => {
    const pathname = new URL(request.url()).pathname;
    if (!pathname.startsWith("/api/")) return;
    inFlight += 1;
    sent.push(pathname);
  });
  const done = (request: { url(): string }) => {
    if (new URL(request.url()).pathname.startsWith("/api/")) inFlight -= 1;
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  const quiet = async () => {
    for (let i = 0; i < 100 && inFlight > 0; i++) await sleep(50);
  };
  const browserCounts = () => sent.filter((p) => p === "/api/v2/contact/count").length;
  try {
    const initial = sessionTree();
    await page.goto(`${url}/?a=${encodeTreeForUrl(initial)}`);
    const fields = ["s-name", "s-city", "s-company"].map((id) =>
      page.locator(`[data-node-id="${id}"] input[data-field="value"]`),
    );
    await fields[0]!.waitFor();
    // The first count and the first sample settle before anything is measured.
    await sleep(2500);
    await quiet();

    // 30 edits: Ctrl+A and a 9-letter word, 120 ms apart; 1.5 s between edits.
    const values = initial.children.map((c) => (c.type === "condition" ? String(c.value) : ""));
    const history: string[][] = [[...values]];
    const before = await counters(url);
    const browserBefore = browserCounts();
    for (let edit = 0; edit < EDITS; edit++) {
      const field = edit % fields.length;
      const word = WORDS[edit]!;
      await fields[field]!.focus();
      await page.keyboard.press("Control+A");
      for (const char of word) {
        await sleep(KEY_GAP_MS);
        await page.keyboard.press(char);
      }
      values[field] = word;
      history.push([...values]);
      await sleep(EDIT_PAUSE_MS);
    }
    await quiet();
    const editsOk = (await Promise.all(fields.map((f) => f.inputValue()))).join("|") === values.join("|");
    const afterEdits = await counters(url);
    const browserAfterEdits = browserCounts();

    // 10 undos (Ctrl+Z in a value field is the editor's undo), each back to an earlier tree.
    let revisitsMatched = 0;
    for (let step = 1; step <= REVISITS; step++) {
      await fields[0]!.focus();
      await page.keyboard.press("Control+Z");
      await sleep(REVISIT_PAUSE_MS);
      const shown = await Promise.all(fields.map((f) => f.inputValue()));
      if (shown.join("|") === history[history.length - 1 - step]!.join("|")) revisitsMatched += 1;
    }
    await sleep(EDIT_PAUSE_MS);
    await quiet();
    const afterRevisits = await counters(url);
    const browserAfterRevisits = browserCounts();

    const other = Object.entries(afterRevisits.upstreamCalls)
      .filter(([op]) => op !== "count" && op !== "view")
      .map(([op, n]) => `${op} ${n - callsOf(before, op)}`)
      .join(", ");
    return {
      editCounts: callsOf(afterEdits, "count") - callsOf(before, "count"),
      browserEditCounts: browserAfterEdits - browserBefore,
      editViews: callsOf(afterEdits, "view") - callsOf(before, "view"),
      editsOk,
      revisitCounts: callsOf(afterRevisits, "count") - callsOf(afterEdits, "count"),
      browserRevisitCounts: browserAfterRevisits - browserAfterEdits,
      revisitViews: callsOf(afterRevisits, "view") - callsOf(afterEdits, "view"),
      revisitsMatched,
      other: other || "none",
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await context.close();
  }
}

function sessionReport(s: SessionResult, rows: number): string[] {
  return [
    `Live count traffic: the app as \`npm start\` runs it (embedded sandbox, ${rows.toLocaleString("en-US")} contacts, proxy cache off), the Builder opened on a link with three free-text conditions (Full name contains, City is, Company contains). ${EDITS} edits of ${KEYS_PER_EDIT} keystrokes (Ctrl+A and a 9-letter word, ${KEY_GAP_MS} ms apart; ${EDIT_PAUSE_MS / 1000} s between edits), then ${REVISITS} undos ${REVISIT_PAUSE_MS / 1000} s apart; calls counted at the proxy's upstream client (/healthz):`,
    "",
    table(
      ["phase", "count calls upstream", "counts sent by the browser", "sample (view) calls upstream"],
      [
        [
          `${EDITS} edits (${EDITS * KEYS_PER_EDIT} keystrokes)`,
          s.editCounts,
          s.browserEditCounts,
          s.editViews,
        ],
        [`${REVISITS} revisits (undo)`, s.revisitCounts, s.browserRevisitCounts, s.revisitViews],
      ],
    ),
    "",
    `Other upstream calls in the session: ${s.other}. The session took ${s.seconds.toFixed(0)} s; the fields showed the typed words after the edits: ${s.editsOk ? "yes" : "NO"}.`,
  ];
}

// `node --import tsx tests/bench/editor-bench.ts`: this part alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(await editorBench({ rows: Number(process.env.BENCH_ROWS ?? SESSION_ROWS) }));
}
