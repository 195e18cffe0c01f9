import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupNode } from "../../src/contract/filter";
import { launchBrowser, openPage, type RunningApp, startApp, until } from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";
import {
  balanceOf,
  estimateViaProxy,
  expectClean,
  exportsViaProxy,
  GERMANY,
  numberIn,
  poll,
  readCsvDownload,
  selectSampleRows,
  shot,
  urlWithAudience,
} from "./checkout-support";

/**
 * Estimate, then Export, in Chromium on the PAYG demo key (10,000 credits): from the audience to a
 * downloaded CSV with exactly the rows and columns the estimate promised, the history and its free
 * re-download, the export of exactly the selected rows, a reload in the middle of the purchase
 * (charged once), and 402 with its numbers. Screenshots: test-artifacts/checkout/export-*.png.
 */

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp({ env: { SANDBOX_KEY: "sbx_payg_demo" } })]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const exportTab = (page: Page) => page.getByRole("tabpanel", { name: "Export a file" });
const confirmRegion = (page: Page) => exportTab(page).getByRole("region", { name: "Confirm the export" });
const historyRegion = (page: Page) => page.getByRole("region", { name: "Export history" });

const EVERYONE: GroupNode = { type: "group", op: "AND", negate: false, children: [] };

/** Opens Checkout on `tree`, on the Export tab, once the audience is counted. */
async function openExport(page: Page, tree: GroupNode) {
  await page.goto(urlWithAudience(app, tree, "/checkout"));
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
  await page.getByRole("tab", { name: "Export a file" }).click();
  await poll(() => page.getByTestId("audience-count").textContent()).toMatch(/^\d{1,3}(,\d{3})*$/);
}

