import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import { launchChromium } from "../support/chromium";
import { stopProcess } from "../support/processes";
import { startBrowserApp } from "./services";
import { fmt, median, p95, table } from "./stats";

/**
 * Part "latency" of `npm run bench`: how soon the Builder answers an edit, on the whole app as
 * `npm start` runs it (embedded sandbox of `rows` contacts, 1,000,000 by default), in Debian's
 * Chromium at 1440 x 900. From the last keystroke of 15 typed edits (a year typed into "Founded is at
 * least"), of 15 typed title matches (a job title typed into "Job title like", which the sandbox
 * answers by its similarity search over every title), and from the click of 15 discrete edits (a
 * country picked from the value's list), to the new count on screen (the badge ready with another
 * number), read in the page itself. The baseline
 * of the same run: the count request alone, sent by the page with fetch for trees not asked before.
 * The proxy's cache is off, so every count the browser sends reaches the upstream: at most one per
 * settled edit, and none when undo revisits earlier trees.
 */

const TARGET = { typedMs: 250, titleMs: 300, discreteMs: 120 };
const EDITS = 15;
const KEY_GAP_MS = 60;
const SETTLE_MS = 1200;
const REVISITS = 10;
const YEARS = Array.from({ length: EDITS }, (_, i) => String(1986 + i));
/** Job titles as a marketer types them: short and long, common and rare. */
const TITLES = [
  "VP Marketing",
  "Head of Sales",
  "Software Engineer",
  "CFO",
  "Product Manager",
  "Data Scientist",
  "Account Executive",
  "HR Director",
  "Sales Manager",
  "CTO",
  "Marketing Director",
  "Recruiter",
  "Designer",
  "Operations Manager",
  "Financial Controller",
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

interface Counters {
  upstreamCalls: Record<string, number>;
}
const callsOf = (c: Counters, op: string) => c.upstreamCalls[op] ?? 0;
async function counters(url: string): Promise<Counters> {
  const response = await fetch(`${url}/healthz`);
  if (!response.ok) throw new Error(`/healthz: ${response.status}`);
  return (await response.json()) as Counters;
}

const START_TREE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  id: "root",
  children: [
    { type: "condition", id: "founded", column: "FOUNDED_ORG", operator: "gte", value: 1985 },
    { type: "condition", id: "country", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
  ],
};

/** The typed title matches' tree: a country and a job title matched by meaning. */
const TITLE_TREE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  id: "root",
  children: [
    { type: "condition", id: "country", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
    { type: "semantic", id: "title", on: "title", text: "Manager", negate: false },
  ],
};

/**
 * In the page: when the last input (keydown or click) happened, and every count shown since (the
 * badge ready with a number), with its time. A string, not a function: the bench runs under tsx,
 * whose function names would reach the page as calls to a helper it does not have.
 */
const PROBE = `
  window.__lastInput = 0;
  window.__shown = [];
  const mark = () => { window.__lastInput = performance.now(); };
  addEventListener("keydown", mark, true);
  addEventListener("click", mark, true);
  let last = "";
  const read = () => {
    const badge = document.querySelector(".count-badge");
    const number = badge?.querySelector(".count-badge-value .count-badge-number")?.textContent ?? "";
    const state = badge?.getAttribute("data-state") ?? "";
    const seen = state + "|" + number;
    if (seen === last) return;
    last = seen;
    if (state === "ready" && number !== "") window.__shown.push({ t: performance.now(), n: number });
  };
  new MutationObserver(read).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["data-state"],
  });
`;

/** The time from the last input to the first count shown after it that differs from `before`. */
async function latencyAfter(page: Page, before: string): Promise<{ ms: number; number: string }> {
  for (let i = 0; i < 200; i++) {
    const found = await page.evaluate((previous) => {
      const w = window as unknown as { __lastInput: number; __shown: { t: number; n: string }[] };
      const shown = w.__shown.find((s) => s.t >= w.__lastInput && s.n !== previous);
      return shown ? { ms: shown.t - w.__lastInput, number: shown.n } : null;
    }, before);
    if (found) return found;
    await sleep(50);
  }
  throw new Error(`no new count after ${before}`);
}

const shownNow = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __shown: { n: string }[] };
    return w.__shown.at(-1)?.n ?? "";
  });

/** Each word typed over the field's text (Ctrl+A, then its keys): last keystroke to the new count. */
async function typedEdits(page: Page, field: Locator, words: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const word of words) {
    const before = await shownNow(page);
    await field.focus();
    await page.keyboard.press("Control+A");
    for (const char of word) {
      await sleep(KEY_GAP_MS);
      await page.keyboard.press(char);
    }
    times.push((await latencyAfter(page, before)).ms);
    await sleep(SETTLE_MS);
  }
  return times;
}

async function discreteEdits(page: Page): Promise<number[]> {
  const field = page.getByRole("combobox", { name: "Value of condition 2" });
  const list = page.getByRole("listbox", { name: "Value of condition 2" });
  const times: number[] = [];
  const picked = new Set(["germany"]);
  for (let i = 0; i < EDITS; i++) {
    const before = await shownNow(page);
    await field.click(); // opens the whole list, whatever the field holds
    const options = list.getByRole("option");
    await options.first().waitFor();
    await sleep(300); // the list's counts arrive; the click is what is measured
    const labels = await options.locator("span:first-child").allTextContents();
    const next = labels.findIndex((label) => !picked.has(label.toLowerCase()));
    if (next < 0) throw new Error("no country left to pick");
    picked.add(labels[next]!.toLowerCase());
    await options.nth(next).click();
    times.push((await latencyAfter(page, before)).ms);
    await sleep(SETTLE_MS);
  }
  return times;
}

