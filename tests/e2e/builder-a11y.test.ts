import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import {
  cspViolations,
  launchBrowser,
  type OpenedPage,
  openPage,
  type PageLog,
  poll,
  type RunningApp,
  screenshot,
  settledCount,
  startApp,
  until,
} from "../support/browser";

/**
 * axe-core on the Builder with a three-level audience: as it stands, with a node's actions menu
 * open, with a column list open, and at 768 px (where nothing may overflow sideways either). The
 * page keeps its Content-Security-Policy: axe is served same-origin through the test's own route
 * (`/__axe.js`), which `script-src 'self'` allows. Screenshots: test-artifacts/builder/a11y-*.png.
 */

const SHOTS = "builder";
const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** The audience the mouse and keyboard tests build, as a shared link carries it. */
const AUDIENCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [
    { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["United States", "Canada"] },
    {
      type: "group",
      op: "OR",
      negate: false,
      children: [
        { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "Director" },
        { type: "semantic", on: "title", text: "VP Marketing", match: "related", negate: false },
        {
          type: "group",
          op: "AND",
          negate: true,
          children: [
            { type: "condition", column: "EMPLOYEE_COUNT_RANGE_ORG", operator: "eq", value: "51-200" },
          ],
        },
      ],
    },
  ],
};

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string; html: string }[];
}

/** `expect.poll` with room for a loaded machine (its default gives up after one second). */

let browser: Browser;
let app: RunningApp;
let axeSource: string;

