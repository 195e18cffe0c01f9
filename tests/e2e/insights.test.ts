import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import {
  ARTIFACTS_DIR,
  cspViolations,
  focusState,
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
 * Insights in Chromium: the Builder's panel (summary, a breakdown drawn by recharts, top values),
 * a new breakdown field redraws the chart, a click on a bar (and Enter on a row) adds the value as a
 * rule and the count drops to the bar's number; an OR audience is wrapped, not widened; the
 * /insights page sends a picked value to the Builder. No console error, no CSP violation.
 * Screenshots: test-artifacts/insights/*.png (1280 and 768 px wide).
 */

const SHOTS = "insights";

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp()]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });

function expectClean(log: PageLog) {
  expect(log.problems()).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

const summaryOf = (page: Page) =>
  page.getByRole("region", { name: "In plain English" }).locator("p").textContent();

interface ChartReading {
  field: string;
  rows: { label: string; count: number }[];
  /** Bars recharts drew, with their box. */
  bars: { x: number; y: number; width: number; height: number }[];
  stale: boolean;
}

/** The breakdown as drawn: its rows (HTML buttons) and its bars (SVG). */
function readChart(page: Page): Promise<ChartReading> {
  return page.evaluate(() => {
    const body = document.querySelector(".insights-breakdown-body");
    const select = document.querySelector<HTMLSelectElement>(".insights-select");
    const rows = [...document.querySelectorAll<HTMLButtonElement>(".insights-row")].map((button) => ({
      label: button.dataset.value ?? "",
      count: Number(button.dataset.count),
    }));
    const bars = [...document.querySelectorAll(".insights-chart svg .recharts-bar-rectangle path")].map(
      (path) => {
        const box = path.getBoundingClientRect();
        return { x: box.x, y: box.y, width: box.width, height: box.height };
      },
    );
    return {
      field: select?.selectedOptions[0]?.textContent ?? "",
      rows,
      bars,
      stale: body?.hasAttribute("data-stale") ?? true,
    };
  });
}

/** The chart once drawn and settled for `field`: one bar per row, every bar with a width. */
function drawnChart(page: Page, field: string, accept: (reading: ChartReading) => boolean = () => true) {
  return until(
    () => readChart(page),
    (r) =>
      r.field === field &&
      !r.stale &&
      r.rows.length > 0 &&
      r.bars.length === r.rows.length &&
      r.bars.every((b) => b.width > 0 && b.height > 0) &&
      accept(r),
    { timeout: 15_000, what: `a drawn ${field} breakdown` },
  );
}

/** Waits for the bars' entry animation to end (their boxes stop changing). */
async function stillChart(page: Page, field: string): Promise<ChartReading> {
  let previous = "";
  return until(
    async () => {
      const reading = await drawnChart(page, field);
      const now = JSON.stringify(reading.bars);
      const same = now === previous;
      previous = now;
      return { reading, same };
    },
    (r) => r.same,
    { interval: 150, timeout: 15_000, what: "the bars to stop moving" },
  ).then((r) => r.reading);
}

/**
 * Clicks the middle of the bar drawn for row `index` (scrolled into view first): a click on the
 * chart itself, as a person aims it, not on a row found by its name.
 */
async function clickBar(page: Page, index: number): Promise<void> {
  await page.locator(".insights-row").nth(index).scrollIntoViewIfNeeded();
  const box = await page
    .locator(".insights-chart svg .recharts-bar-rectangle path")
    .nth(index)
    .evaluate((path) => {
      const r = path.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    });
  await page.mouse.click(box.x, box.y);
}

describe("Insights beside the Builder", () => {
  it("draws the breakdown, redraws it for another field, and a click on a bar adds that value", async () => {
    const { context, page, log } = await openPage(browser, { width: 1280, height: 900 });
    try {
      // The panel's code arrives after the count has settled, as on a busy machine: the panel is
      // then mounted once, not again at the first edit (which lost what it had said of the add).
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(/\/insights-panel-[^/]*\.js$/, async (route) => {
        await released;
        await route.continue();
      });
      await page.goto(app.url);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(await settledCount(page)).toBe("50,000");
      release();
      const panel = page.getByRole("region", { name: "Insights" });
      await poll(() => panel.getByRole("list", { name: "Summary" }).textContent()).toContain("50,000 people");
      expect(await panel.getByRole("list", { name: "Summary" }).textContent()).toMatch(
        /companies.*% have an email address \([\d,]+\).*% have a mobile number/,
      );

      // The default breakdown: job level, largest first, one bar per row.
      const levels = await stillChart(page, "Job level");
      expect(levels.rows.length).toBeGreaterThan(2);
      expect(levels.rows.map((r) => r.count)).toEqual(
        [...levels.rows.map((r) => r.count)].sort((a, b) => b - a),
      );
      // The longest bar belongs to the largest row; bars and rows line up.
      expect(levels.bars[0]!.width).toBe(Math.max(...levels.bars.map((b) => b.width)));
      const rowBoxes = await page.locator(".insights-row").evaluateAll((buttons) =>
        buttons.map((b) => {
          const box = b.getBoundingClientRect();
          return { top: box.top, bottom: box.bottom };
        }),
      );
      levels.bars.forEach((bar, i) => {
        const middle = bar.y + bar.height / 2;
        expect(middle).toBeGreaterThan(rowBoxes[i]!.top);
        expect(middle).toBeLessThan(rowBoxes[i]!.bottom);
      });
      // Top values of the default fields.
      for (const name of ["Job function", "Industry", "Employee range", "Country"])
        await poll(() => panel.getByRole("region", { name }).getByRole("listitem").count()).toBeGreaterThan(
          0,
        );
      await shot(page, "builder-1280");
      await panel.screenshot({
        path: path.join(ARTIFACTS_DIR, SHOTS, "panel-1280.png"),
        animations: "disabled",
      });

      // Which fields are listed: a menu of checkboxes (kept open while ticking), Escape closes it.
      await panel.getByRole("button", { name: "Fields (4)" }).click();
      const menu = page.getByRole("menu");
      await menu.getByRole("menuitemcheckbox", { name: "Country", exact: true }).click();
      await menu.getByRole("menuitemcheckbox", { name: "Revenue range" }).click();
      await page.keyboard.press("Escape");
      await poll(() =>
        panel.getByRole("region", { name: "Revenue range" }).getByRole("listitem").count(),
      ).toBeGreaterThan(0);
      expect(await panel.getByRole("region", { name: "Country", exact: true }).count()).toBe(0);
      // Bands in their order there too.
      const revenue = await panel
        .getByRole("region", { name: "Revenue range" })
        .getByRole("button")
        .evaluateAll((buttons) =>
          buttons.map((b) => b.querySelector(".insights-top-label")?.textContent ?? ""),
        );
      const revenueOrder = [
        "<$1M",
        "$1M-$10M",
        "$10M-$50M",
        "$50M-$100M",
        "$100M-$500M",
        "$500M-$1B",
        "$1B+",
      ];
      expect(revenue.filter((v) => v !== "Not given")).toEqual(
        revenueOrder.filter((band) => revenue.includes(band)),
      );
      if (revenue.includes("Not given")) expect(revenue.at(-1)).toBe("Not given");

      // Another field: the chart is drawn again, bands in their order.
      await panel.getByRole("combobox", { name: "Break down by" }).selectOption({ label: "Employee range" });
      const bands = await stillChart(page, "Employee range");
      const order = ["1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"];
      const known = bands.rows.map((r) => r.label).filter((l) => order.includes(l));
      expect(known).toEqual(order.filter((l) => known.includes(l)));
      expect(known.length).toBeGreaterThan(3);
      await shot(page, "builder-1280-employee-range");

      // A click on a bar (in the middle of the drawn rectangle) adds "Employee range is <band>".
      const index = bands.rows.findIndex((r) => r.label === "51-200");
      expect(index).toBeGreaterThanOrEqual(0);
      const target = bands.rows[index]!;
      await clickBar(page, index);
      await poll(() => summaryOf(page)).toBe('Employee range is "51-200"');
      await poll(() => panel.getByRole("status").textContent()).toBe(
        "Added “Employee range is 51-200” to the audience.",
      );
      const count = await settledCount(page, "50,000", 15_000);
      expect(parseGroupedNumber(count)).toBe(target.count);
      // The editor shows the rule.
      const rule = page.getByRole("group", { name: /^Condition 1:/ });
      expect(await rule.getByRole("combobox", { name: "Field of condition 1" }).inputValue()).toBe(
        "Employee range",
      );
      // The insights follow: everyone left is in that band.
      await drawnChart(page, "Employee range", (r) => r.rows.length === 1 && r.rows[0]!.label === "51-200");
      await poll(() => panel.getByRole("list", { name: "Summary" }).textContent()).toContain(
        `${count} ${target.count === 1 ? "person" : "people"}`,
      );
      // The same value again adds nothing.
      await panel
        .getByRole("list", { name: "People by Employee range" })
        .getByRole("button", { name: /^51-200\s*:/ })
        .click();
      await poll(() => panel.getByRole("status").textContent()).toBe(
        "“Employee range is 51-200” is already part of the audience.",
      );
      expect(await summaryOf(page)).toBe('Employee range is "51-200"');
      await stillChart(page, "Employee range");
      await shot(page, "builder-1280-after-click");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("from the keyboard at 768 px: Enter on a row narrows an OR audience by wrapping it", async () => {
    const { context, page, log } = await openPage(browser, { width: 768, height: 1000 });
    try {
      // An OR audience: Job level is Director or Job level is VP.
      const tree: GroupNode = {
        type: "group",
        op: "OR",
        negate: false,
        children: [
          { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "Director" },
          { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP" },
        ],
      };
      // A fresh context: the breakdown starts on its default field.
      await page.goto(`${app.url}/?a=${encodeTreeForUrl(tree)}`);
      await poll(() => summaryOf(page)).toBe('Job level is "Director" or Job level is "VP"');
      const before = await settledCount(page);
      const panel = page.getByRole("region", { name: "Insights" });
      await panel.getByRole("combobox", { name: "Break down by" }).selectOption({ label: "Country" });
      const countries = await stillChart(page, "Country");
      await shot(page, "builder-768");
      await panel.screenshot({
        path: path.join(ARTIFACTS_DIR, SHOTS, "panel-768.png"),
        animations: "disabled",
      });

      // Keyboard only from the field chooser: Tab reaches the first row; Enter adds it.
      await panel.getByRole("combobox", { name: "Break down by" }).focus();
      await page.keyboard.press("Tab");
      const focus = await focusState(page);
      expect(focus.element).toMatch(/^button /);
      expect(focus.name).toBe(
        ((await page.locator(".insights-row").first().textContent()) ?? "").replace(/\s+/g, " ").trim(),
      );
      expect(focus.visible).toBe(true);
      expect(focus.coveredBy).toBe("");
      await page.keyboard.press("ArrowDown"); // nothing: rows are plain buttons in the Tab order
      await page.keyboard.press("Tab");
      const second = countries.rows[1]!;
      expect((await focusState(page)).name).toMatch(new RegExp(`^${second.label}:`));
      await page.keyboard.press("Enter");
      // The OR root is wrapped: (Director or VP) and Country is <second>.
      await poll(() => summaryOf(page)).toBe(
        `(Job level is "Director" or Job level is "VP") and Country is "${second.label}"`,
      );
      const after = await settledCount(page, before, 15_000);
      expect(parseGroupedNumber(after)).toBe(second.count);
      expect(parseGroupedNumber(after)).toBeLessThan(parseGroupedNumber(before));
      // Focus stays on the row (still there: its value is what is left).
      await poll(async () => (await focusState(page)).name).toMatch(new RegExp(`^${second.label}:`));
      await drawnChart(page, "Country", (r) => r.rows.length === 1);
      // Every section answered (an edit while one loads would abort it, as it should).
      await poll(() => panel.getAttribute("data-state")).toBe("ready");
      // One undoable step.
      await page.getByRole("button", { name: "Undo" }).click();
      await poll(() => summaryOf(page)).toBe('Job level is "Director" or Job level is "VP"');
      // The notice was about the add: gone with the undo.
      await poll(() => panel.getByRole("status").textContent()).toBe("");
      await stillChart(page, "Country");
      await shot(page, "builder-768-after-enter");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 90_000);
});

describe("the Insights page", () => {
  for (const width of [1280, 768])
    it(`shows the working audience's insights at ${width} px; a bar sends its value to the Builder`, async () => {
      const { context, page, log } = await openPage(browser, { width, height: 900 });
      try {
        await page.goto(app.url);
        await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
        // A working audience: Continent is Europe (typed in the Builder, kept on this device).
        await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
        const field = page.getByRole("combobox", { name: "Field of condition 1" });
        await field.click();
        await page
          .getByRole("listbox", { name: "Field of condition 1" })
          .getByRole("option", { name: "Continent" })
          .click();
        await page.getByRole("combobox", { name: "Value of condition 1" }).fill("Europe");
        await poll(() => summaryOf(page)).toBe('Continent is "Europe"');
        const europe = await settledCount(page, "50,000", 15_000);

        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Insights" }).click();
        await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Insights");
        await poll(() =>
          page.getByRole("region", { name: "Your working audience" }).locator("p").first().textContent(),
        ).toBe('Continent is "Europe"');
        await poll(() => page.getByRole("list", { name: "Summary" }).textContent()).toContain(
          `${europe} people`,
        );
        const levels = await stillChart(page, "Job level");
        // The page shows every row (no "Show all").
        expect(await page.getByRole("button", { name: /^Show all/ }).count()).toBe(0);
        await shot(page, `page-${width}`);

        const top = levels.rows[0]!;
        await clickBar(page, 0);
        await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
        await poll(() => summaryOf(page)).toBe(`Continent is "Europe" and Job level is "${top.label}"`);
        expect(parseGroupedNumber(await settledCount(page, undefined, 15_000))).toBe(top.count);
        await log.settle();
        expectClean(log);
      } finally {
        await context.close();
      }
    }, 90_000);
});
