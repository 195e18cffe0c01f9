import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APP_DIR,
  DEMO_KEYS,
  ensureAppBuilt,
  launchBrowser,
  type RunningApp,
  startApp,
  watchPage,
} from "../support/browser";

/** The key this run's proxy holds (a different one than the smoke test's, to vary the plan shown). */
const KEY = "sbx_ayce_demo";
const PAGES = ["/", "/checkout", "/insights", "/companies", "/verify", "/account"];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** Where a secret appears in a text, case-insensitively (keys are ASCII). */
function findSecrets(text: string, secrets: readonly string[]): string[] {
  const lower = text.toLowerCase();
  return secrets.filter((secret) => lower.includes(secret.toLowerCase()));
}

describe("the API key never reaches the browser", () => {
  let browser: Browser;
  let app: RunningApp;

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startApp({ env: { SANDBOX_KEY: KEY } })]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("the built bundle holds no demo key and not the name of the key header", async () => {
    await ensureAppBuilt();
    const files = await filesUnder(APP_DIR);
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    const found: string[] = [];
    for (const file of files) {
      const text = await readFile(file, "utf8");
      for (const secret of findSecrets(text, [...DEMO_KEYS, "x-key"]))
        found.push(`${path.relative(APP_DIR, file)}: ${secret}`);
    }
    expect(found).toEqual([]);
  });

  it("no response the browser sees (body or header) carries a key, through every page", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const log = watchPage(page);
    try {
      for (const pathname of PAGES) {
        await page.goto(`${app.url}${pathname}`);
        await expect.poll(() => page.getByRole("heading", { level: 1 }).count()).toBe(1);
        await expect
          .poll(() => page.locator("header.header").getByText("10,000 credits").isVisible())
          .toBe(true);
      }
      expect(await page.locator("header.header .badge-plan").textContent()).toBe("Plan: All you can eat");
      // And through client-side navigation too (lazy chunks, refetches).
      for (const label of ["Checkout", "Insights", "Companies", "Verify", "Account", "Builder"])
        await page
          .getByRole("navigation", { name: "Main" })
          .getByRole("link", { name: label, exact: true })
          .click();
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      await log.settle();

      const apiCalls = log.exchanges.filter((e) => new URL(e.url).pathname.startsWith("/api/"));
      expect(apiCalls.map((e) => new URL(e.url).pathname)).toEqual(
        expect.arrayContaining(["/api/session", "/api/v2/credits"]),
      );
      expect(log.exchanges.length).toBeGreaterThan(PAGES.length);

      const leaks: string[] = [];
      for (const exchange of log.exchanges) {
        const headers = Object.entries(exchange.responseHeaders)
          .map(([n, v]) => `${n}: ${v}`)
          .join("\n");
        for (const secret of findSecrets(`${headers}\n${exchange.body}`, DEMO_KEYS))
          leaks.push(`${exchange.method} ${exchange.url}: ${secret}`);
        if ("x-key" in exchange.responseHeaders) leaks.push(`${exchange.url}: x-key header`);
        // Nor does the browser send one.
        const sent = Object.entries(exchange.requestHeaders)
          .map(([n, v]) => `${n}: ${v}`)
          .join("\n");
        for (const secret of findSecrets(sent, [...DEMO_KEYS, "x-key"]))
          leaks.push(`request ${exchange.url}: ${secret}`);
      }
      expect(leaks).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("/api/session exposes only the last four characters of the key", async () => {
    const response = await fetch(`${app.url}/api/session`, { headers: { "x-csrf": "1" } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["keyLast4", "mode", "plan", "role", "user"]);
    expect(body).toEqual({
      mode: "sandbox",
      plan: "AYCE",
      user: null,
      role: "admin",
      keyLast4: KEY.slice(-4),
    });
    // No longer piece of the key (five characters or more) appears anywhere in the answer.
    for (let start = 0; start + 5 <= KEY.length; start++)
      expect(text).not.toContain(KEY.slice(start, start + 5));
  });
});
