import type { Page } from "playwright-core";
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
import { browser as proxyClient } from "../support/proxy-server";

/**
 * The marketer's audience of issue 19, "marketing leaders at software companies of 200 to 1,000
 * people in Germany, France or the UK, with an email", built as a newcomer would: with the mouse at
 * 1440 x 900 and with the keyboard alone at 768 x 1024, typing "UK" as people do and taking the
 * "United Kingdom?" the rule offers. Both give the same audience and the same count. Then twenty
 * one-line rules of every kind (conditions, title and company matches, lookalikes with their company
 * found) fit on one 900 px screen beside the count. Screenshots: test-artifacts/builder/marketer-*.png.
 */

const env = browserAndAppForFile();

/** Two company domains of the sandbox's contact data, read through the proxy (free). */
async function someDomains(url: string): Promise<[string, string]> {
  const answer = await proxyClient(url).post<{ buckets: { value: string }[] }>("/api/v2/contact/insights", {
    section: "breakdown",
    groupField: "DOMAIN_ORG",
    filter: { type: "group", op: "AND", children: [] },
  });
  expect(answer.status).toBe(200);
  const [a, b] = answer.body.buckets.map((bucket) => bucket.value).filter((v) => typeof v === "string");
  if (!a || !b) throw new Error("no company domains in the sandbox");
  return [a, b];
}
const shot = (page: Page, name: string) => screenshot(page, "builder", name, { fromTop: true });

const SUMMARY =
  'Job function is "Marketing" and Job level is one of "Director", "VP" or "C-Level" and Industry is "Software Development" and Employees (min) is at least 200 and Employees (max) is at most 1000 and Country is one of "Germany", "France" or "United Kingdom" and has an email';

const summary = (page: Page) =>
  page.getByRole("region", { name: "In plain English" }).locator("p").textContent();

type Rule = { field: string; operator: string; values: string[]; list?: boolean };
const RULES: Rule[] = [
  { field: "Job function", operator: "eq", values: ["Marketing"] },
  { field: "Job level", operator: "in", values: ["Director", "VP", "C-Level"], list: true },
  { field: "Industry", operator: "eq", values: ["Software Development"] },
  { field: "Employees (min)", operator: "gte", values: ["200"] },
  { field: "Employees (max)", operator: "lte", values: ["1000"] },
  { field: "Country", operator: "in", values: ["Germany", "France", "UK"], list: true },
  { field: "Email", operator: "isNotNull", values: [] },
];

async function focusedLabel(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return element?.getAttribute("aria-label") ?? element?.textContent?.trim() ?? "";
  });
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const focusedValue = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.value ?? "");

