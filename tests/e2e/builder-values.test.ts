import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserAndAppForFile,
  cspViolations,
  openPage,
  parseGroupedNumber,
  poll,
  screenshot,
  settledCount,
} from "../support/browser";

/**
 * Values that exist, in Chromium at 1440 x 900 and 768 x 1024: a categorical column (Country)
 * suggests its values with how many people carry each as one types; a typed value that matches no
 * one ("UK") is marked on its chip and explained in place with the value it probably meant
 * ("UK: no one. United Kingdom?") and beside the count; one click puts it in its place. Enter
 * takes the suggestion the typed text begins ("ger" → Germany); a folded list says its values in
 * words. Screenshots: test-artifacts/builder/values-*.png.
 */

const env = browserAndAppForFile();
const shot = (page: Page, name: string) => screenshot(page, "builder", name, { fromTop: true });

describe("values that exist", () => {
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 768, height: 1024 },
  ])
    it(`suggests values with counts and marks one that matches no one (${viewport.width} wide)`, async () => {
      const { page, log, context } = await openPage(env.browser, viewport);
      try {
        await page.goto(env.app.url);
        await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
        const everyone = await settledCount(page);

        await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
        const rule = page.getByRole("group", { name: /^Condition 1:/ });
        await rule.getByLabel("Comparison of condition 1").selectOption("in");
        const entry = rule.getByRole("combobox", { name: "Values of condition 1" });

        // Typing narrows the suggestions, each with how many people carry it.
        await entry.fill("ger");
        const list = page.getByRole("listbox", { name: "Values of condition 1" });
        const germany = list.getByRole("option", { name: /^Germany/ });
        await poll(() => germany.textContent()).toMatch(/^Germany[\d,]+ people$/);
        // The suggestion the typed text begins is highlighted, and Enter takes it, not "ger".
        await poll(() => germany.getAttribute("aria-selected")).toBe("true");
        if (viewport.width === 1440) await shot(page, "values-01-suggestions-with-counts");
        await entry.press("Enter");
        await entry.fill("France");
        await entry.press("Enter");
        await entry.fill("UK");
        await entry.press("Enter");
        const twoCountries = parseGroupedNumber(await settledCount(page, everyone));

        // "UK" matches no one: marked on its chip, explained with what it probably meant.
        await poll(() => rule.locator(".fe-chip[data-absent]").textContent()).toMatch(/^UK/);
        const note = rule.locator(".fe-absent");
        await poll(() => note.textContent()).toBe("UK: no one.United Kingdom?");
        expect(await rule.locator(".fe-chip[data-absent]").count()).toBe(1);
        // Said beside the count too, where the number is read.
        const leftOut = page.getByTestId("count-left-out");
        await poll(() => leftOut.textContent()).toBe("“UK” matches no one; counted without it.");
        await shot(page, `values-02-uk-no-one-${viewport.width}`);

        await note.getByRole("button", { name: "United Kingdom?" }).click();
        await poll(() => rule.getByRole("list", { name: /Values of condition 1/ }).textContent()).toBe(
          "Germany×France×United Kingdom×Clear all",
        );
        await poll(() => note.count()).toBe(0);
        await poll(() => leftOut.count()).toBe(0);
        const threeCountries = parseGroupedNumber(await settledCount(page, String(twoCountries)));
        expect(threeCountries).toBeGreaterThan(twoCountries);

        // Folded (focus elsewhere), the list says what it holds in words.
        await page.getByRole("heading", { level: 1 }).click();
        const folded = rule.locator(".fe-chips-folded");
        await poll(() => folded.textContent()).toBe("Germany, France+1");
        expect(await folded.isVisible()).toBe(true);
        await shot(page, `values-03-folded-${viewport.width}`);

        // One value: a typo is explained the same way once typing pauses.
        await rule.getByLabel("Comparison of condition 1").selectOption("eq");
        const value = rule.getByRole("combobox", { name: "Value of condition 1" });
        await value.fill("Germny");
        await poll(() => rule.locator(".fe-absent").textContent()).toBe("Germny: no one.Germany?");
        await poll(() => leftOut.textContent()).toBe("“Germny” matches no one, so its rule keeps nobody.");
        await rule.locator(".fe-absent").getByRole("button", { name: "Germany?" }).click();
        await poll(() => value.inputValue()).toBe("Germany");
        await poll(() => rule.locator(".fe-absent").count()).toBe(0);

        expect(log.pageErrors).toEqual([]);
        expect(cspViolations(log)).toEqual([]);
      } finally {
        await context.close();
      }
    });
});
