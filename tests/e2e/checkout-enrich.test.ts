import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type RunningApp, startApp } from "../support/browser";
import {
  balanceOf,
  estimateViaProxy,
  expectClean,
  GERMANY,
  poll,
  readCsvDownload,
  SELECTIONS_KEY,
  selectSampleRows,
  shot,
  urlWithAudience,
} from "./checkout-support";

/**
 * Enrich in Chromium on the PAYG demo key (10,000 credits): rows ticked in the Builder's sample are
 * bought with their emails, shown, and saved as a CSV; a double-clicked Confirm and a connection
 * dropped after the server charged both charge once (checked against the sandbox's balance).
 * Screenshots: test-artifacts/checkout/enrich-*.png.
 */

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  // The tests buy the sample's first rows again and again, each charged: with the team's store on,
  // the later ones would be served free (the review says so: tests/e2e/checkout-review.test.ts).
  [browser, app] = await Promise.all([
    launchBrowser(),
    startApp({ env: { SANDBOX_KEY: "sbx_payg_demo", OWNED_RETENTION_DAYS: "0" } }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const ENRICH_COLUMNS_WITH_EMAIL = [
  "RBID_PAO",
  "FULL_NAME_PER",
  "JOB_TITLE_PER",
  "JOB_LEVEL_PER",
  "COMPANY_NAME_ORG",
  "COUNTRY_NAME_PER",
  "EMAIL_ADDRESS_PER",
];

/** What enriching these ids with their emails costs: one per row, one per email present. */
async function expectedCost(ids: readonly string[]): Promise<number> {
  const figures = await estimateViaProxy(app, {
    filter: {
      type: "group",
      op: "AND",
      negate: false,
      children: [{ type: "condition", column: "RBID_PAO", operator: "in", valueList: [...ids] }],
    },
    maxRows: ids.length,
    reveal: "email",
  });
  expect(figures.rows).toBe(ids.length);
  return figures.rows + figures.withEmail;
}

const enrichTab = (page: Page) => page.getByRole("tabpanel", { name: "Enrich chosen people" });
const headerCredits = (page: Page) => page.locator("header.header .header-credits").textContent();

describe("Enrich: the rows selected in the sample", () => {
  it("builds an audience, ticks rows, reviews the price, confirms, sees the rows and downloads them; charged once", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const ids = await selectSampleRows(page, 5);
      await shot(page, "enrich-01-selected-in-sample");

      await page.getByRole("link", { name: "Buy the 5 selected" }).click();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
      await poll(() => page.getByTestId("audience-description").textContent()).toBe('Country is "Germany"');
      expect(await page.getByTestId("selected-count").textContent()).toBe("5");
      expect(
        await page.getByRole("tab", { name: "Enrich chosen people" }).getAttribute("aria-selected"),
      ).toBe("true");
      const panel = enrichTab(page);
      expect(await panel.getByRole("radio", { name: /The 5 selected in the sample/ }).isChecked()).toBe(true);
      await panel.getByRole("radio", { name: /^Email 1 credit/ }).check();
      await shot(page, "enrich-02-form");

      const before = await balanceOf(app);
      expect(before).toBe(10_000);
      const cost = await expectedCost(ids);

      await panel.getByRole("button", { name: "Review the purchase" }).click();
      const confirm = panel.getByRole("region", { name: "Confirm the enrichment" });
      // The most it can cost: 5 rows x (1 + 1 for a revealed email), with the dollars on PAYG.
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe("10 credits (≈ $0.03)");
      expect(await confirm.textContent()).toContain(
        "the 5 people selected in the sample, with email addresses",
      );
      expect(await confirm.textContent()).toContain("10,000 credits (≈ $27.00)");
      await shot(page, "enrich-03-confirm");
      // Nothing was spent by reviewing.
      expect(await balanceOf(app)).toBe(before);

      await confirm.getByRole("button", { name: /^Confirm: buy 5 new for up to 10 credits/ }).click();
      const result = panel.getByRole("region", { name: "Enriched rows", exact: true });
      await poll(() => result.locator("tbody tr").count()).toBe(5);
      await poll(() => headerCredits(page)).toBe(`${(before - cost).toLocaleString("en-US")} credits`);
      expect(await balanceOf(app)).toBe(before - cost);
      expect(await result.textContent()).toContain(`for ${cost} credits`);
      await shot(page, "enrich-04-rows");

      // The CSV's header row reads in labels by default; the service's names are one choice away.
      const headers = result.getByRole("combobox", { name: "Column headers" });
      expect(await headers.inputValue()).toBe("labels");
      const download = page.waitForEvent("download");
      await result.getByRole("button", { name: "Download CSV" }).click();
      const csv = await readCsvDownload(await download);
      expect(csv.name).toMatch(/^enriched-\d{4}-\d{2}-\d{2}-\d{4}\.csv$/);
      expect(csv.text.split("\r\n")[0]).toBe(
        "Contact ID,Full name,Job title,Job level,Company,Country,Email",
      );
      expect(csv.rows.map((r) => r["Contact ID"]).sort()).toEqual([...ids].sort());
      await headers.selectOption("names");
      const named = page.waitForEvent("download");
      await result.getByRole("button", { name: "Download CSV" }).click();
      const namedCsv = await readCsvDownload(await named);
      expect(namedCsv.header).toEqual(ENRICH_COLUMNS_WITH_EMAIL);
      expect(namedCsv.text.split("\r\n").slice(1)).toEqual(csv.text.split("\r\n").slice(1));
      await headers.selectOption("labels");
      // The CSV is made from what was bought: no second request, nothing charged.
      expect(await balanceOf(app)).toBe(before - cost);

      // A reload keeps what was paid for.
      await page.reload();
      await poll(() =>
        enrichTab(page)
          .getByRole("region", { name: "Enriched rows", exact: true })
          .locator("tbody tr")
          .count(),
      ).toBe(5);
      expect(await balanceOf(app)).toBe(before - cost);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("a double-clicked Confirm charges once", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      const ids = await selectSampleRows(page, 3);
      await page.goto(`${app.url}/checkout?tab=enrich`);
      const panel = enrichTab(page);
      await panel.getByRole("button", { name: "Review the purchase" }).click();
      const before = await balanceOf(app);
      const cost = await expectedCost(ids);
      const confirm = panel.getByRole("region", { name: "Confirm the enrichment" });
      await confirm.getByRole("button", { name: /^Confirm: buy 3 new for up to 6 credits/ }).dblclick();
      const result = panel.getByRole("region", { name: "Enriched rows", exact: true });
      await poll(() => result.locator("tbody tr").count()).toBe(3);
      await log.settle();
      const sends = log.exchanges.filter(
        (e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/enrich"),
      );
      expect(sends.length).toBeGreaterThanOrEqual(1);
      // However many got out, they carried one key: the proxy answers a repeat without spending.
      expect(new Set(sends.map((e) => e.requestHeaders["idempotency-key"])).size).toBe(1);
      expect(await balanceOf(app)).toBe(before - cost);
      await shot(page, "enrich-05-double-click-charged-once");
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("a connection dropped after the server charged: the app says so, Try again gets the rows, charged once", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      const ids = await selectSampleRows(page, 4);
      await page.evaluate((key) => localStorage.removeItem(key), SELECTIONS_KEY);
      await page.goto(`${app.url}/checkout?tab=enrich`);
      const panel = enrichTab(page);
      // A pasted list: the four ids, one of them twice, an unknown email and something that is neither.
      await panel.getByRole("radio", { name: /A list of ids or emails/ }).check();
      await panel
        .getByRole("textbox", { name: "Ids or emails" })
        .fill(`${ids.join("\n")}\n${ids[0]}; nobody@nowhere.example, bad!entry x@y`);
      const summary = panel.locator(".checkout-list-summary");
      await poll(() => summary.textContent()).toContain("4 ids and 1 email to enrich; 1 duplicate removed.");
      expect(await summary.textContent()).toContain("2 entries are neither an id nor an email");
      await shot(page, "enrich-06-pasted-list");

      const before = await balanceOf(app);
      const cost = await expectedCost(ids);
      await panel.getByRole("button", { name: "Review the purchase" }).click();
      const confirm = panel.getByRole("region", { name: "Confirm the enrichment" });
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe("10 credits (≈ $0.03)");

      // The server acts (and charges), then the connection drops before the answer reaches the page.
      let dropped = 0;
      await page.route("**/api/v2/contact/enrich", async (route) => {
        if (dropped > 0) return route.continue();
        dropped += 1;
        await route.fetch();
        await route.abort("connectionreset");
      });
      await confirm.getByRole("button", { name: /^Confirm: buy 5 new for up to 10 credits/ }).click();
      const alert = panel
        .getByRole("alert")
        .filter({ hasText: "No answer: the enrichment may or may not have gone through" });
      await poll(() => alert.isVisible()).toBe(true);
      expect(await alert.textContent()).toContain("the connection dropped");
      expect(await balanceOf(app)).toBe(before - cost);
      await shot(page, "enrich-07-connection-dropped");

      await alert.getByRole("button", { name: "Try again" }).click();
      const result = panel.getByRole("region", { name: "Enriched rows", exact: true });
      await poll(() => result.locator("tbody tr").count()).toBe(4);
      expect(await result.textContent()).toContain("Not found: 1 entry matched nobody");
      // Charged once: the retry carried the same key and got the first answer back.
      expect(await balanceOf(app)).toBe(before - cost);
      await shot(page, "enrich-08-after-try-again");
      await log.settle();
      const keys = log.exchanges
        .filter((e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/enrich"))
        .map((e) => e.requestHeaders["idempotency-key"]);
      expect(new Set(keys).size).toBe(1);
      expectClean(log, [/ERR_CONNECTION_RESET/, /net::ERR_FAILED/]);
    } finally {
      await context.close();
    }
  });

  it("Preview: the first rows of the audience at once, charged what they cost; readable at 768 px", async () => {
    const { context, page, log } = await openPage(browser, { width: 768, height: 1000 });
    try {
      await page.goto(urlWithAudience(app, GERMANY, "/checkout"));
      await page.getByRole("tab", { name: "Preview first rows" }).click();
      const panel = page.getByRole("tabpanel", { name: "Preview first rows" });
      await panel.getByRole("spinbutton", { name: "Rows" }).fill("10");
      await panel.getByRole("radio", { name: /^Email 1 credit/ }).check();
      await panel.getByRole("button", { name: "Review the preview" }).click();
      const confirm = panel.getByRole("region", { name: "Confirm the preview" });
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe("20 credits (≈ $0.05)");
      expect(await confirm.textContent()).toContain('Country is "Germany"');
      await shot(page, "preview-01-confirm-768");
      const figures = await estimateViaProxy(app, { filter: GERMANY, maxRows: 10, reveal: "email" });
      const before = await balanceOf(app);
      await confirm.getByRole("button", { name: "Confirm and preview 10" }).click();
      const result = panel.getByRole("region", { name: "Preview rows", exact: true });
      await poll(() => result.locator("tbody tr").count()).toBe(10);
      expect(await balanceOf(app)).toBe(before - figures.credits);
      await shot(page, "preview-02-rows-768");
      // Nothing is wider than the window: the table scrolls inside its frame.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });
});