async function tabTo(page: Page, label: string | RegExp, max = 30, back = false) {
  for (let i = 0; i < max; i++) {
    const now = await focusedLabel(page);
    if (typeof label === "string" ? now === label : label.test(now)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${label} (at ${await focusedLabel(page)})`);
}

async function fixUk(page: Page, rule: ReturnType<Page["getByRole"]>, useKeyboard: boolean) {
  const note = rule.locator(".fe-absent");
  await poll(() => note.textContent()).toBe("UK: no one.United Kingdom?");
  if (useKeyboard) {
    await tabTo(page, "United Kingdom?");
    await page.keyboard.press("Enter");
  } else await note.getByRole("button", { name: "United Kingdom?" }).click();
  await poll(() => note.count()).toBe(0);
}

describe("the marketer's audience", () => {
  let mouseCount = "";
  it("with the mouse at 1440 px", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 1440, height: 900 });
    try {
      await page.goto(env.app.url);
      const counts = [await settledCount(page)];
      for (const [i, { field, operator, values, list }] of RULES.entries()) {
        const n = i + 1;
        await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
        const rule = page.getByRole("group", { name: new RegExp(`^Condition ${n}:`) });
        await rule.getByRole("combobox", { name: `Field of condition ${n}` }).click();
        await page
          .getByRole("listbox", { name: `Field of condition ${n}` })
          .getByRole("option", { name: new RegExp(`^${escaped(field)}`) })
          .first()
          .click();
        await rule.getByLabel(`Comparison of condition ${n}`).selectOption(operator);
        if (list) {
          const entry = rule.getByRole("combobox", { name: `Values of condition ${n}` });
          for (const value of values) {
            await entry.click();
            const option = page
              .getByRole("listbox", { name: `Values of condition ${n}` })
              .getByRole("option", { name: new RegExp(`^${value}\\s*[\\d,]+ (people|person)$`) });
            if (value === "UK") {
              await entry.fill("UK");
              await entry.press("Enter");
            } else await option.click();
          }
          if (values.includes("UK")) await fixUk(page, rule, false);
        } else if (values[0]) {
          const picker = rule.getByRole("combobox", { name: `Value of condition ${n}` });
          if ((await picker.count()) > 0) {
            await picker.click();
            await page
              .getByRole("listbox", { name: `Value of condition ${n}` })
              .getByRole("option", { name: new RegExp(`^${values[0]}\\s*[\\d,]+ (people|person)$`) })
              .click();
          } else await rule.getByRole("textbox", { name: `Value of condition ${n}` }).fill(values[0]);
        }
        counts.push(await settledCount(page));
      }
      await poll(() => summary(page)).toBe(SUMMARY);
      // Each rule narrows the audience, or keeps it: never widens it.
      const people = counts.map((c) => Number(c.replaceAll(",", "")));
      for (let i = 1; i < people.length; i++) expect(people[i]).toBeLessThanOrEqual(people[i - 1]!);
      mouseCount = counts.at(-1)!;
      await shot(page, "marketer-01-mouse-1440");
      expect(log.pageErrors).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("with the keyboard alone at 768 px, and the same count", async () => {
    const { page, log, context } = await openPage(env.browser, { width: 768, height: 1024 });
    const keys = page.keyboard;
    try {
      await page.goto(env.app.url);
      await settledCount(page);
      await tabTo(page, "All of these (AND)", 80);
      for (const [i, { field, operator, values, list }] of RULES.entries()) {
        const n = i + 1;
        // Ctrl+Enter adds a condition after the one with focus; focus goes to the same control of
        // the new one (its field, or its value when a value had focus).
        await keys.press("Control+Enter");
        await poll(() => focusedLabel(page)).toMatch(new RegExp(` of condition ${n}$`));
        await tabTo(page, `Field of condition ${n}`, 5, true);
        await keys.type(field);
        await keys.press("Enter");
        await tabTo(page, `Comparison of condition ${n}`);
        // A native select, changed with the arrow keys.
        for (let k = 0; k < 12 && (await focusedValue(page)) !== operator; k++) await keys.press("ArrowDown");
        for (let k = 0; k < 12 && (await focusedValue(page)) !== operator; k++) await keys.press("ArrowUp");
        expect(await focusedValue(page)).toBe(operator);
        const rule = page.getByRole("group", { name: new RegExp(`^Condition ${n}:`) });
        if (values.length > 0) {
          await tabTo(page, list ? `Values of condition ${n}` : `Value of condition ${n}`);
          for (const value of values) {
            await keys.type(value);
            await keys.press(list ? "Enter" : "Escape");
          }
          if (values.includes("UK")) await fixUk(page, rule, true);
        }
      }
      await poll(() => summary(page)).toBe(SUMMARY);
      expect(await settledCount(page)).toBe(mouseCount);
      await shot(page, "marketer-02-keyboard-768");

      expect(log.pageErrors).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 768, height: 1024 },
  ])
    it(`shows twenty one-line rules on one screen with the count in view (${viewport.width} wide)`, async () => {
      const columns: [string, string, string | number][] = [
        ["JOB_FUNCTION_PER", "eq", "Marketing"],
        ["EMPLOYEE_COUNT_MIN", "gte", 200],
        ["EMPLOYEE_COUNT_MAX", "lte", 1000],
        ["INDUSTRY_LINKEDIN_ORG", "eq", "Software Development"],
        ["CITY_PER", "ne", "Paris"],
      ];
      const [domainA, domainB] = await someDomains(env.app.url);
      // Every kind of rule: conditions, title and company matches (their level and "Titles" in the
      // line), lookalikes by domain (the company found, named in the line) and by ID.
      const others: FilterNode[] = [
        { type: "semantic", id: "t1", on: "title", text: "VP Marketing", match: "similar", negate: false },
        { type: "semantic", id: "t2", on: "title", text: "Head of Growth", match: "related", negate: false },
        { type: "semantic", id: "c1", on: "company", text: "cloud accounting software", negate: false },
        { type: "lookalike", id: "l1", domain: domainA, rbidOrg: "", match: "similar", negate: false },
        { type: "lookalike", id: "l2", domain: domainB, rbidOrg: "", negate: false },
      ];
      const children: FilterNode[] = Array.from({ length: 15 }, (_, i) => {
        const [column, operator, value] = columns[i % columns.length]!;
        return { type: "condition", id: `r${i}`, column, operator: operator as "eq", value };
      });
      // Lists of values too: the chips that fit, on the line.
      children[0] = {
        type: "condition",
        id: "list1",
        column: "JOB_LEVEL_PER",
        operator: "in",
        valueList: ["Director", "VP", "C-Level", "Manager"],
      };
      children[5] = {
        type: "condition",
        id: "list2",
        column: "COUNTRY_NAME_PER",
        operator: "in",
        valueList: ["Germany", "France", "United Kingdom"],
      };
      children.splice(2, 0, ...others.slice(0, 3));
      children.splice(10, 0, ...others.slice(3));
      // One OR group holding them all: the count stays above zero, so every rule is counted.
      const tree: GroupNode = { type: "group", op: "OR", negate: false, id: "root", children };
      const { page, log, context } = await openPage(env.browser, viewport);
      try {
        await page.goto(`${env.app.url}/?a=${encodeTreeForUrl(tree)}`);
        await settledCount(page);
        const rules = page.getByRole("group", {
          name: /^(Condition|Job title match|Company match|Lookalike) \d+:/,
        });
        await poll(() => rules.count()).toBe(20);
        // The lookalikes' companies found and named in their line; every match counted.
        await poll(() => page.locator('.fe-lookup[data-state="found"]').count()).toBe(2);
        await poll(() => page.locator('.node-count[data-state="ready"]').count()).toBeGreaterThanOrEqual(5);
        await rules.first().evaluate((element) => element.scrollIntoView({ block: "start" }));
        const boxes = await rules.evaluateAll((elements) =>
          elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect),
        );
        const badge = await page
          .locator(".count-badge")
          .evaluate((e) => e.getBoundingClientRect().toJSON() as DOMRect);
        const inView = (box: DOMRect) => box.top >= 0 && box.bottom <= viewport.height;
        await page.screenshot({
          path: `test-artifacts/builder/marketer-03-twenty-rules-${viewport.width}.png`,
        });
        // Every rule is one line (about 38 px), all twenty and the count on screen at once.
        for (const text of await page.locator('.fe-lookup[data-state="found"]').allTextContents())
          expect(text).toMatch(/^Like: \S/);
        expect(Math.max(...boxes.map((b) => b.height))).toBeLessThanOrEqual(42);
        expect(boxes.filter(inView)).toHaveLength(20);
        expect(inView(badge)).toBe(true);
        // A list opens while it is being edited (every value, "Clear all"), and folds back after.
        const list = page.getByRole("group", { name: /^Condition 1:/ });
        await list.getByRole("button", { name: "Remove Director" }).focus();
        await poll(() => list.evaluate((e) => e.getBoundingClientRect().height)).toBeGreaterThan(42);
        expect(await list.getByRole("button", { name: "Clear all" }).isVisible()).toBe(true);
        await page.keyboard.press("Escape");
        await page.getByRole("button", { name: "Add condition to the whole filter" }).focus();
        await poll(() => list.evaluate((e) => e.getBoundingClientRect().height)).toBeLessThanOrEqual(42);
        expect(log.pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    });
});
