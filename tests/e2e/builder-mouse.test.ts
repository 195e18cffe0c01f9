import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cspViolations,
  launchBrowser,
  openPage,
  type PageLog,
  parseGroupedNumber,
  poll,
  type RunningApp,
  screenshot,
  settledCount,
  startApp,
  until,
} from "../support/browser";

/**
 * The Builder with the mouse only (typing aside): a three-level audience, the count after every
 * step, the sample, a selection, a saved audience; a reload and a fresh context keep it all.
 * Screenshots: test-artifacts/builder/mouse-*.png.
 */

const SHOTS = "builder";
const SAVED_NAME = "North America directors and VPs";

/** `expect.poll` with room for a loaded machine (its default gives up after one second). */

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp()]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const summaryOf = (page: Page) =>
  page.getByRole("region", { name: "In plain English" }).locator("p").textContent();

/** The count once it has settled on a new value, checked to read like "12,345". */
async function nextCount(page: Page, previous: string): Promise<string> {
  const shown = await settledCount(page, previous);
  // Every step of this audience keeps more than a thousand of the 50,000 test people.
  expect(shown).toMatch(/^\d{1,3}(,\d{3})+$/);
  expect(parseGroupedNumber(shown)).toBeLessThanOrEqual(50_000);
  return shown;
}

/** The texts of one column of the sample table, by its header. */
function columnTexts(page: Page, header: string): Promise<string[]> {
  return page.evaluate((name) => {
    const table = document.querySelector(".sample-table");
    const headers = [...(table?.querySelectorAll("thead th") ?? [])].map((th) => th.textContent?.trim());
    const index = headers.indexOf(name);
    if (index < 0) return [];
    return [...(table?.querySelectorAll("tbody tr") ?? [])].map(
      (tr) => tr.children[index]?.textContent?.trim() ?? "",
    );
  }, header);
}

/** A full-page screenshot, from the top of the page. */
const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });

