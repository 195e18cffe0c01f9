import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Download, Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject } from "vitest";
import type { Sandbox } from "../../src/sandbox/app";
import { CHROMIUM_PATH, connectChromium, launchChromium } from "./chromium";
import { type FaultUpstream, faultUpstream } from "./fault-upstream";
import { type ProxyServer, startProxy, startSandbox } from "./proxy-server";

/**
 * End-to-end support: Debian's Chromium driven by playwright-core (never `playwright install`),
 * and the whole app started the way `npm start` composes it (built SPA, embedded sandbox, proxy),
 * on a free port, with fresh state.
 */

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const APP_DIR = path.join(ROOT, "dist/app");
export const ARTIFACTS_DIR = path.join(ROOT, "test-artifacts");

/** Every key the sandbox knows: none may ever reach the browser. */
export const DEMO_KEYS = ["sbx_payg_demo", "sbx_ayce_demo", "sbx_viewonly_demo", "sbx_revoked_demo"] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Chromium may still be installing when the suite starts: wait for it (up to 10 minutes). */
export async function waitForChromium(timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(CHROMIUM_PATH)) {
    if (Date.now() > deadline)
      throw new Error(`${CHROMIUM_PATH} did not appear within ${timeoutMs / 1000} s`);
    await sleep(2000);
  }
}

/**
 * The run's Chromium (started once by e2e-setup.ts; closing this only disconnects), or a browser
 * of its own where no run started one (a benchmark).
 */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = inject("browserEndpoint");
  if (endpoint) return connectChromium(endpoint);
  await waitForChromium();
  return launchChromium();
}

// ---- Building the SPA ----

/** What the bundle is built from (the launcher's list): a change to any of it makes the bundle stale. */
const APP_SOURCES = [
  "src/app",
  "src/contract",
  "index.html",
  "public",
  "vite.config.ts",
  "package-lock.json",
];

function newestChange(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(target).map((name) => newestChange(path.join(target, name))));
}

function isFresh(): boolean {
  const built = path.join(APP_DIR, "index.html");
  return (
    existsSync(built) &&
    statSync(built).mtimeMs >= Math.max(...APP_SOURCES.map((s) => newestChange(path.join(ROOT, s))))
  );
}

/**
 * Builds the SPA into dist/app with Vite's JS API when it is missing or older than its sources.
 * Test files run in parallel workers: a lock directory makes one of them build while the others wait.
 */
