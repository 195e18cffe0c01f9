import { describe, expect, it } from "vitest";
import {
  browserAndAppForFile,
  cspViolations,
  openPage,
  poll,
  screenshot,
  settledCount,
} from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";
import { balanceOf } from "./checkout-support";

/**
 * A lookalike's company found by name, in Chromium at 1440 x 900: typing part of a name offers the
 * companies of the contact data with their people (free), and picking one names it by its ID;
 * "Search the data service for … (1 credit)" is the service's organization resolve, sent only by that
 * click, charged once and in the ledger; "Use this one" names the company. Screenshot:
 * test-artifacts/builder/by-name-*.png.
 */

const env = browserAndAppForFile();

/** A company of the sandbox's contact data, its name read through the proxy (free). */
async function someCompanyName(url: string): Promise<string> {
  const answer = await proxyClient(url).post<{ buckets: { value: string }[] }>("/api/v2/contact/insights", {
    section: "breakdown",
    groupField: "COMPANY_NAME_ORG",
    filter: { type: "group", op: "AND", children: [] },
  });
  expect(answer.status).toBe(200);
  const name = answer.body.buckets.find((b) => typeof b.value === "string" && b.value.length >= 6)?.value;
  if (!name) throw new Error("no company name in the sandbox");
  return name;
}

describe("a company found by name", () => {
  it("picks one from the contact data for free, or finds one with the data service for a credit", async () => {
    const company = await someCompanyName(env.app.url);
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(env.app.url);
      await settledCount(page);
      const balance = await balanceOf(env.app);

      await page.getByRole("button", { name: "Add lookalike companies to the whole filter" }).click();
      const row = page.getByRole("group", { name: /^Lookalike 1:/ });
      await row.getByRole("combobox", { name: "Name the company of lookalike 1 by" }).selectOption("Name");
      const field = row.getByRole("combobox", { name: "Company name for lookalike 1" });
      await field.fill(company.slice(0, 5));
      const option = page
        .getByRole("listbox", { name: "Company name for lookalike 1" })
        .getByRole("option", { name: new RegExp(`^${company.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`) });
      await poll(() => option.count()).toBeGreaterThan(0);
      await screenshot(page, "builder", "by-name-01-suggestions", { fromTop: true });
      await option.first().click();

      // Named by its ID now, and found: the rule is counted.
      await poll(() =>
        row.getByRole("combobox", { name: "Name the company of lookalike 1 by" }).inputValue(),
      ).toBe("rbidOrg");
      await poll(() => row.locator(".fe-lookup").textContent()).toMatch(
        new RegExp(`^Like: ${company.slice(0, 5)}`),
      );
      expect(await balanceOf(env.app)).toBe(balance);

      // The data service's search: only by the click that says its price; charged once.
      await row.getByRole("combobox", { name: "Name the company of lookalike 1 by" }).selectOption("Name");
      const again = row.getByRole("combobox", { name: "Company name for lookalike 1" });
      await again.fill(company.toUpperCase());
      await again.press("Escape");
      const search = row.getByRole("button", {
        name: `Search the data service for “${company.toUpperCase()}” (1 credit)`,
      });
      expect(await balanceOf(env.app)).toBe(balance);
      await search.click();
      const results = row.getByRole("list", { name: "Companies the data service found for lookalike 1" });
      await poll(() => results.getByRole("listitem").count()).toBeGreaterThan(0);
      expect(await results.getByRole("listitem").first().textContent()).toMatch(
        new RegExp(`^${company.slice(0, 5)}`),
      );
      await poll(() => balanceOf(env.app)).toBe(balance - 1);
      await screenshot(page, "builder", "by-name-02-service-results", { fromTop: true });
      await results.getByRole("button", { name: /^Use / }).first().click();
      await poll(() => row.locator(".fe-lookup").textContent()).toMatch(/^Like: /);
      await poll(() => settledCount(page)).toMatch(/^[\d,]+$/);
      // A known company: its levels say how many each keeps, and its companies can be seen into.
      await row.getByRole("button", { name: /^Match level of lookalike 1/ }).click();
      const levelItems = page.getByRole("menu").getByRole("menuitemradio");
      await poll(() => levelItems.locator(".fe-level-count:not(:empty)").count()).toBe(5);
      await page.keyboard.press("Escape");
      await row.getByRole("button", { name: "See the companies it takes in" }).click();
      await poll(() => row.getByRole("button", { name: /^Leave out / }).count()).toBeGreaterThan(0);

      const ledger = await proxyClient(env.app.url).get<{
        entries: { operation: string; credits: number }[];
      }>("/api/ledger");
      expect(ledger.status).toBe(200);
      expect(ledger.body.entries.filter((e) => e.operation === "organizationResolve")).toMatchObject([
        { creditsCharged: 1, outcome: "charged" },
      ]);
      expect(await balanceOf(env.app)).toBe(balance - 1);

      expect(log.pageErrors).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
