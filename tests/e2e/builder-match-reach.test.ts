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
 * Title matches you can see into, in Chromium at 1440 x 900: a "VP Marketing" match shows how many
 * people each level would keep on the level control, lists the titles it takes in with their
 * counts, and "Leave out" puts one in a NOT condition beside it: the count falls by exactly that
 * title's people; Ctrl+Z brings it back. Screenshot: test-artifacts/builder/reach-*.png.
 */

const env = browserAndAppForFile();
const shot = (page: Page, name: string) => screenshot(page, "builder", name, { fromTop: true });

describe("a match you can see into", () => {
  it("counts each level, lists the titles it takes in, and leaves one out in one click", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(env.app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const everyone = await settledCount(page);

      await page.getByRole("button", { name: "Add job title match to the whole filter" }).click();
      const row = page.getByRole("group", { name: /^Job title match 1:/ });
      await row.getByRole("textbox", { name: "Job title for job title match 1" }).fill("VP Marketing");
      const matched = parseGroupedNumber(await settledCount(page, everyone));

      // Each level says how many it would keep; the chosen one (Similar) is the count on screen.
      const levels = row.getByRole("button", { name: /^Match level of job title match 1/ });
      expect(await levels.textContent()).toBe("Similar");
      await levels.click();
      const items = page.getByRole("menu").getByRole("menuitemradio");
      await poll(() => items.locator(".fe-level-count:not(:empty)").count()).toBe(5);
      const perLevel = (await items.locator(".fe-level-count").allTextContents()).map((text) =>
        parseGroupedNumber(text.replace(/ (people|person)$/, "")),
      );
      expect(perLevel[2]).toBe(matched);
      for (let i = 1; i < perLevel.length; i++) expect(perLevel[i]).toBeGreaterThanOrEqual(perLevel[i - 1]!);
      await shot(page, "reach-00-level-menu");
      await page.keyboard.press("Escape");

      // The titles it takes in, with their people.
      await row.getByRole("button", { name: "See the titles it takes in" }).click();
      const list = row.getByRole("list", { name: "The titles job title match 1 takes in" });
      await poll(() => list.getByRole("listitem").count()).toBeGreaterThan(2);
      const second = list.getByRole("listitem").nth(1);
      const title = (await second.locator(".fe-reach-value").textContent()) ?? "";
      const people = parseGroupedNumber((await second.locator(".fe-reach-count").textContent()) ?? "");
      await shot(page, "reach-01-titles-it-takes-in");

      // Left out: a NOT condition beside the match; the count falls by exactly that title's people.
      await second.getByRole("button", { name: `Leave out ${title}` }).click();
      await poll(() => second.textContent()).toMatch(/Left out Put back$/);
      // Focus goes on to the next title still to be left out, not to the page.
      await poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toMatch(
        /^Leave out /,
      );
      const without = parseGroupedNumber(await settledCount(page, String(matched)));
      expect(without).toBe(matched - people);
      await expect
        .poll(() => page.getByRole("group", { name: /^Condition 2:/ }).getAttribute("aria-label"))
        .toBe(`Condition 2: Job title is not "${title}"`);
      await shot(page, "reach-02-left-out");

      // Put back: the NOT condition goes with its only value, the count is the match's again, and
      // focus is on that title's own "Leave out".
      await second.getByRole("button", { name: `Put back ${title}` }).click();
      await poll(() => second.getByRole("button", { name: `Leave out ${title}` }).count()).toBe(1);
      await poll(() => page.getByRole("group", { name: /^Condition 2:/ }).count()).toBe(0);
      expect(parseGroupedNumber(await settledCount(page, String(without)))).toBe(matched);
      await poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
        `Leave out ${title}`,
      );

      // One undoable step each: Undo leaves it out again, Redo puts it back.
      await page.getByRole("button", { name: "Undo" }).click();
      await poll(async () => parseGroupedNumber(await settledCount(page))).toBe(without);
      await poll(() => second.textContent()).toMatch(/Left out Put back$/);
      await page.getByRole("button", { name: "Redo" }).click();
      await poll(async () => parseGroupedNumber(await settledCount(page))).toBe(matched);
      await poll(() => second.getByRole("button", { name: `Leave out ${title}` }).count()).toBe(1);

      expect(log.pageErrors).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