export async function ensureAppBuilt(): Promise<string> {
  const lock = path.join(ROOT, "dist/.app-build.lock");
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (isFresh()) return APP_DIR;
    try {
      mkdirSync(lock);
    } catch {
      // Someone else is building; a lock left by a crashed run is taken over after a minute.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another worker to build the app");
      await sleep(250);
      continue;
    }
    try {
      if (!isFresh()) await buildApp();
      return APP_DIR;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function buildApp() {
  const { build } = await import("vite");
  // Vitest sets NODE_ENV=test; the bundle must be the production one `npm start` would serve.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      root: ROOT,
      configFile: path.join(ROOT, "vite.config.ts"),
      mode: "production",
      logLevel: "warn",
    });
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

// ---- The whole app ----

export interface RunningApp {
  url: string;
  proxy: ProxyServer;
  sandbox: Sandbox;
  close(): Promise<void>;
}

/**
 * Sandbox (over the shared test dataset, fresh state) + proxy serving the built SPA, as the launcher
 * composes them. `env` reaches the proxy's config parser (SANDBOX_KEY, USERS_FILE, ...).
 */
export async function startApp(options: { env?: Record<string, string>; sandbox?: Sandbox } = {}) {
  await ensureAppBuilt();
  const own = options.sandbox ? null : await startSandbox();
  const sandbox = options.sandbox ?? own!.sandbox;
  const proxy = await startProxy(sandbox.fetch, {
    env: {
      STATIC_DIR: APP_DIR,
      UPSTREAM_RATE_PER_MIN: "10000",
      SIGN_IN_DELAY_MS: "0",
      ...options.env,
    },
  });
  return {
    url: proxy.url,
    proxy,
    sandbox,
    async close() {
      await proxy.close();
      await rm(proxy.dataDir, { recursive: true, force: true });
      if (own) {
        await own.sandbox.close();
        await rm(own.dataDir, { recursive: true, force: true });
      }
    },
  } satisfies RunningApp;
}

export interface AppOverFaults {
  app: RunningApp;
  sandbox: Sandbox;
  faults: FaultUpstream;
  close(): Promise<void>;
}

/**
 * The app in front of a fresh sandbox with a fault-injecting upstream between them (the fault and
 * recovery suites): the PAYG demo key, every upstream timeout `timeoutMs`, and no answer kept by
 * the proxy, so every read meets the fault. `env` adds to that.
 */
export async function startAppOverFaults(
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<AppOverFaults> {
  const { sandbox, dataDir } = await startSandbox();
  const faults = faultUpstream(sandbox.fetch);
  const app = await startApp({
    sandbox: { ...sandbox, fetch: faults },
    env: {
      SANDBOX_KEY: "sbx_payg_demo",
      UPSTREAM_TIMEOUT_MS: String(timeoutMs),
      UPSTREAM_LONG_TIMEOUT_MS: String(timeoutMs),
      CACHE_TTL_MS: "0",
      ...env,
    },
  });
  return {
    app,
    sandbox,
    faults,
    async close() {
      faults.clear();
      faults.releaseHung();
      await app.close();
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The text of a file the browser downloaded. Read as a stream: the browser is the run's shared one,
 * connected to remotely, which keeps the file on its side (no local `path()`).
 */
/**
 * expect.poll for a page: waits on what the page shows, up to the config's poll limit (30 s) or a
 * longer one a step needs (a batch job's completion), so a slow machine is slower, not red.
 */
export const poll = <T>(read: () => Promise<T>, timeout?: number) =>
  expect.poll(read, timeout === undefined ? {} : { timeout });

export async function downloadedText(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// ---- What the page did ----

export interface ConsoleEntry {
  type: string;
  text: string;
  url: string;
}

export interface SeenExchange {
  url: string;
  method: string;
  status: number;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  body: string;
}

export interface PageLog {
  console: ConsoleEntry[];
  pageErrors: string[];
  failedRequests: string[];
  exchanges: SeenExchange[];
  /** Waits until every response body seen so far has been read. */
  settle(): Promise<void>;
  /** Console errors and warnings, page errors and failed requests, as lines (empty when all is well). */
  problems(): string[];
}

/** Records every console message, uncaught error, failed request and response (headers and body). */
export function watchPage(page: Page): PageLog {
  const log: Omit<PageLog, "settle" | "problems"> = {
    console: [],
    pageErrors: [],
    failedRequests: [],
    exchanges: [],
  };
  const pending = new Set<Promise<void>>();
  page.on("console", (message) =>
    log.console.push({ type: message.type(), text: message.text(), url: message.location().url }),
  );
  page.on("pageerror", (error) => log.pageErrors.push(`${error.name}: ${error.message}`));
  page.on("requestfailed", (request) =>
    log.failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
  );
  page.on("response", (response) => {
    const job = (async () => {
      const request = response.request();
      let body = "";
      try {
        body = (await response.body()).toString("utf8");
      } catch {
        // Redirects and aborted loads have no body.
      }
      log.exchanges.push({
        url: response.url(),
        method: request.method(),
        status: response.status(),
        requestHeaders: await request.allHeaders(),
        responseHeaders: await response.allHeaders(),
        body,
      });
    })().catch(() => {
      // The page or its context closed before the answer could be read: nothing to record, and no
      // unhandled rejection to fail the run after the test has finished.
    });
    pending.add(job);
    void job.finally(() => pending.delete(job));
  });
  return {
    ...log,
    async settle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    problems() {
      return [
        ...log.console
          .filter((m) => m.type === "error" || m.type === "warning")
          .map((m) => `console.${m.type}: ${m.text} (${m.url})`),
        ...log.pageErrors.map((e) => `page error: ${e}`),
        // net::ERR_ABORTED is the app cancelling a request it no longer needs (AbortController: a
        // count or insights for a filter that has since changed), not a failure.
        ...log.failedRequests
          .filter((r) => !r.endsWith("net::ERR_ABORTED"))
          .map((r) => `request failed: ${r}`),
      ];
    },
  };
}

/** Messages Chromium logs when the Content-Security-Policy blocks something. */
export function cspViolations(log: PageLog): string[] {
  return log.console
    .map((m) => m.text)
    .filter((text) => /Content Security Policy|Refused to (apply|load|execute|connect|frame)/i.test(text));
}

/**
 * A full-page PNG under test-artifacts/<folder>/<name>.png. With `fromTop`, the page is scrolled to
 * the top first: a sticky element (the Builder's count) is otherwise drawn where the page was scrolled.
 */
export async function screenshot(
  page: Page,
  folder: string,
  name: string,
  /** `viewport`: what the window shows where it is scrolled to (pinned parts where they pin). */
  options: { fromTop?: boolean; viewport?: boolean } = {},
): Promise<string> {
  const dir = path.join(ARTIFACTS_DIR, folder);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  if (options.fromTop) await page.evaluate(() => window.scrollTo(0, 0));
  await writeFile(file, await page.screenshot({ fullPage: !options.viewport, animations: "disabled" }));
  return file;
}

// ---- Pages and the Builder (tests/e2e/builder-*.test.ts) ----

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  log: PageLog;
}

/**
 * A page in a fresh context (no storage, the page's CSP enforced), watched from its first request.
 * Every action waits up to 30 s for its element: a limit that only catches one that never comes
 * (three browser test files share two cores), not a measure of speed.
 */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    // The app writes numbers and dates in the browser's locale (src/app/lib/format.ts): pinned here.
    locale: "en-US",
  });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  return { context, page, log: watchPage(page) };
}

/** Polls `read` until `accept` takes its value (then returns it), or throws with the last one. */
export async function until<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  {
    timeout = 30_000,
    interval = 50,
    what = "a condition",
  }: { timeout?: number; interval?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeout;
  let value = await read();
  while (!accept(value)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeout} ms waiting for ${what}; last seen: ${JSON.stringify(value)}`,
      );
    await sleep(interval);
    value = await read();
  }
  return value;
}

export interface CountReading {
  /** The count badge's `data-state`: ready, stale, loading, blocked or error. */
  state: string;
  /** The number as shown ("12,345"), or "" when the badge shows none. */
  number: string;
}

/** What the Builder's count badge shows now. */
export async function readCount(page: Page): Promise<CountReading> {
  return page.evaluate(() => {
    const badge = document.querySelector(".count-badge");
    const number = badge?.querySelector(".count-badge-value .count-badge-number")?.textContent ?? "";
    return { state: badge?.getAttribute("data-state") ?? "", number };
  });
}

/** The settled count (state "ready") once it differs from `previous` (any, when not given). */
export async function settledCount(page: Page, previous?: string, timeout = 30_000): Promise<string> {
  const reading = await until(
    () => readCount(page),
    (r) => r.state === "ready" && r.number !== "" && r.number !== previous,
    { timeout, what: previous === undefined ? "a settled count" : `a settled count other than ${previous}` },
  );
  return reading.number;
}

/** "12,345" -> 12345; throws unless grouped by thousands the en-US way. */
export function parseGroupedNumber(text: string): number {
  if (!/^\d{1,3}(,\d{3})*$/.test(text)) throw new Error(`"${text}" is not a number grouped by thousands`);
  return Number(text.replace(/,/g, ""));
}

export interface FocusState {
  /** e.g. `button "Add condition to the whole filter"`; "body" when nothing has focus. */
  element: string;
  /** Its accessible name, roughly: aria-label, else its label's text, else its own text. */
  name: string;
  /** It matches :focus-visible and shows an outline or a box-shadow. */
  visible: boolean;
  /** What covers the middle of the focused element (a sticky bar...), or "" when nothing does. */
  coveredBy: string;
  outline: string;
  boxShadow: string;
}

/** The focused element, named, and whether its focus can be seen (outline or box-shadow). */
export async function focusState(page: Page): Promise<FocusState> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body)
      return { element: "body", name: "", visible: false, coveredBy: "", outline: "", boxShadow: "" };
    const style = getComputedStyle(element);
    const role = element.getAttribute("role") ?? element.tagName.toLowerCase();
    const labels = (element as HTMLInputElement).labels;
    const name = (element.getAttribute("aria-label") ?? labels?.[0]?.textContent ?? element.textContent ?? "")
      .replace(/\s+/g, " ")
      .trim();
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    const shadow = style.boxShadow !== "none" && style.boxShadow !== "";
    const box = element.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const covered = top !== null && !element.contains(top) && !top.contains(element);
    const coveredBy = covered ? `${top.tagName.toLowerCase()}.${[...top.classList].join(".")}` : "";
    return {
      element: `${role} "${name.slice(0, 80)}"`,
      name,
      visible: element.matches(":focus-visible") && (outline || shadow),
      coveredBy,
      outline: `${style.outlineStyle} ${style.outlineWidth}`,
      boxShadow: style.boxShadow,
    };
  });
}

/**
 * One Chromium and one app for a whole test file, started before its tests and closed after them
 * (the preamble every browser test needs). Read them inside tests: `const { browser, app } = env`.
 */
export function browserAndAppForFile(options: Parameters<typeof startApp>[0] = {}) {
  const env = {} as { browser: Browser; app: RunningApp };
  beforeAll(async () => {
    [env.browser, env.app] = await Promise.all([launchBrowser(), startApp(options)]);
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.app?.close();
  });
  return env;
}
