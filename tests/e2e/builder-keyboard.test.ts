import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARTIFACTS_DIR,
  cspViolations,
  type FocusState,
  focusState,
  launchBrowser,
  openPage,
  parseGroupedNumber,
  poll,
  type RunningApp,
  screenshot,
  settledCount,
  startApp,
  until,
} from "../support/browser";

/**
 * The Builder from the keyboard alone: Tab / Shift+Tab, Enter / Space, arrows in comboboxes,
 * selects and segmented controls, typing, and the editor's shortcuts (Ctrl+Enter, Ctrl+Shift+Enter,
 * Ctrl+I, Alt+arrows, Ctrl+Z). Focus must be visible at every stop. No pointer event is sent.
 * Screenshots: test-artifacts/builder/keyboard-*.png.
 */

const SHOTS = "builder";
const FINAL_SUMMARY =
  'Country is one of "United States" or "Canada" and (Job level is "Director" or job title is related to "VP Marketing" or not (Employee range is "51-200"))';

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

function describeFocus(focus: FocusState): string {
  return `${focus.element} (outline: ${focus.outline}; box-shadow: ${focus.boxShadow})`;
}

/** Focus is somewhere, named `name` when given, can be seen, and nothing covers it. */
async function expectFocus(page: Page, name?: string | RegExp): Promise<FocusState> {
  const focus = await focusState(page);
  if (name !== undefined) {
    if (typeof name === "string") expect(focus.name, describeFocus(focus)).toBe(name);
    else expect(focus.name, describeFocus(focus)).toMatch(name);
  }
  if (!focus.visible || focus.coveredBy !== "") {
    // What the person would see: the viewport, not the whole page.
    mkdirSync(path.join(ARTIFACTS_DIR, SHOTS), { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, SHOTS, "keyboard-focus-failure.png") });
  }
  expect(focus.visible, `focus is not visible on ${describeFocus(focus)}`).toBe(true);
  expect(focus.coveredBy, `${focus.element} is hidden under ${focus.coveredBy}`).toBe("");
  return focus;
}

/**
 * Presses Tab (Shift+Tab with `back`) until the focused element is named `name`, checking that
 * focus is visible at every stop on the way. Returns the names passed.
 */
async function tabTo(
  page: Page,
  name: string | RegExp,
  { back = false, max = 80 }: { back?: boolean; max?: number } = {},
): Promise<string[]> {
  const passed: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const focus = await expectFocus(page);
    passed.push(focus.name);
    if (typeof name === "string" ? focus.name === name : name.test(focus.name)) return passed;
  }
  throw new Error(`"${name}" not reached with ${back ? "Shift+Tab" : "Tab"}; passed: ${passed.join(" | ")}`);
}

/** The value of the focused input or select. */
const focusedValue = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLInputElement | HTMLSelectElement | null)?.value ?? "");

/** The label of the option a focused combobox highlights (its active descendant), without its count. */
const activeOption = (page: Page) =>
  page.evaluate(() => {
    const id = document.activeElement?.getAttribute("aria-activedescendant");
    return id ? (document.getElementById(id)?.firstElementChild?.textContent ?? "") : "";
  });

/** The count once it has settled on a new value, checked to read like "12,345". */
async function nextCount(page: Page, previous: string): Promise<string> {
  const shown = await settledCount(page, previous);
  // Every step of this audience keeps more than a thousand of the 50,000 test people.
  expect(shown).toMatch(/^\d{1,3}(,\d{3})+$/);
  expect(parseGroupedNumber(shown)).toBeLessThanOrEqual(50_000);
  return shown;
}

/** A full-page screenshot, from the top of the page. */
const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });

