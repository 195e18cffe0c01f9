import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupNode } from "../../src/contract/filter";
import { launchBrowser, openPage, type RunningApp, startApp } from "../support/browser";
import {
  balanceOf,
  expectClean,
  GERMANY,
  poll,
  readCsvDownload,
  seriousAxeViolations,
  shot,
  urlWithAudience,
} from "./checkout-support";

/**
 * The AYCE plan (contact retrieval included): every amount says 0 credits, no dollar amount
 * anywhere, and buying changes nothing in the balance. Screenshots: test-artifacts/checkout/ayce-*.png.
 */

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp({ env: { SANDBOX_KEY: "sbx_ayce_demo" } })]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const pageText = (page: Page) => page.evaluate(() => document.body.innerText);

describe("Checkout on the AYCE plan", () => {
  it("exports and previews for 0 credits, with no dollar amounts", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      const before = await balanceOf(app);
      await page.goto(urlWithAudience(app, GERMANY, "/checkout"));
      await page.getByRole("tab", { name: "Export a file" }).click();
      const tab = page.getByRole("tabpanel", { name: "Export a file" });
      await poll(() => tab.textContent()).toContain("Included in your plan");
      await tab.getByRole("spinbutton", { name: "Most rows" }).fill("50");
      await tab.getByRole("radio", { name: /^Email and mobile/ }).check();
      await tab.getByRole("button", { name: "Estimate" }).click();
      const confirm = tab.getByRole("region", { name: "Confirm the export" });
      await poll(() => confirm.getByTestId("confirm-cost").textContent()).toBe(
        "0 credits (included in your plan)",
      );
      expect(await tab.getByTestId("estimate-credits").textContent()).toBe("0 credits");
      expect(await pageText(page)).not.toContain("$");
      await shot(page, "ayce-01-export-confirm");
      expect(await seriousAxeViolations(page)).toEqual([]);

      const download = page.waitForEvent("download", { timeout: 30_000 });
      await confirm.getByRole("button", { name: "Confirm and export 50 rows" }).click();
      const csv = await readCsvDownload(await download);
      expect(csv.rows).toHaveLength(50);
      expect(csv.header.slice(-2)).toEqual(["Email", "Mobile"]);
      await poll(() => tab.textContent()).toContain("The file is ready: 50 rows, 0 credits charged.");
      expect(await balanceOf(app)).toBe(before);
      expect(await pageText(page)).not.toContain("$");
      await shot(page, "ayce-02-export-done");

      await page.getByRole("tab", { name: "Preview first rows" }).click();
      const preview = page.getByRole("tabpanel", { name: "Preview first rows" });
      await preview.getByRole("spinbutton", { name: "Rows" }).fill("5");
      await preview.getByRole("button", { name: "Review the preview" }).click();
      const previewConfirm = preview.getByRole("region", { name: "Confirm the preview" });
      await poll(() => previewConfirm.getByTestId("confirm-cost").textContent()).toBe(
        "0 credits (included in your plan)",
      );
      await previewConfirm.getByRole("button", { name: "Confirm and preview 5" }).click();
      await poll(() =>
        preview.getByRole("region", { name: "Preview rows", exact: true }).locator("tbody tr").count(),
      ).toBe(5);
      expect(await balanceOf(app)).toBe(before);
      expect(await pageText(page)).not.toContain("$");
      await shot(page, "ayce-03-preview");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("an audience with unfinished rules is not offered for sale: it says so and links back to the Builder", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      const unfinished: GroupNode = {
        type: "group",
        op: "AND",
        negate: false,
        children: [{ type: "condition", column: "JOB_LEVEL_PER", operator: "eq" }],
      };
      await page.goto(urlWithAudience(app, unfinished, "/checkout"));
      const warning = page.getByRole("alert").filter({ hasText: "unfinished rules" });
      await poll(() => warning.isVisible()).toBe(true);
      expect(await warning.getByRole("link", { name: "Finish it in the Builder" }).getAttribute("href")).toBe(
        "/",
      );
      expect(await page.getByTestId("audience-count").textContent()).toBe("—");
      await page.getByRole("tab", { name: "Export a file" }).click();
      expect(await page.getByRole("button", { name: "Estimate" }).isDisabled()).toBe(true);
      await page.getByRole("tab", { name: "Preview first rows" }).click();
      expect(await page.getByRole("button", { name: "Review the preview" }).isDisabled()).toBe(true);
      await shot(page, "ayce-04-unfinished-audience");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });
});
