import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import {
  browserAndAppForFile,
  cspViolations,
  openPage,
  poll,
  screenshot,
  settledCount,
} from "../support/browser";

/**
 * New rules are quiet, broken ones contained, in Chromium at 1440 x 900: "+ Condition" adds a rule
 * that shows no error and no banner while it is being filled in; the count keeps its number and
 * says "1 rule unfinished, not counted"; the error appears once the person leaves the rule empty.
 * "Founded between 2020 and 1990" is marked in place (swap the ends) and the rest of the audience is
 * still counted without it, saying so; fixed, it is counted. A lookalike of a company the service does
 * not know is said on its row and left out of the count the same way. Screenshots:
 * test-artifacts/builder/quiet-*.png.
 */

const env = browserAndAppForFile();
const shot = (page: Page, name: string) => screenshot(page, "builder", name, { fromTop: true });
const leftOut = (page: Page) => page.getByTestId("count-left-out");

describe("quiet new rules and contained errors", () => {
  it("a press on an add button below a blank rule is not lost to the rule's message", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(env.app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
      const rule = page.getByRole("group", { name: /^Condition 1:/ });
      await rule.getByRole("combobox", { name: "Value of condition 1" }).focus();
      // One press with the mouse: leaving the blank rule says "Enter a value." under it (the rule
      // grows), but only once the press is over, so the button under the pointer gets its click.
      await page.getByRole("button", { name: "Add job title match to the whole filter" }).click();
      await poll(() => page.getByRole("group", { name: /^Job title match 2:/ }).count()).toBe(1);
      await poll(() => rule.getByText("Enter a value.").count()).toBe(1);
      expect(log.pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a blank rule is unfinished, not wrong; a swapped range is marked in place and counted without", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(env.app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const everyone = await settledCount(page);

      // A new blank rule: nothing shouts; the count stands, and says what it leaves out.
      await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
      const rule = page.getByRole("group", { name: /^Condition 1:/ });
      await poll(() => leftOut(page).textContent()).toBe("1 rule unfinished, not counted.");
      expect(await page.getByText("Enter a value.").count()).toBe(0);
      expect(await page.locator(".fe-blocking").count()).toBe(0);
      expect(await settledCount(page)).toBe(everyone);
      await shot(page, "quiet-01-new-rule");

      // Left empty: now it is said, in place.
      await rule.getByLabel("Comparison of condition 1").focus();
      await page.getByRole("button", { name: "Add condition to the whole filter" }).focus();
      await poll(() => rule.getByText("Enter a value.").count()).toBe(1);

      // Filled in: counted.
      await rule.getByRole("combobox", { name: "Value of condition 1" }).fill("Germany");
      const germany = await settledCount(page, everyone);
      await poll(() => leftOut(page).count()).toBe(0);

      // Founded between 2020 and 1990: marked in place; the rest is still counted, saying so.
      await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
      const founded = page.getByRole("group", { name: /^Condition 2:/ });
      const field = founded.getByRole("combobox", { name: "Field of condition 2" });
      await field.fill("Founded");
      await page
        .getByRole("listbox", { name: "Field of condition 2" })
        .getByRole("option", { name: "Founded" })
        .click();
      await founded.getByLabel("Comparison of condition 2").selectOption("between");
      await founded.getByLabel("Lowest value of condition 2").fill("2020");
      await founded.getByLabel("Highest value of condition 2").fill("1990");
      await poll(() => founded.textContent()).toMatch(
        /The lower end \(2020\) is above the upper end \(1990\): swap them/,
      );
      await poll(() => leftOut(page).textContent()).toMatch(
        /Founded.*swap them, or nobody matches\. Counted without it\./,
      );
      expect(await settledCount(page)).toBe(germany);
      await shot(page, "quiet-02-swapped-range-contained");

      // Swapped back: counted with it.
      await founded.getByLabel("Lowest value of condition 2").fill("1990");
      await founded.getByLabel("Highest value of condition 2").fill("2020");
      const founded1990to2020 = await settledCount(page, germany);
      await poll(() => leftOut(page).count()).toBe(0);

      // A lookalike of a company the service does not know: said on its row, left out of the
      // count (which says so), and nothing else on the page fails.
      await page.getByRole("button", { name: "Add lookalike companies to the whole filter" }).click();
      const lookalike = page.getByRole("group", { name: /^Lookalike 3:/ });
      await lookalike.getByLabel("Company domain for lookalike 3").fill("hubspot-nowhere.com");
      await poll(() => lookalike.textContent()).toMatch(/No such company/);
      await poll(() => leftOut(page).textContent()).toMatch(
        /No company has the domain “hubspot-nowhere\.com”\. Counted without it\./,
      );
      expect(await settledCount(page)).toBe(founded1990to2020);
      expect(await page.locator(".count-badge[data-state=error]").count()).toBe(0);
      await shot(page, "quiet-03-unknown-lookalike-contained");
      // The lookup that learns the company is unknown is a 422 by design, and the only one: nothing
      // is counted, sampled or broken down while the company is being looked up.
      const expected = [/status of 422 .*\/api\/v2\/contact\/company\/lookalike\)$/];
      expect(log.problems().filter((line) => !expected.some((re) => re.test(line)))).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("a rule the service refuses (its count's 422 names it) is marked on its row and counted without", async () => {
    // Opened from a link: the count is asked at once, before the row's own lookup has answered.
    const tree: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      id: "root",
      children: [
        { type: "condition", id: "de", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
        { type: "lookalike", id: "hs", domain: "hubspot-nowhere.com", rbidOrg: "", negate: false },
      ],
    };
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(`${env.app.url}/?a=${encodeTreeForUrl(tree)}`);
      const row = page.getByRole("group", { name: /^Lookalike 2:/ });
      expect(await row.getByLabel("Company domain for lookalike 2").inputValue()).toBe("hubspot-nowhere.com");
      await poll(() => leftOut(page).textContent()).toMatch(/hubspot-nowhere\.com.*Counted without it\./);
      const germany = await settledCount(page);
      expect(germany).toMatch(/^[\d,]+$/);
      expect(germany).not.toBe("0");
      // No page-wide banner, no internal path anywhere on the page.
      expect(await page.locator(".count-badge[data-state=error]").count()).toBe(0);
      // The sample and insights asked with the rule too: they come back without it, by themselves,
      // and nothing anywhere names an internal path.
      await poll(() => page.getByText(/could not be (taken|loaded)/).count()).toBe(0);
      expect(await page.locator("body").textContent()).not.toMatch(/children|filter ›|RBID/);
      await shot(page, "quiet-04-refused-rule-marked");
      const expected = [/status of 422 .*\/api\/v2\/contact\/(company\/lookalike|count|insights|view)\)$/];
      expect(log.problems().filter((line) => !expected.some((re) => re.test(line)))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