describe("Export: estimate, confirm, follow, download", () => {
  it("exports the first rows of the audience with the chosen columns; the CSV is what the estimate promised; charged once; history re-downloads for free", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openExport(page, GERMANY);
      const tab = exportTab(page);
      const count = numberIn(await page.getByTestId("audience-count").textContent(), /^([\d,]+)$/);
      // maxRows defaults to the audience's count.
      await poll(() => tab.getByRole("spinbutton", { name: "Most rows" }).inputValue()).toBe(String(count));
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("300");
      expect(await tab.textContent()).toContain(
        `With 300 of ${count.toLocaleString("en-US")}, the first 300 by contact id are delivered.`,
      );
      await tab.getByRole("textbox", { name: /File name/ }).fill("Germany test");
      await tab.getByRole("radio", { name: /^Email and mobile/ }).check();
      await tab.getByText(/^Columns: \d+ chosen$/).click();
      await tab.getByRole("checkbox", { name: "Job level" }).uncheck();
      await tab.getByRole("checkbox", { name: "Company domain" }).check();
      await shot(page, "export-01-form");

      const before = await balanceOf(app);
      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = confirmRegion(page);
      await poll(() => confirm.isVisible()).toBe(true);
      const promisedColumns = [
        "RBID_PAO",
        "FULL_NAME_PER",
        "JOB_TITLE_PER",
        "COMPANY_NAME_ORG",
        "COUNTRY_NAME_PER",
        "DOMAIN_ORG",
        "EMAIL_ADDRESS_PER",
        "CELLPHONE_PER",
      ];
      const figures = await estimateViaProxy(app, {
        filter: GERMANY,
        maxRows: 300,
        reveal: "both",
        columns: promisedColumns.slice(0, 6),
      });
      expect(figures.rows).toBe(300);
      expect(figures.credits).toBe(300 + figures.withEmail + 3 * figures.withMobile);
      expect(await tab.getByTestId("estimate-rows").textContent()).toBe("300");
      expect(await tab.getByTestId("estimate-credits").textContent()).toMatch(
        new RegExp(`^${figures.credits.toLocaleString("en-US")} credits \\(≈ \\$\\d+\\.\\d\\d\\)$`),
      );
      // The confirm step repeats the audience, rows, reveal and the exact cost.
      const confirmText = await confirm.textContent();
      expect(confirmText).toContain('Country is "Germany"');
      expect(confirmText).toContain("Email and mobile");
      expect(await confirm.getByTestId("confirm-cost").textContent()).toBe(
        await tab.getByTestId("estimate-credits").textContent(),
      );
      expect(confirmText).toContain(`${(before - figures.credits).toLocaleString("en-US")} credits`);
      await shot(page, "export-02-estimate-and-confirm");
      expect(await balanceOf(app)).toBe(before);

      // Hold the first status answer a moment, so the progress view can be seen before it completes.
      let held = false;
      await page.route("**/api/v2/contact/export/exp_*", async (route: Route) => {
        if (held || new URL(route.request().url()).pathname.endsWith("/download")) return route.continue();
        held = true;
        const response = await route.fetch();
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.fulfill({ response }).catch(() => {});
      });
      const download = page.waitForEvent("download", { timeout: 30_000 });
      await confirm.getByRole("button", { name: "Confirm and export 300 rows" }).click();
      const progress = tab.getByRole("region", { name: "Export “Germany test”" });
      await poll(() => progress.getByRole("progressbar").count()).toBe(1);
      await shot(page, "export-03-progress");

      // The header row reads in labels by default (the proxy rewrites the service's first line).
      const csv = await readCsvDownload(await download);
      expect(csv.name).toMatch(/^Germany test \d{4}-\d{2}-\d{2}\.csv$/);
      expect(csv.text.split("\r\n")[0]).toBe(
        "Contact ID,Full name,Job title,Company,Country,Company domain,Email,Mobile",
      );
      expect(csv.rows).toHaveLength(figures.rows);
      const ids = csv.rows.map((r) => r["Contact ID"]!);
      expect(ids).toEqual([...ids].sort());
      expect(csv.rows.every((r) => r.Country === "Germany")).toBe(true);
      expect(csv.rows.filter((r) => r.Email !== "").length).toBe(figures.withEmail);
      expect(csv.rows.filter((r) => r.Mobile !== "").length).toBe(figures.withMobile);
      await poll(() => progress.textContent()).toMatch(/Downloaded as Germany test \d{4}-\d{2}-\d{2}\.csv/);
      expect(await balanceOf(app)).toBe(before - figures.credits);
      await poll(() => page.locator("header.header .header-credits").textContent()).toBe(
        `${(before - figures.credits).toLocaleString("en-US")} credits`,
      );
      await shot(page, "export-04-completed-and-downloaded");

      // The history lists it; downloading it again costs nothing.
      const history = historyRegion(page);
      const row = history.locator("tbody tr").filter({ hasText: "Germany test" });
      await poll(() => row.textContent()).toContain("Completed");
      expect(await row.textContent()).toContain("300");
      const again = page.waitForEvent("download");
      await row.getByRole("button", { name: "Download Germany test" }).click();
      const second = await readCsvDownload(await again);
      expect(second.text).toBe(csv.text);
      // In the service's names: the same rows under the names the estimate promised.
      await history.getByRole("combobox", { name: "Column headers" }).selectOption("names");
      const named = page.waitForEvent("download");
      await row.getByRole("button", { name: "Download Germany test" }).click();
      const third = await readCsvDownload(await named);
      expect(third.header).toEqual(promisedColumns);
      expect(third.text.split("\r\n").slice(1)).toEqual(csv.text.split("\r\n").slice(1));
      await history.getByRole("combobox", { name: "Column headers" }).selectOption("labels");
      expect(await balanceOf(app)).toBe(before - figures.credits);
      await shot(page, "export-05-history");

      // A reload comes back to the finished export without downloading it again.
      await page.reload();
      await poll(() =>
        exportTab(page).getByRole("region", { name: "Export “Germany test”" }).textContent(),
      ).toContain("The file is ready");
      // Under another audience it is not shown as that one's: said in a line, one click away.
      await openExport(page, {
        ...GERMANY,
        children: [{ ...GERMANY.children[0]!, value: "France" } as never],
      });
      const other = exportTab(page).getByRole("status").filter({ hasText: "another audience" });
      await poll(() => other.textContent()).toBe(
        'Your last export was of another audience (Country is "Germany"), just now. Show it',
      );
      expect(await exportTab(page).getByRole("button", { name: "Estimate" }).isVisible()).toBe(true);
      await shot(page, "export-06-another-audience");
      await other.getByRole("button", { name: "Show it" }).click();
      await poll(() =>
        exportTab(page).getByRole("region", { name: "Export “Germany test”" }).textContent(),
      ).toContain("The file is ready");
      await exportTab(page).getByRole("button", { name: "Start a new export" }).click();
      await poll(() => exportTab(page).getByRole("button", { name: "Estimate" }).isVisible()).toBe(true);
      await log.settle();
      const downloads = log.exchanges.filter((e) => new URL(e.url).pathname.endsWith("/download"));
      expect(downloads.map((e) => new URL(e.url).search)).toEqual(["?headers=labels", "?headers=labels", ""]);
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("exports for a CRM: the CRM columns in one click, HubSpot's and Salesforce's field names in the header row", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openExport(page, GERMANY);
      const tab = exportTab(page);
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("20");
      await tab.getByRole("textbox", { name: /File name/ }).fill("CRM test");
      await tab.getByRole("radio", { name: /^Email 1 credit/ }).check();
      await tab.getByText(/^Columns: \d+ chosen$/).click();
      await tab.getByRole("button", { name: "Columns for a CRM" }).click();
      await poll(() => tab.getByText(/^Columns: \d+ chosen$/).textContent()).toBe("Columns: 8 chosen");
      for (const label of [
        "First name",
        "Last name",
        "Job title",
        "Company",
        "Company domain",
        "LinkedIn profile",
        "Country",
      ])
        expect(await tab.getByRole("checkbox", { name: label, exact: true }).isChecked(), label).toBe(true);
      expect(await tab.getByRole("checkbox", { name: "Full name" }).isChecked()).toBe(false);
      await shot(page, "export-07-crm-columns");
      await page.setViewportSize({ width: 768, height: 1000 });
      await shot(page, "export-07-crm-columns-768");
      await page.setViewportSize({ width: 1280, height: 800 });

      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = confirmRegion(page);
      await poll(() => confirm.isVisible()).toBe(true);
      const first = page.waitForEvent("download", { timeout: 30_000 });
      await confirm.getByRole("button", { name: "Confirm and export 20 rows" }).click();
      const progress = tab.getByRole("region", { name: "Export “CRM test”" });
      await first;
      await poll(() => progress.textContent()).toMatch(/Downloaded as CRM test/);

      // HubSpot's default contact properties by their internal names; what HubSpot has no property
      // for keeps its label. Columns in the order the form lists them (importers map by header).
      const headers = progress.getByRole("combobox", { name: "Column headers" });
      await headers.selectOption("hubspot");
      const hubspot = page.waitForEvent("download");
      await progress.getByRole("button", { name: "Download CSV" }).click();
      const forHubspot = await readCsvDownload(await hubspot);
      expect(forHubspot.header).toEqual([
        "Contact ID",
        "jobtitle",
        "company",
        "country",
        "firstname",
        "lastname",
        "LinkedIn profile",
        "Company domain",
        "email",
      ]);
      expect(forHubspot.rows).toHaveLength(20);
      expect(forHubspot.rows.every((r) => r.country === "Germany" && r.firstname !== "")).toBe(true);
      await shot(page, "export-08-hubspot-headers");

      // Salesforce's Lead fields by their API names.
      await headers.selectOption("salesforce");
      const salesforce = page.waitForEvent("download");
      await progress.getByRole("button", { name: "Download CSV" }).click();
      const forSalesforce = await readCsvDownload(await salesforce);
      expect(forSalesforce.header).toEqual([
        "Contact ID",
        "Title",
        "Company",
        "Country",
        "FirstName",
        "LastName",
        "LinkedIn profile",
        "Company domain",
        "Email",
      ]);
      // The same rows under each header: only the first line differs.
      expect(forSalesforce.text.split("\r\n").slice(1)).toEqual(forHubspot.text.split("\r\n").slice(1));
      await headers.selectOption("labels");
      await log.settle();
      const downloads = log.exchanges.filter((e) => new URL(e.url).pathname.endsWith("/download"));
      expect(downloads.map((e) => new URL(e.url).search)).toEqual([
        "?headers=labels",
        "?headers=hubspot",
        "?headers=salesforce",
      ]);
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("a download that fails can be fetched again, at no cost", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(`${app.url}/checkout?tab=export`);
      const row = historyRegion(page).locator("tbody tr").filter({ hasText: "Germany test" });
      await poll(() => row.textContent()).toContain("Completed");
      const before = await balanceOf(app);
      let failed = false;
      await page.route("**/api/v2/contact/export/*/download*", async (route: Route) => {
        if (failed) return route.continue();
        failed = true;
        await route.abort("connectionreset");
      });
      await row.getByRole("button", { name: "Download Germany test" }).click();
      await poll(() => row.getByRole("button", { name: "Download again Germany test" }).isVisible()).toBe(
        true,
      );
      expect(await row.getByRole("alert").textContent()).toContain("could not be reached");
      await shot(page, "export-06-download-failed");
      const download = page.waitForEvent("download");
      await row.getByRole("button", { name: "Download again Germany test" }).click();
      const csv = await readCsvDownload(await download);
      expect(csv.rows).toHaveLength(300);
      expect(await balanceOf(app)).toBe(before);
      await log.settle();
      expectClean(log, [/ERR_CONNECTION_RESET/, /net::ERR_FAILED/]);
    } finally {
      await context.close();
    }
  });

  it("exports exactly the rows selected in the sample", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      const ids = await selectSampleRows(page, 4);
      await page.getByRole("link", { name: "Checkout" }).click();
      await page.getByRole("tab", { name: "Export a file" }).click();
      const tab = exportTab(page);
      await tab.getByRole("radio", { name: /Only the 4 selected/ }).check();
      await poll(() => tab.getByRole("spinbutton", { name: "Most rows" }).inputValue()).toBe("4");
      await tab.getByRole("radio", { name: /^Neither/ }).check();
      const before = await balanceOf(app);
      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = confirmRegion(page);
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe("4 credits (≈ $0.01)");
      expect(await confirm.textContent()).toContain("the 4 people selected in the sample");
      await shot(page, "export-07-selected-rows-confirm");
      const download = page.waitForEvent("download", { timeout: 30_000 });
      await confirm.getByRole("button", { name: "Confirm and export 4 rows" }).click();
      const csv = await readCsvDownload(await download);
      expect(csv.rows.map((r) => r["Contact ID"]).sort()).toEqual([...ids].sort());
      expect(csv.header).not.toContain("Email");
      await poll(() => balanceOf(app)).toBe(before - 4);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("a reload while the purchase is in flight: nothing resent until Try again, charged once, the export appears", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openExport(page, GERMANY);
      const tab = exportTab(page);
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("100");
      await tab.getByRole("radio", { name: /^Neither/ }).check();
      await tab.getByRole("textbox", { name: /File name/ }).fill("Reload test");
      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = confirmRegion(page);
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe("100 credits (≈ $0.27)");
      const before = await balanceOf(app);
      const exportsBefore = (await exportsViaProxy(app)).length;

      // The server takes the purchase, but its answer is held until after the reload.
      let served: () => void = () => {};
      const serverActed = new Promise<void>((resolve) => {
        served = resolve;
      });
      let starts = 0;
      await page.route("**/api/v2/contact/export", async (route: Route) => {
        starts += 1;
        if (starts > 1) return route.continue();
        const response = await route.fetch();
        served();
        await new Promise((resolve) => setTimeout(resolve, 5000));
        await route.fulfill({ response }).catch(() => {});
      });
      await confirm.getByRole("button", { name: "Confirm and export 100 rows" }).click();
      await serverActed;
      await poll(() => tab.locator(".checkout-notice").textContent()).toContain("Buying 100 rows");
      await shot(page, "export-08-purchase-in-flight");
      expect(
        await page.evaluate(
          () => JSON.parse(localStorage.getItem("ab.checkout.pending.v1") ?? "{}").purchases?.length,
        ),
      ).toBe(1);

      await page.reload();
      // Nothing is sent again by itself: the export waits for a click, kept with its key.
      const notice = exportTab(page).getByRole("alert");
      await poll(() => notice.textContent()).toContain(
        "No answer: the export may or may not have gone through",
      );
      await page.waitForTimeout(1500);
      expect(starts).toBe(1);
      await shot(page, "export-09a-waiting-after-reload");
      // Try again sends the same key: the proxy answers with the first answer.
      const download = page.waitForEvent("download", { timeout: 30_000 });
      await notice.getByRole("button", { name: "Try again" }).click();
      const progress = exportTab(page).getByRole("region", { name: "Export “Reload test”" });
      const csv = await readCsvDownload(await download);
      expect(csv.rows).toHaveLength(100);
      await poll(() => progress.textContent()).toContain("The file is ready");
      await shot(page, "export-09-after-reload");
      expect(await balanceOf(app)).toBe(before - 100);
      const exportsAfter = await exportsViaProxy(app);
      expect(exportsAfter.length).toBe(exportsBefore + 1);
      expect(await page.evaluate(() => localStorage.getItem("ab.checkout.pending.v1"))).toBeNull();
      await log.settle();
      const keys = log.exchanges
        .filter((e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/export"))
        .map((e) => e.requestHeaders["idempotency-key"]);
      expect(new Set(keys).size).toBe(1);
      // The first request's page was unloaded mid-flight: Chromium may log it as cancelled.
      expectClean(log, [/\/api\/v2\/contact\/export: net::ERR_ABORTED/]);
    } finally {
      await context.close();
    }
  });

  it("explains 402 with both numbers: before confirming (too big for the balance) and when the server refuses", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      // Everyone (50,000 people) with emails and mobiles is far beyond 10,000 credits.
      await openExport(page, EVERYONE);
      const tab = exportTab(page);
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("50000");
      await tab.getByRole("radio", { name: /^Email and mobile/ }).check();
      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = confirmRegion(page);
      await poll(() => confirm.isVisible()).toBe(true);
      const balance = await balanceOf(app);
      const figures = await estimateViaProxy(app, {
        filter: EVERYONE,
        maxRows: 50_000,
        reveal: "both",
        columns: [
          "RBID_PAO",
          "FULL_NAME_PER",
          "JOB_TITLE_PER",
          "JOB_LEVEL_PER",
          "COMPANY_NAME_ORG",
          "COUNTRY_NAME_PER",
        ],
      });
      expect(figures.sufficient).toBe(false);
      const problem = await confirm.getByRole("alert").textContent();
      expect(problem).toContain(
        `This needs ${figures.credits.toLocaleString("en-US")} credits (≈ $${(figures.credits * 0.0027).toFixed(2)}); your balance is ${balance.toLocaleString("en-US")} credits`,
      );
      expect(await confirm.getByRole("button", { name: /^Confirm and export/ }).isDisabled()).toBe(true);
      expect(await tab.textContent()).toContain("Enough?No");
      await shot(page, "export-10-insufficient-before-confirm");

      // An export the balance covers when estimated, then the balance drops behind the app's back.
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("1000");
      await tab.getByRole("button", { name: /^Estimate/ }).click();
      await poll(() =>
        confirm.getByRole("button", { name: "Confirm and export 1,000 rows" }).isEnabled(),
      ).toBe(true);
      const needed = (
        await estimateViaProxy(app, {
          filter: EVERYONE,
          maxRows: 1000,
          reveal: "both",
          columns: [
            "RBID_PAO",
            "FULL_NAME_PER",
            "JOB_TITLE_PER",
            "JOB_LEVEL_PER",
            "COMPANY_NAME_ORG",
            "COUNTRY_NAME_PER",
          ],
        })
      ).credits;
      const client = proxyClient(app.url);
      let round = 0;
      while ((await balanceOf(app)) >= needed) {
        round += 1;
        const spent = await client.post(
          "/api/v2/contact/preview",
          { filter: { type: "group", op: "AND", negate: false, children: [] }, limit: 100, reveal: "both" },
          { idempotencyKey: `drain-balance-${round}-${Date.now()}` },
        );
        expect(spent.status).toBe(200);
      }
      const left = await balanceOf(app);
      await confirm.getByRole("button", { name: "Confirm and export 1,000 rows" }).click();
      const refusal = tab.getByRole("alert").filter({ hasText: "Nothing was bought" });
      await poll(() => refusal.isVisible()).toBe(true);
      const text = await refusal.textContent();
      expect(text).toContain(
        `This needs ${needed.toLocaleString("en-US")} credits (≈ $${(needed * 0.0027).toFixed(2)}); your balance is ${left.toLocaleString("en-US")} credits`,
      );
      expect(text).toContain("Nothing was charged.");
      expect(await balanceOf(app)).toBe(left);
      // The purchase is over: nothing is left to resume.
      expect(await page.evaluate(() => localStorage.getItem("ab.checkout.pending.v1"))).toBeNull();
      await shot(page, "export-11-refused-402");
      await log.settle();
      // The browser logs the refused request (402) itself.
      expectClean(log, [/status of 402/]);
      await until(
        () => exportsViaProxy(app),
        (list) => list.every((e) => e.status !== "QUEUED" && e.status !== "PROCESSING"),
        { what: "no export running" },
      );
    } finally {
      await context.close();
    }
  });
});