function expectClean(log: PageLog) {
  expect(log.problems()).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

describe("the Builder with the mouse", () => {
  it("builds a three-level audience, samples, selects, saves, and keeps it all across a reload and a link", async () => {
    const { context, page, log } = await openPage(browser);
    const counts: string[] = [];
    let url = "";
    let summary = "";
    try {
      await page.goto(app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      counts.push(await settledCount(page));
      expect(counts[0]).toBe("50,000");
      await shot(page, "mouse-01-empty");

      // Level 1: Country is one of United States, Canada.
      await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
      const condition1 = page.getByRole("group", { name: /^Condition 1:/ });
      expect(await condition1.getByRole("combobox", { name: "Field of condition 1" }).inputValue()).toBe(
        "Country",
      );
      await condition1.getByLabel("Comparison of condition 1").selectOption("in");
      const countries = condition1.getByRole("combobox", { name: "Values of condition 1", exact: true });
      await countries.click();
      await countries.pressSequentially("United States,Canada,");
      expect(
        await condition1
          .getByRole("list", { name: /^Values of condition 1/ })
          .locator("li")
          .allTextContents(),
      ).toEqual(["United States×", "Canada×", "Clear all"]);
      counts.push(await nextCount(page, counts.at(-1)!));
      expect(parseGroupedNumber(counts.at(-1)!)).toBeLessThan(50_000);
      await shot(page, "mouse-02-countries");

      // Level 2: a group, any of: Job level is Director, a job title like "VP Marketing" (related).
      await page.getByRole("button", { name: "Add group to the whole filter" }).click();
      const group2 = page.getByRole("group", { name: /^Group 2:/ });
      await group2
        .getByRole("radiogroup", { name: "How group 2 combines its items" })
        .getByRole("radio", { name: "Any of these (OR)" })
        .click();
      const field21 = group2.getByRole("combobox", { name: "Field of condition 2.1" });
      await field21.click();
      await page
        .getByRole("listbox", { name: "Field of condition 2.1" })
        .getByRole("option", { name: "Job level" })
        .click();
      expect(await field21.inputValue()).toBe("Job level");
      await group2.getByRole("combobox", { name: "Value of condition 2.1" }).fill("Director");
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "mouse-03-job-level");

      await group2.getByRole("button", { name: "Add job title match to group 2" }).click();
      await group2.getByRole("textbox", { name: "Job title for job title match 2.2" }).fill("VP Marketing");
      counts.push(await nextCount(page, counts.at(-1)!));
      await group2.getByRole("button", { name: /^Match level of job title match 2\.2/ }).click();
      await page
        .getByRole("menu")
        .getByRole("menuitemradio", { name: /^Related/ })
        .click();
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "mouse-04-title-match");

      // Level 3: inside group 2, a group: Employee range is 51-200 (values from the server), negated.
      await group2.getByRole("button", { name: "Add group to group 2" }).click();
      const group23 = page.getByRole("group", { name: /^Group 2\.3:/ });
      const field231 = group23.getByRole("combobox", { name: "Field of condition 2.3.1" });
      await field231.click();
      await page
        .getByRole("listbox", { name: "Field of condition 2.3.1" })
        .getByRole("option", { name: "Employee range" })
        .click();
      const range = group23.getByRole("combobox", { name: "Value of condition 2.3.1" });
      await range.click();
      const rangeOptions = page
        .getByRole("listbox", { name: "Value of condition 2.3.1" })
        .getByRole("option");
      // Each value with how many people carry it.
      await poll(() => rangeOptions.allTextContents()).toContainEqual(
        expect.stringMatching(/^51-200[\d,]+ people$/),
      );
      await rangeOptions.filter({ hasText: /^51-200\d/ }).click();
      expect(await range.inputValue()).toBe("51-200");
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "mouse-05-employee-range");

      // NOT from the group's actions menu.
      await group23.getByRole("button", { name: "Actions for group 2.3" }).click();
      const menu = page.getByRole("menu");
      await poll(() => menu.count()).toBe(1);
      await shot(page, "mouse-06-actions-menu");
      await menu.getByRole("menuitem", { name: /Toggle NOT/ }).click();
      await poll(() => menu.count()).toBe(0);
      await poll(() => page.getByRole("group", { name: /^Group 2\.3:/ }).getAttribute("aria-label")).toMatch(
        /negated \(NOT\)$/,
      );
      counts.push(await nextCount(page, counts.at(-1)!));

      summary = (await summaryOf(page)) ?? "";
      expect(summary).toBe(
        'Country is one of "United States" or "Canada" and (Job level is "Director" or job title is related to "VP Marketing" or not (Employee range is "51-200"))',
      );
      // Every step changed the count, and each reads with grouped thousands.
      expect(new Set(counts).size).toBe(counts.length);
      await shot(page, "mouse-07-three-levels");

      // The sample follows once the audience settles; tick three rows.
      const table = page.getByRole("region", { name: /^Sample of \d+ people, masked$/ });
      const rowBoxes = table.getByRole("checkbox", { name: /^Select (?!every row)/ });
      await until(
        async () => ({
          status: await page.locator(".sample-status").textContent(),
          rows: await rowBoxes.count(),
        }),
        (s) => /^A random sample of [\d,]+ people, taken at/.test(s.status ?? "") && s.rows > 3,
        { timeout: 15_000, what: "the sample of the finished audience" },
      );
      // It is this audience's sample: everyone in it lives in the United States or Canada.
      expect(new Set(await columnTexts(page, "Country"))).toSatisfy((countries: Set<string>) =>
        [...countries].every((c) => c === "United States" || c === "Canada"),
      );
      for (const index of [0, 1, 2]) await rowBoxes.nth(index).click();
      const selectionBar = page.locator(".sample-selection");
      await poll(() => selectionBar.textContent()).toMatch(/^3 contacts selected \(3 in this sample\)\./);
      await shot(page, "mouse-08-selected");

      // Save it under a name.
      const saved = page.getByRole("complementary", { name: "Saved audiences" });
      await saved.getByRole("button", { name: "Save as new…" }).click();
      await saved.getByLabel("Name this audience").fill(SAVED_NAME);
      await saved.getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => saved.getByRole("button", { name: `Open ${SAVED_NAME}` }).count()).toBe(1);
      expect(await saved.locator(".saved-live").textContent()).toContain(`Saved “${SAVED_NAME}” (private).`);
      // It is the open audience now, named above the Builder, with nothing unsaved.
      const openBar = page.getByRole("region", { name: "Open audience" });
      expect(await openBar.locator(".open-audience-name").textContent()).toBe(SAVED_NAME);
      expect(await openBar.getAttribute("data-unsaved")).toBe("false");
      await shot(page, "mouse-09-saved");

      // The URL catches up with the tree (debounced), then a reload finds everything again.
      url = await until(
        async () => page.url(),
        (u) => new URL(u).searchParams.has("a"),
        { what: "the audience in the URL" },
      );
      const count = counts.at(-1)!;
      await page.reload();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(await settledCount(page)).toBe(count);
      expect(await summaryOf(page)).toBe(summary);
      expect(await page.getByRole("group", { name: /^Group 2\.3:/ }).getAttribute("aria-label")).toMatch(
        /negated/,
      );
      expect(
        await page
          .getByRole("button", { name: /^Match level of job title match 2\.2/ })
          .locator(".fe-level-name")
          .textContent(),
      ).toBe("Related");
      await poll(() => selectionBar.textContent()).toMatch(/^3 contacts selected/);
      expect(await saved.getByRole("button", { name: `Open ${SAVED_NAME}` }).count()).toBe(1);
      // The open audience survives the reload too.
      expect(
        await page
          .getByRole("region", { name: "Open audience" })
          .locator(".open-audience-name")
          .textContent(),
      ).toBe(SAVED_NAME);
      await shot(page, "mouse-10-reloaded");

      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }

    // The link alone, in a context with no storage: the same tree and count.
    const fresh = await openPage(browser);
    try {
      await fresh.page.goto(url);
      await poll(() => fresh.page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(await settledCount(fresh.page)).toBe(counts.at(-1));
      expect(await summaryOf(fresh.page)).toBe(summary);
      // Nothing came from storage (no selection); the audience open is the one this person had
      // open, since the link's tree is its own (it follows the person, from the server).
      expect(await fresh.page.evaluate(() => localStorage.getItem("audience-builder:selections"))).toBeNull();
      await poll(() =>
        fresh.page
          .getByRole("region", { name: "Open audience" })
          .locator(".open-audience-name")
          .textContent(),
      ).toBe(SAVED_NAME);
      // Saved audiences live on the server: the one saved in the other browser is listed here too.
      await poll(() =>
        fresh.page
          .getByRole("complementary", { name: "Saved audiences" })
          .getByRole("button", { name: `Open ${SAVED_NAME}` })
          .count(),
      ).toBe(1);
      await shot(fresh.page, "mouse-11-shared-link");
      await fresh.log.settle();
      expectClean(fresh.log);
    } finally {
      await fresh.context.close();
    }
  }, 90_000);
});
