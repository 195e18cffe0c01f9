import { describe, expect, it } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { FilterNode, GroupNode } from "../../src/contract/filter";
import {
  browserAndAppForFile,
  cspViolations,
  openPage,
  poll,
  screenshot,
  settledCount,
} from "../support/browser";

/**
 * Keys as people expect them, in Chromium at 1440 x 900, past eight rules: Ctrl+/ goes
 * straight to the add buttons; Ctrl+Backspace in a value deletes a word, not the rule; Alt+Down
 * moves a rule from its value field; an Insights click is undone by Ctrl+Z with focus where it was.
 */

const env = browserAndAppForFile();

const COUNTRIES = ["Germany", "France", "Spain", "Italy", "Canada", "India", "Japan", "Brazil"];
const EIGHT: GroupNode = {
  type: "group",
  op: "OR",
  negate: false,
  id: "root",
  children: COUNTRIES.map(
    (country, i): FilterNode => ({
      type: "condition",
      id: `c${i}`,
      column: "COUNTRY_NAME_PER",
      operator: "eq",
      value: country,
    }),
  ),
};

const focusedName = (page: import("playwright-core").Page) =>
  page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");

describe("keys that work where people press them", () => {
  it("jumps to the add bar, keeps text keys in fields, moves from anywhere in a row, undoes an Insights click", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(`${env.app.url}/?a=${encodeTreeForUrl(EIGHT)}`);
      await poll(() => page.getByRole("group", { name: /^Condition \d+:/ }).count()).toBe(8);
      const before = await settledCount(page);

      // From the first rule's value to the add bar in one key press, not some 80 Tabs.
      const first = page.getByRole("combobox", { name: "Value of condition 1" });
      await first.focus();
      await page.keyboard.press("Control+/");
      expect(await focusedName(page)).toBe("Add condition to the whole filter");

      // Ctrl+Backspace in a value deletes the last word there; the rule stays.
      const third = page.getByRole("combobox", { name: "Value of condition 3" });
      await third.fill("Spain Madrid");
      await third.press("End");
      await third.press("Control+Backspace");
      await poll(() => third.inputValue()).toBe("Spain ");
      expect(await page.getByRole("group", { name: /^Condition \d+:/ }).count()).toBe(8);
      await third.fill("Spain");

      // Alt+Down from the value field moves the rule; focus stays in its value.
      await first.focus();
      await page.keyboard.press("Escape");
      await page.keyboard.press("Alt+ArrowDown");
      await poll(() => page.getByRole("group", { name: /^Condition 2:/ }).getAttribute("aria-label")).toBe(
        'Condition 2: Country is "Germany"',
      );
      expect(await focusedName(page)).toBe("Value of condition 2");
      await settledCount(page);

      // An Insights click narrows the audience; Ctrl+Z, pressed right there, takes it back.
      const row = page.locator(".insights-row").first();
      await row.scrollIntoViewIfNeeded();
      await poll(() => row.isEnabled()).toBe(true);
      await row.click();
      // (an OR audience is wrapped, so its rules read 1.1 to 1.8, then the new one)
      const rules = page.getByRole("group", { name: /^Condition [\d.]+:/ });
      await poll(() => rules.count()).toBe(9);
      await page.keyboard.press("Control+z");
      await poll(() => rules.count()).toBe(8);
      await poll(() => page.getByRole("group", { name: /^Condition 1:/ }).count()).toBe(1);
      await poll(() => settledCount(page)).toBe(before);

      expect(log.pageErrors).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("at 768 wide: Tab meets a skip to + Condition early, the count is a bar that covers no focused rule, the sample is one move away", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 768, height: 900 });
    try {
      await page.goto(`${env.app.url}/?a=${encodeTreeForUrl(EIGHT)}`);
      await poll(() => page.getByRole("group", { name: /^Condition \d+:/ }).count()).toBe(8);
      await settledCount(page);

      // From the top of the page, Tab reaches the skip within the first few presses.
      await page.locator("body").focus();
      let presses = 0;
      while (
        (await page.evaluate(() => document.activeElement?.textContent ?? "")) !==
        "Skip the rules: add a condition"
      ) {
        await page.keyboard.press("Tab");
        presses += 1;
        expect(presses, "Tab presses before the skip").toBeLessThanOrEqual(25);
      }
      await screenshot(page, "builder", "keys-768-01-skip-focused", { viewport: true });
      await page.keyboard.press("Enter");
      expect(await focusedName(page)).toBe("Add condition to the whole filter");

      // Upwards through the rules by Shift+Tab: each focused field lands below the pinned bar.
      const bar = page.locator(".builder-count");
      for (let i = 0; i < 12; i += 1) {
        await page.keyboard.press("Shift+Tab");
        const [barBox, focused] = await Promise.all([
          bar.boundingBox(),
          page.evaluate(() => {
            const r = document.activeElement?.getBoundingClientRect();
            return r ? { top: r.top, bottom: r.bottom } : null;
          }),
        ]);
        expect(barBox!.y).toBeGreaterThanOrEqual(0);
        expect(focused!.top, `focus ${i} below the count's bar`).toBeGreaterThanOrEqual(
          barBox!.y + barBox!.height,
        );
      }
      // Scrolled into the rules, the bar is solid: nothing of a rule shows around the count.
      await page.mouse.wheel(0, 420);
      await poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(300);
      const background = await bar.evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(background).not.toMatch(/rgba\(0, 0, 0, 0\)|transparent/);
      await screenshot(page, "builder", "keys-768-02-scrolled-bar", { viewport: true });

      // The sample, one click away.
      await bar.getByRole("link", { name: "Sample" }).click();
      const sample = page.getByRole("heading", { name: "Sample", exact: true });
      await poll(async () => {
        const [heading, pinned] = await Promise.all([sample.boundingBox(), bar.boundingBox()]);
        return (
          heading !== null && pinned !== null && heading.y >= pinned.y + pinned.height && heading.y < 900
        );
      }).toBe(true);
      await screenshot(page, "builder", "keys-768-03-jumped-to-sample", { viewport: true });
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