describe("the Builder from the keyboard", () => {
  it("builds a three-level audience with Tab, arrows, typing and shortcuts, with focus always visible", async () => {
    const { context, page, log } = await openPage(browser);
    const keys = page.keyboard;
    const counts: string[] = [];
    try {
      await page.goto(app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      counts.push(await settledCount(page));

      // From the top of the page into the filter, every stop visibly focused.
      const passed = await tabTo(page, "All of these (AND)");
      expect(passed[0]).toBe("Skip to content");
      expect(passed.slice(-3)).toEqual([
        "Keyboard shortcuts",
        "NOT: exclude what the whole filter matches",
        "All of these (AND)",
      ]);
      // Ctrl+Enter adds a condition to the group that has focus; focus moves to its field.
      await keys.press("Control+Enter");
      await expectFocus(page, "Field of condition 1");
      expect(await focusedValue(page)).toBe("Country");
      await shot(page, "keyboard-01-condition-added");

      // Comparison: a native select, changed with the arrow keys.
      await tabTo(page, "Comparison of condition 1");
      for (let i = 0; i < 15 && (await focusedValue(page)) !== "in"; i++) await keys.press("ArrowDown");
      expect(await focusedValue(page)).toBe("in");
      await tabTo(page, "Values of condition 1");
      await keys.type("United States");
      await keys.press("Enter");
      await keys.type("Canada");
      await keys.press("Enter");
      await expectFocus(page, "Values of condition 1");
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "keyboard-02-countries");

      // Ctrl+Shift+Enter adds a group after the condition; focus lands on its handle.
      await keys.press("Control+Shift+Enter");
      await expectFocus(page, "Move group 2");
      // Its AND / OR: one tab stop, the arrow keys choose.
      await tabTo(page, "All of these (AND)");
      await keys.press("ArrowRight");
      await expectFocus(page, "Any of these (OR)");
      expect(
        await page
          .getByRole("radiogroup", { name: "How group 2 combines its items" })
          .getByRole("radio", { checked: true })
          .getAttribute("aria-label"),
      ).toBe("Any of these (OR)");

      // The column combobox: type to filter, Enter to choose.
      await tabTo(page, "Field of condition 2.1");
      await keys.type("job lev");
      expect(await activeOption(page)).toBe("Job level");
      await keys.press("Enter");
      expect(await focusedValue(page)).toBe("Job level");
      await tabTo(page, "Value of condition 2.1");
      await keys.type("Director");
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "keyboard-03-job-level");

      // The node's actions menu from the keyboard: Enter opens it, arrows move, Enter chooses.
      await tabTo(page, "Actions for condition 2.1");
      await keys.press("Enter");
      const menu = page.getByRole("menu");
      await poll(() => menu.count()).toBe(1);
      // The focused menu item's label ("" while focus is not on an item yet).
      const menuItem = () =>
        page.evaluate(() => {
          const focused = document.activeElement;
          return focused?.getAttribute("role") === "menuitem"
            ? (focused.querySelector("span")?.textContent ?? "")
            : "";
        });
      let item = await until(
        () => menuItem(),
        (text) => text !== "",
        { what: "focus on the menu's first item" },
      );
      expect(item).toBe("Add condition");
      for (let i = 0; i < 10 && item !== "Add job title match"; i++) {
        const before = item;
        await keys.press("ArrowDown");
        item = await until(
          () => menuItem(),
          (text) => text !== before,
          { what: "ArrowDown to move in the menu" },
        );
      }
      expect(await menuItem()).toBe("Add job title match");
      await expectFocus(page);
      await shot(page, "keyboard-04-actions-menu");
      await keys.press("Enter");
      await poll(() => menu.count()).toBe(0);
      // Focus follows to the new node's own menu button.
      await until(
        () => focusState(page),
        (f) => f.name === "Actions for job title match 2.2",
        { what: "focus on the new job title match" },
      );
      await expectFocus(page, "Actions for job title match 2.2");

      await tabTo(page, "Job title for job title match 2.2", { back: true });
      await keys.type("VP Marketing");
      counts.push(await nextCount(page, counts.at(-1)!));
      // Its level: a menu button; ArrowDown opens it on the chosen level, Enter picks another.
      await tabTo(page, "Similar");
      await keys.press("ArrowDown");
      await until(
        () => focusState(page),
        (f) => /^Similar[,:]/.test(f.name),
        { what: "focus on Similar" },
      );
      await expectFocus(page);
      await keys.press("ArrowDown");
      await until(
        () => focusState(page),
        (f) => /^Related[,:]/.test(f.name),
        { what: "ArrowDown to Related" },
      );
      await expectFocus(page);
      await keys.press("Enter");
      await until(
        () => focusState(page),
        (f) => f.name === "Related",
        { what: "focus back on the level" },
      );
      await expectFocus(page, "Related");
      counts.push(await nextCount(page, counts.at(-1)!));
      const withRelated = counts.at(-1)!;
      const summaryWithRelated = await summaryOf(page);

      // A burst of typing is one undo step: Ctrl+Z takes back all of " Lead" at once.
      await tabTo(page, "Job title for job title match 2.2", { back: true });
      await keys.press("End");
      await keys.type(" Lead");
      expect(await focusedValue(page)).toBe("VP Marketing Lead");
      await poll(() => summaryOf(page)).toContain('"VP Marketing Lead"');
      await keys.press("Control+z");
      expect(await focusedValue(page)).toBe("VP Marketing");
      expect(await summaryOf(page)).toBe(summaryWithRelated);
      expect(await settledCount(page)).toBe(withRelated);
      // Redo brings it back, undo takes it away again.
      await keys.press("Control+Shift+z");
      expect(await focusedValue(page)).toBe("VP Marketing Lead");
      await keys.press("Control+z");
      expect(await focusedValue(page)).toBe("VP Marketing");
      await expectFocus(page, "Job title for job title match 2.2");
      await shot(page, "keyboard-05-title-match-undo");

      // Level 3: Ctrl+Shift+Enter from the text field adds a group right after the match.
      await keys.press("Control+Shift+Enter");
      await expectFocus(page, "Move group 2.3");
      await tabTo(page, "Field of condition 2.3.1");
      await keys.type("employee ra");
      expect(await activeOption(page)).toBe("Employee range");
      await keys.press("Enter");
      await tabTo(page, "Value of condition 2.3.1");
      // The values come from the server: ArrowDown opens the list, arrows move to 51-200.
      await keys.press("ArrowDown");
      const options = page.getByRole("listbox", { name: "Value of condition 2.3.1" }).getByRole("option");
      await poll(() => options.allTextContents()).toContainEqual(
        expect.stringMatching(/^51-200[\d,]+ people$/),
      );
      for (let i = 0; i < 12 && (await activeOption(page)) !== "51-200"; i++) await keys.press("ArrowDown");
      expect(await activeOption(page)).toBe("51-200");
      await keys.press("Enter");
      expect(await focusedValue(page)).toBe("51-200");
      counts.push(await nextCount(page, counts.at(-1)!));
      await shot(page, "keyboard-06-employee-range");

      // Ctrl+I on the group (from its handle) negates it.
      await tabTo(page, "Move group 2.3", { back: true });
      await keys.press("Control+i");
      await poll(() => page.getByRole("group", { name: /^Group 2\.3:/ }).getAttribute("aria-label")).toMatch(
        /negated \(NOT\)$/,
      );
      await expectFocus(page, "Move group 2.3");
      counts.push(await nextCount(page, counts.at(-1)!));
      expect(await summaryOf(page)).toBe(FINAL_SUMMARY);
      expect(new Set(counts).size).toBe(counts.length);

      // Alt+Up moves the group above the match (focus follows it), Alt+Down puts it back.
      await keys.press("Alt+ArrowUp");
      await until(
        () => focusState(page),
        (f) => f.name === "Move group 2.2",
        {
          what: "focus to follow the moved group",
        },
      );
      await expectFocus(page, "Move group 2.2");
      expect(await summaryOf(page)).toBe(
        'Country is one of "United States" or "Canada" and (Job level is "Director" or not (Employee range is "51-200") or job title is related to "VP Marketing")',
      );
      await shot(page, "keyboard-07-moved-up");
      await keys.press("Alt+ArrowDown");
      await until(
        () => focusState(page),
        (f) => f.name === "Move group 2.3",
        {
          what: "focus to follow the group back",
        },
      );
      await expectFocus(page, "Move group 2.3");
      expect(await summaryOf(page)).toBe(FINAL_SUMMARY);
      expect(await settledCount(page)).toBe(counts.at(-1));
      await shot(page, "keyboard-08-three-levels");

      // Tick two rows of the audience's sample with Space.
      await until(
        () => page.locator(".sample-status").textContent(),
        (status) => /^A random sample of [\d,]+ people, taken at/.test(status ?? ""),
        { timeout: 15_000, what: "the sample of the finished audience" },
      );
      await tabTo(page, /^Select (?!every row)/, { max: 120 });
      await keys.press("Space");
      await tabTo(page, /^Select (?!every row)/);
      await keys.press("Space");
      await poll(() => page.locator(".sample-selection").textContent()).toMatch(
        /^2 contacts selected \(2 in this sample\)\./,
      );
      await expectFocus(page, /^Select /);
      await shot(page, "keyboard-09-selected");

      // Down the sample's rows and back: no checkbox hides under the table's sticky header.
      const rows = await page.getByRole("checkbox", { name: /^Select (?!every row)/ }).count();
      for (let i = 2; i < rows; i++) await tabTo(page, /^Select (?!every row)/, { max: 1 });
      await tabTo(page, "Select every row of this sample", { back: true, max: rows });

      // Back up to the top of the filter: on the way, no stop hides under the sticky count.
      await tabTo(page, "NOT: exclude what the whole filter matches", { back: true, max: 120 });

      // Ctrl+I from the toolbar negates the whole filter; focus lands on the filter, visibly, and
      // Ctrl+I from there takes the NOT back.
      await tabTo(page, "Keyboard shortcuts", { back: true });
      await keys.press("Control+i");
      await poll(() => summaryOf(page)).toBe(`Not (${FINAL_SUMMARY})`);
      await expectFocus(page, "Filter");
      await shot(page, "keyboard-10-whole-filter-negated");
      await keys.press("Control+i");
      await poll(() => summaryOf(page)).toBe(FINAL_SUMMARY);
      await expectFocus(page, "Filter");
      expect(await settledCount(page)).toBe(counts.at(-1));

      await log.settle();
      expect(log.problems()).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