/** The count request alone, from the page, for trees the proxy has not seen (its cache is off). */
async function rawCounts(page: Page): Promise<number[]> {
  return page.evaluate(async (n) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const filter = {
        type: "group",
        op: "AND",
        negate: false,
        children: [{ type: "condition", column: "FOUNDED_ORG", operator: "gte", value: 1900 + i }],
      };
      const t = performance.now();
      const response = await fetch("/api/v2/contact/count", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf": "1" },
        body: JSON.stringify({ filter }),
      });
      await response.json();
      times.push(performance.now() - t);
    }
    return times;
  }, EDITS);
}

export async function latencyBench(options: { rows: number }) {
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-latency-"));
  let browser: Browser | undefined;
  let app: ChildProcess | undefined;
  try {
    const running = await startBrowserApp(dir, options.rows);
    app = running.child;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.addInitScript({ content: PROBE });
    await page.goto(`${running.url}/?a=${encodeTreeForUrl(START_TREE)}`);
    await page.getByRole("textbox", { name: "Value of condition 1" }).waitFor();
    await sleep(3000); // the first count, sample and insights settle first

    const baseline = await rawCounts(page);
    const beforeTyped = await counters(running.url);
    const typed = await typedEdits(page, page.getByRole("textbox", { name: "Value of condition 1" }), YEARS);
    const afterTyped = await counters(running.url);
    const discrete = await discreteEdits(page);
    const afterDiscrete = await counters(running.url);
    for (let i = 0; i < REVISITS; i++) {
      await page.getByRole("button", { name: "Undo" }).click();
      await sleep(400);
    }
    await sleep(SETTLE_MS);
    const afterRevisits = await counters(running.url);

    // Typed title matches, on a tree of their own, opened as a shared link would open it.
    await page.goto(`${running.url}/?a=${encodeTreeForUrl(TITLE_TREE)}`);
    const titleField = page.locator('[data-node-id="title"] input[data-field="text"]');
    await titleField.waitFor();
    await sleep(3000);
    const beforeTitles = await counters(running.url);
    const titles = await typedEdits(page, titleField, TITLES);
    const afterTitles = await counters(running.url);
    await context.close();

    const typedCalls = callsOf(afterTyped, "count") - callsOf(beforeTyped, "count");
    const discreteCalls = callsOf(afterDiscrete, "count") - callsOf(afterTyped, "count");
    const revisitCalls = callsOf(afterRevisits, "count") - callsOf(afterDiscrete, "count");
    // The main count's and, once the text settles, the level buttons' counts (one per level).
    const titleCalls = callsOf(afterTitles, "count") - callsOf(beforeTitles, "count");
    const base = median(baseline);
    const rowsText = options.rows.toLocaleString("en-US");
    return [
      `## Latency: an edit to its count on screen (${rowsText} contacts, Chromium 1440 x 900)`,
      "",
      table(
        ["measure", "median", "p95", "x the count request alone"],
        [
          [
            "count request alone (fetch from the page; baseline)",
            `${fmt(base)} ms`,
            `${fmt(p95(baseline))} ms`,
            "1.00x",
          ],
          [
            `${EDITS} typed edits: last keystroke to the new count`,
            `${fmt(median(typed))} ms`,
            `${fmt(p95(typed))} ms`,
            `${(median(typed) / base).toFixed(2)}x`,
          ],
          [
            `${EDITS} typed title matches: last keystroke to the new count`,
            `${fmt(median(titles))} ms`,
            `${fmt(p95(titles))} ms`,
            `${(median(titles) / base).toFixed(2)}x`,
          ],
          [
            `${EDITS} discrete edits (a value picked): click to the new count`,
            `${fmt(median(discrete))} ms`,
            `${fmt(p95(discrete))} ms`,
            `${(median(discrete) / base).toFixed(2)}x`,
          ],
        ],
      ),
      "",
      table(
        ["target", "figure", "result"],
        [
          [
            `typed edits: median <= ${TARGET.typedMs} ms`,
            `${fmt(median(typed))} ms`,
            verdict(median(typed) <= TARGET.typedMs),
          ],
          [
            `typed title matches: median <= ${TARGET.titleMs} ms`,
            `${fmt(median(titles))} ms`,
            verdict(median(titles) <= TARGET.titleMs),
          ],
          [
            `discrete edits: median <= ${TARGET.discreteMs} ms`,
            `${fmt(median(discrete))} ms`,
            verdict(median(discrete) <= TARGET.discreteMs),
          ],
          [
            "at most one upstream count per settled edit",
            `${typedCalls} for ${EDITS} typed edits, ${discreteCalls} for ${EDITS} discrete`,
            verdict(typedCalls <= EDITS && discreteCalls <= EDITS),
          ],
          [
            `none when ${REVISITS} undos revisit earlier trees`,
            `${revisitCalls}`,
            verdict(revisitCalls === 0),
          ],
        ],
      ),
      "",
      `Upstream counts for the ${EDITS} typed title matches: ${titleCalls} (the new count of each, and the counts of its match levels once its text settled).`,
      "",
      `Part "latency" took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    ].join("\n");
  } finally {
    await browser?.close().catch(() => {});
    if (app && app.exitCode === null && app.signalCode === null) await stopProcess(app);
    rmSync(dir, { recursive: true, force: true });
  }
}
