import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import Papa from "papaparse";
import type { Download, Page } from "playwright-core";
import { expect } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import {
  cspViolations,
  downloadedText,
  type PageLog,
  type RunningApp,
  screenshot,
  until,
} from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";

/**
 * Shared steps of the checkout browser tests (tests/e2e/checkout-*.test.ts): an audience in the
 * Builder's link, rows ticked in the sample, the balance read through the proxy, downloads read
 * back and parsed.
 */

export const SHOTS = "checkout";

/** Country is Germany: a few thousand of the 50,000 test people. */
export const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

/** The app at `path` with `tree` as the working audience (the Builder's `?a=` link). */
export function urlWithAudience(app: RunningApp, tree: GroupNode, path = "/"): string {
  return `${app.url}${path}?a=${encodeTreeForUrl(tree)}`;
}

/** The key's balance, as the proxy reads it (no spend). */
export async function balanceOf(app: RunningApp): Promise<number> {
  const answer = await proxyClient(app.url).get<{ credits: number }>("/api/v2/credits");
  expect(answer.status).toBe(200);
  return answer.body.credits;
}

/** Spends credits behind the app's back (an enrich through the proxy), to make a later confirm 402. */
export async function spendViaProxy(app: RunningApp, body: unknown, key: string) {
  return proxyClient(app.url).post<{ creditsCharged: number }>("/api/v2/contact/enrich", body, {
    idempotencyKey: key,
  });
}

export interface EstimateFigures {
  audienceCount: number;
  rows: number;
  withEmail: number;
  withMobile: number;
  credits: number;
  balance: number;
  sufficient: boolean;
}

/** The free estimate of `body`, asked of the proxy directly (what a purchase should cost). */
export async function estimateViaProxy(app: RunningApp, body: unknown): Promise<EstimateFigures> {
  const answer = await proxyClient(app.url).post<EstimateFigures>("/api/v2/contact/export/estimate", body);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Exports of the key, as the proxy lists them. */
export async function exportsViaProxy(app: RunningApp) {
  const answer = await proxyClient(app.url).get<{ exports: { exportId: string; status: string }[] }>(
    "/api/v2/contact/exports",
  );
  expect(answer.status).toBe(200);
  return answer.body.exports;
}

/** Where the app keeps the ticks, per audience (src/app/lib/selection.ts). */
export const SELECTIONS_KEY = "audience-builder:selections";

/** The ids and names ticked in the audience touched last (the one on screen), oldest first. */
export function lastSelection(page: Page): Promise<{ ids: string[]; names: Record<string, string> }> {
  return page.evaluate((key) => {
    const all = JSON.parse(localStorage.getItem(key) ?? "{}") as Record<
      string,
      { ids: string[]; names: Record<string, string>; at: number }
    >;
    const latest = Object.values(all).sort((a, b) => b.at - a.at)[0];
    return { ids: latest?.ids ?? [], names: latest?.names ?? {} };
  }, SELECTIONS_KEY);
}

/** The ids ticked in the audience touched last. */
export const selectedIds = async (page: Page): Promise<string[]> => (await lastSelection(page)).ids;

/** Waits for the Builder's sample, ticks the first `n` rows; returns the ids now selected. */
export async function selectSampleRows(page: Page, n: number): Promise<string[]> {
  const table = page.getByRole("region", { name: /^Sample of \d+ people, masked$/ });
  const boxes = table.getByRole("checkbox", { name: /^Select (?!every row)/ });
  await until(
    () => boxes.count(),
    (count) => count >= n,
    { timeout: 20_000, what: `a sample of at least ${n} rows` },
  );
  for (let i = 0; i < n; i += 1) await boxes.nth(i).click();
  const ids = await until(
    () => selectedIds(page),
    (list) => list.length === n,
    { what: `${n} selected ids in storage` },
  );
  return ids;
}

export interface ParsedCsv {
  name: string;
  header: string[];
  rows: Record<string, string>[];
  text: string;
}

/** The downloaded file's name and content, parsed as CSV with a header row. */
export async function readCsvDownload(download: Download): Promise<ParsedCsv> {
  const text = await downloadedText(download);
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return { name: download.suggestedFilename(), header: parsed.meta.fields ?? [], rows: parsed.data, text };
}

/** A full-page screenshot in test-artifacts/checkout/. */
export const shot = (page: Page, name: string) => screenshot(page, SHOTS, name);

/** No console error or warning, no failed request beyond `allowedFailures`, no CSP violation. */
export function expectClean(log: PageLog, allowedFailures: RegExp[] = []) {
  const problems = log.problems().filter((line) => !allowedFailures.some((re) => re.test(line)));
  expect(problems).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

/** `expect.poll` with room for a loaded machine. */
export { poll } from "../support/browser";

/** "1,234" in a text -> 1234. */
export function numberIn(text: string | null, pattern: RegExp): number {
  const match = pattern.exec(text ?? "");
  if (!match?.[1]) throw new Error(`no number for ${pattern} in "${text}"`);
  return Number(match[1].replace(/,/g, ""));
}

const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown; html: string }[];
}

/**
 * Serious or critical axe-core violations on the page as it stands, as lines (empty when none).
 * axe is served same-origin through a route, so the page's CSP (`script-src 'self'`) allows it.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const source = await readFile(AXE_PATH, "utf8");
  await page.route("**/__axe.js", (route) =>
    route.fulfill({ status: 200, contentType: "application/javascript; charset=utf-8", body: source }),
  );
  await page.addScriptTag({ url: "/__axe.js" });
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } })
      .axe;
    const results = (await axe.run(document, { resultTypes: ["violations"] })) as { violations: unknown[] };
    return results.violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} ${v.nodes.map((n) => n.html.slice(0, 120)).join(" | ")}`);
}