beforeAll(async () => {
  [browser, app, axeSource] = await Promise.all([launchBrowser(), startApp(), readFile(AXE_PATH, "utf8")]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** The Builder at `width` with the audience open from its link, counted and sampled; axe routed. */
async function openBuilt(width: number): Promise<OpenedPage> {
  const opened = await openPage(browser, { width });
  const { page } = opened;
  await page.route("**/__axe.js", (route) =>
    route.fulfill({ status: 200, contentType: "application/javascript; charset=utf-8", body: axeSource }),
  );
  await page.goto(`${app.url}/?a=${encodeTreeForUrl(AUDIENCE)}`);
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
  expect(await settledCount(page)).toMatch(/^\d{1,3}(,\d{3})+$/);
  await until(
    () => page.locator(".sample-status").textContent(),
    (status) => /^A random sample of [\d,]+ people, taken at/.test(status ?? ""),
    { timeout: 15_000, what: "the sample" },
  );
  await page.addScriptTag({ url: "/__axe.js" });
  return opened;
}

/** Every violation axe finds, and the serious or critical ones spelled out for the failure message. */
async function runAxe(page: Page): Promise<{ all: AxeViolation[]; blocking: string[] }> {
  const all = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } })
      .axe;
    const results = (await axe.run(document, { resultTypes: ["violations"] })) as { violations: unknown[] };
    return results.violations;
  })) as AxeViolation[];
  const blocking = all
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n${v.nodes
          .map((n) => `  ${JSON.stringify(n.target)} ${n.html.slice(0, 160)}\n    ${n.failureSummary ?? ""}`)
          .join("\n")}`,
    );
  return { all, blocking };
}

/** Fails with every violation listed (minor and moderate too, for the record) when one is serious or critical. */
async function expectNoSeriousViolation(page: Page, where: string) {
  const { all, blocking } = await runAxe(page);
  const listing = all.map((v) => `${v.impact} ${v.id} (${v.nodes.length}): ${v.help}`).join("\n");
  expect(
    blocking,
    `axe on ${where}; all violations:\n${listing}\n\nserious or critical:\n${blocking.join("\n")}`,
  ).toEqual([]);
  return all;
}

/** Elements that stick out of the viewport sideways (those inside a sideways-scrolling box aside). */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrollsSideways = (element: Element) =>
      ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(element).overflowX);
    const out: string[] = [];
    for (const element of document.querySelectorAll("body *")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || (box.right <= width + 1 && box.left >= -1)) continue;
      let parent = element.parentElement;
      let clipped = false;
      while (parent && parent !== document.body) {
        if (scrollsSideways(parent)) {
          clipped = true;
          break;
        }
        parent = parent.parentElement;
      }
      if (clipped || element.closest(".visually-hidden")) continue;
      out.push(
        `${element.tagName.toLowerCase()}.${[...element.classList].join(".")} [${Math.round(box.left)}, ${Math.round(box.right)}]`,
      );
    }
    return out;
  });
}

function expectClean(log: PageLog) {
  expect(log.problems()).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

describe("accessibility of the Builder (axe-core)", () => {
  it("has no serious or critical violation with an audience built, a menu open, a list open", async () => {
    const { context, page, log } = await openBuilt(1280);
    try {
      expect(
        await page.getByRole("region", { name: "In plain English" }).locator("p").textContent(),
      ).toContain('not (Employee range is "51-200")');
      // Something in the list of saved audiences and a selection, so that they are checked too.
      const saved = page.getByRole("complementary", { name: "Saved audiences" });
      await saved.getByRole("button", { name: "Save as new…" }).click();
      await saved.getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => saved.locator(".saved-item").count()).toBe(1);
      await page
        .getByRole("checkbox", { name: /^Select (?!every row)/ })
        .first()
        .click();
      await poll(() => page.locator(".sample-selection").textContent()).toMatch(/^1 contact selected/);
      await screenshot(page, SHOTS, "a11y-01-built-1280", { fromTop: true });
      await expectNoSeriousViolation(page, "the built audience at 1280 px");
      expect(await overflowing(page)).toEqual([]);

      await page.getByRole("button", { name: "Actions for group 2.3" }).click();
      await poll(() => page.getByRole("menu").count()).toBe(1);
      await screenshot(page, SHOTS, "a11y-02-menu-open-1280", { fromTop: true });
      await expectNoSeriousViolation(page, "the node actions menu open");
      await page.keyboard.press("Escape");
      await poll(() => page.getByRole("menu").count()).toBe(0);

      await page.getByRole("combobox", { name: "Field of condition 2.1" }).click();
      await poll(() => page.getByRole("listbox", { name: "Field of condition 2.1" }).isVisible()).toBe(true);
      await screenshot(page, SHOTS, "a11y-03-column-list-open-1280", { fromTop: true });
      await expectNoSeriousViolation(page, "the column list open");
      await page.keyboard.press("Escape");

      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 60_000);

  it("is usable at 768 px: nothing overflows sideways, the menu fits, no serious or critical violation", async () => {
    const { context, page, log } = await openBuilt(768);
    try {
      await screenshot(page, SHOTS, "a11y-04-built-768", { fromTop: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        await page.evaluate(() => window.innerWidth),
      );
      expect(await overflowing(page)).toEqual([]);
      await expectNoSeriousViolation(page, "the built audience at 768 px");

      // The deepest node's menu opens inside the viewport, and its commands work from there.
      await page.getByRole("button", { name: "Actions for condition 2.3.1" }).click();
      const menu = page.getByRole("menu");
      await poll(() => menu.count()).toBe(1);
      const box = await menu.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(768);
      await screenshot(page, SHOTS, "a11y-05-menu-open-768", { fromTop: true });
      await expectNoSeriousViolation(page, "the node actions menu open at 768 px");
      await menu.getByRole("menuitem", { name: /^Duplicate/ }).click();
      await poll(() => page.getByRole("group", { name: /^Condition 2\.3\.2:/ }).count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      expect(await overflowing(page)).toEqual([]);

      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 60_000);

  for (const width of [1440, 768])
    it(`has no serious or critical violation with the builder's notes open (${width} px)`, async () => {
      const { context, page, log } = await openBuilt(width);
      try {
        // A value that matches no one, explained under its field.
        const countries = page.getByRole("combobox", { name: "Values of condition 1" });
        await countries.fill("UK");
        await countries.press("Enter");
        await poll(() => page.locator(".fe-absent").textContent()).toBe("UK: no one.United Kingdom?");
        // A title match's level menu, with the people each level keeps, then the titles it takes in.
        const match = page.getByRole("group", { name: /^Job title match 2\.2:/ });
        await match.getByRole("button", { name: /^Match level of job title match 2\.2/ }).click();
        const levels = page.getByRole("menu").getByRole("menuitemradio");
        await poll(() => levels.locator(".fe-level-count:not(:empty)").count()).toBe(5);
        await screenshot(page, SHOTS, `a11y-07-level-menu-${width}`, { fromTop: true });
        await expectNoSeriousViolation(page, `a match's level menu open at ${width} px`);
        if (width === 768) expect(await overflowing(page)).toEqual([]);
        await page.keyboard.press("Escape");
        await match.getByRole("button", { name: "See the titles it takes in" }).click();
        await poll(() => match.getByRole("button", { name: /^Leave out / }).count()).toBeGreaterThan(0);
        // A founded range with its ends swapped, refused in place.
        const range = page.getByRole("combobox", { name: "Field of condition 2.1" });
        await range.click();
        await range.fill("Founded");
        await page
          .getByRole("listbox", { name: "Field of condition 2.1" })
          .getByRole("option", { name: /^Founded/ })
          .click();
        await page.getByLabel("Comparison of condition 2.1").selectOption("between");
        await page.getByLabel("Lowest value of condition 2.1").fill("2020");
        await page.getByLabel("Highest value of condition 2.1").fill("1990");
        await page.getByLabel("Lowest value of condition 2.1").focus();
        await poll(() => page.getByText(/swap them, or nobody matches/).count()).toBeGreaterThan(0);
        await screenshot(page, SHOTS, `a11y-06-notes-open-${width}`, { fromTop: true });
        await expectNoSeriousViolation(page, `the builder's notes open at ${width} px`);
        if (width === 768) expect(await overflowing(page)).toEqual([]);
        await log.settle();
        expect(cspViolations(log)).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
});
