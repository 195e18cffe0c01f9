import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatNumber } from "../../src/app/lib/format";
import type { GroupNode, LookalikeNode } from "../../src/contract/filter";
import {
  cspViolations,
  launchBrowser,
  openPage,
  type PageLog,
  type RunningApp,
  screenshot,
  settledCount,
  startApp,
} from "../support/browser";
import { browser as apiClient } from "../support/proxy-server";

/**
 * The Companies screen in Chromium: the company count of the working audience, lookalikes of a
 * domain from the data (a table), one of them used as a lookalike rule (the Builder opens with it
 * and counts it), lookalikes by company id with all columns, the column values browser, an
 * unfinished audience, and the layout at 768 px. Screenshots: test-artifacts/companies/*.png.
 */

const SHOTS = "companies";
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [
    { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany", id: "germany" },
  ],
};

let browser: Browser;
let app: RunningApp;
let api: ReturnType<typeof apiClient>;
/** A company of the data: the employer of a German contact, from a View row. */
let seed: { domain: string; rbidOrg: string; name: string };

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp()]);
  api = apiClient(app.url);
  const view = await api.post<{ rows: Record<string, string>[] }>("/api/v2/contact/view", {
    filter: GERMANY,
    limit: 1,
    columns: ["RBID_ORG", "DOMAIN_ORG", "COMPANY_NAME_ORG"],
  });
  expect(view.status, view.text).toBe(200);
  const row = view.body.rows[0]!;
  seed = { domain: row.DOMAIN_ORG!, rbidOrg: row.RBID_ORG!, name: row.COMPANY_NAME_ORG! };
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** No console error or warning, page error, failed request or CSP violation; `expected` lines aside. */
function expectClean(log: PageLog, expected?: RegExp) {
  expect(log.problems().filter((line) => !expected?.test(line))).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

/** Chromium logs every 4xx answer: the search for an unknown company is meant to get one. */
const UNKNOWN_COMPANY_422 =
  /^console\.error: Failed to load resource: the server responded with a status of 422 .*\/api\/v2\/contact\/company\/lookalike\)$/;

const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });

/** Opens /companies with `tree` as the working audience stored on this device (as the Builder keeps it). */
async function openWithAudience(page: Page, tree: GroupNode) {
  // Storage is written on a page of the same origin that is not the app, so no load is cut short.
  await page.goto(`${app.url}/healthz`);
  await page.evaluate(
    (record) => window.localStorage.setItem("ab.workingTree.v1", record),
    JSON.stringify({ version: 1, tree, urlParam: null, savedAt: new Date().toISOString() }),
  );
  await page.goto(`${app.url}/companies`);
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Companies");
}

async function countOf(path: string, filter: GroupNode): Promise<number> {
  const answer = await api.post<{ count: number }>(path, { filter });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.count;
}

/** The texts of one column of the lookalike table, by its column name (the cells' `data-column`). */
function columnTexts(page: Page, column: string): Promise<string[]> {
  return page.locator(`.lookalike-table tbody td[data-column="${column}"]`).allTextContents();
}

/** The page is no wider than the window (nothing sticks out sideways). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe("the Companies screen", () => {
  it("counts the audience's companies, finds lookalikes of a domain, and turns one into a rule", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openWithAudience(page, GERMANY);
      const companies = await countOf("/api/v2/contact/company/count", GERMANY);
      const people = await countOf("/api/v2/contact/count", GERMANY);
      const card = page.getByRole("region", { name: "Companies in your audience" });
      await poll(() => card.locator("[data-state]").getAttribute("data-state")).toBe("ready");
      await poll(() => card.locator(".companies-count-line").textContent()).toBe(
        `${formatNumber(companies)} companies employ the ${formatNumber(people)} people of this audience.`,
      );
      expect(await card.textContent()).toContain('Audience: Country is "Germany"');

      // Lookalikes of a domain from the data: the source card and a table of 10, nearest first.
      const finder = page.getByRole("region", { name: "Find lookalike companies" });
      await finder.getByRole("textbox", { name: "Website domain" }).fill(`https://www.${seed.domain}/about`);
      await finder.getByRole("spinbutton", { name: "How many" }).fill("10");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      const source = finder.getByRole("region", { name: seed.name, exact: true });
      await poll(() => source.isVisible()).toBe(true);
      expect(await source.textContent()).toContain(seed.domain);
      const table = finder.getByRole("region", {
        name: `10 companies like ${seed.name}, most similar first`,
      });
      await poll(() => table.locator("tbody tr").count()).toBe(10);
      const similarity = await columnTexts(page, "distance");
      expect(similarity).toHaveLength(10);
      for (const cell of similarity)
        expect(cell).toMatch(
          /^(Nearly the same|Very similar|Related|Broadly related|Not much alike) \d{1,3}% similar$/,
        );
      const percents = similarity.map((cell) => Number(/(\d+)% similar$/.exec(cell)![1]));
      expect(percents).toEqual([...percents].sort((a, b) => b - a));
      const domains = await columnTexts(page, "DOMAIN_ORG");
      expect(domains.every((d) => /\./.test(d))).toBe(true);
      expect(domains).not.toContain(seed.domain);
      await poll(() => finder.getByRole("status").textContent()).toBe(
        `Found 10 companies like ${seed.name}.`,
      );
      await shot(page, "companies-1280-lookalikes");

      // By company id, with every column: the table has all the company columns.
      await finder.getByRole("radio", { name: "Company ID" }).check();
      await finder.getByRole("textbox", { name: "Company ID" }).fill(seed.rbidOrg);
      await finder.getByRole("checkbox", { name: "All columns" }).check();
      await finder.getByRole("spinbutton", { name: "How many" }).fill("5");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      const wide = finder.getByRole("region", { name: `5 companies like ${seed.name}, most similar first` });
      await poll(() => wide.locator("tbody tr").count()).toBe(5);
      const headers = await wide.locator("thead th").allTextContents();
      expect(headers).toEqual(
        expect.arrayContaining(["Company", "Similarity", "About the company", "Founded", "Company ID"]),
      );
      expect(headers).toHaveLength(17);
      expect(await overflow(page)).toBeLessThanOrEqual(0);

      // An unknown company: a readable sentence, no table.
      await finder.getByRole("textbox", { name: "Company ID" }).fill("org_nope");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      await poll(() => finder.getByRole("alert").textContent()).toContain(
        "No company with the id “org_nope” is known.",
      );

      // Back to the domain search (cached), and use its first lookalike as a rule.
      await finder.getByRole("radio", { name: "Website domain" }).check();
      await finder.getByRole("checkbox", { name: "All columns" }).uncheck();
      await finder.getByRole("textbox", { name: "Website domain" }).fill(seed.domain);
      await finder.getByRole("spinbutton", { name: "How many" }).fill("10");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      await poll(() => table.locator("tbody tr").count()).toBe(10);
      const chosenDomain = (await columnTexts(page, "DOMAIN_ORG"))[0]!;
      const chosenName = (await columnTexts(page, "COMPANY_NAME_ORG"))[0]!;
      await table.getByRole("button", { name: `Use as lookalike condition: ${chosenName}` }).click();

      // The Builder opens with the rule added to the audience, and counts it.
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(new URL(page.url()).pathname).toBe("/");
      expect(new URL(page.url()).searchParams.get("a")).not.toBeNull();
      const rule = page.getByRole("group", { name: /^Lookalike 2:/ });
      await poll(() =>
        rule.getByRole("textbox", { name: "Company domain for lookalike 2" }).inputValue(),
      ).toBe(chosenDomain);
      await poll(() => rule.locator(".fe-lookup").textContent()).toContain(`Like: ${chosenName}`);
      const expected: LookalikeNode = {
        type: "lookalike",
        domain: chosenDomain,
        rbidOrg: "",
        match: "similar",
        negate: false,
      };
      const narrowed = await countOf("/api/v2/contact/count", {
        ...GERMANY,
        children: [...GERMANY.children, expected],
      });
      expect(narrowed).toBeLessThan(people);
      expect(await settledCount(page)).toBe(formatNumber(narrowed));
      await poll(() =>
        page.getByRole("region", { name: "In plain English" }).locator("p").textContent(),
      ).toBe(`Country is "Germany" and works at a company similar to ${chosenDomain}`);
      await shot(page, "companies-1280-builder-after-use");

      // Back on Companies, the count is the new audience's.
      await page.getByRole("link", { name: "Companies", exact: true }).click();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Companies");
      const fewer = await countOf("/api/v2/contact/company/count", {
        ...GERMANY,
        children: [...GERMANY.children, expected],
      });
      await poll(() => card.locator(".companies-count-line").textContent()).toBe(
        `${formatNumber(fewer)} ${fewer === 1 ? "company employs" : "companies employ"} the ${formatNumber(narrowed)} ${narrowed === 1 ? "person" : "people"} of this audience.`,
      );

      // The column values browser: every enumerable column, its values, a search within them.
      const values = page.getByRole("region", { name: "Company field values" });
      await poll(() => values.getByRole("list", { name: "Industry" }).locator("li").count()).toBeGreaterThan(
        10,
      );
      await values.getByRole("radio", { name: "Employee range" }).check();
      const ranges = values.getByRole("list", { name: "Employee range" });
      await poll(() => ranges.locator("li").allTextContents()).toEqual(
        expect.arrayContaining(["51-200", "11-50"]),
      );
      await values.getByRole("searchbox", { name: "Search within Employee range" }).fill("00");
      await poll(() => ranges.locator("li").allTextContents()).not.toContain("11-50");
      expect(await values.getByRole("status").textContent()).toMatch(/^\d+ of 8 values contain “00”$/);
      await values.getByRole("radio", { name: "HQ country" }).check();
      await poll(() =>
        values.getByRole("list", { name: "HQ country" }).locator("li").allTextContents(),
      ).toContain("Germany");
      await shot(page, "companies-1280-overview");

      await log.settle();
      expect(log.problems().filter((line) => UNKNOWN_COMPANY_422.test(line))).toHaveLength(1);
      expectClean(log, UNKNOWN_COMPANY_422);
    } finally {
      await context.close();
    }
  });

  it("says when the audience is unfinished, and links to the Builder", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openWithAudience(page, {
        type: "group",
        op: "AND",
        negate: false,
        children: [{ type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "" }],
      });
      const card = page.getByRole("region", { name: "Companies in your audience" });
      await poll(() => card.locator("[data-state]").getAttribute("data-state")).toBe("blocked");
      expect(await card.textContent()).toContain("This audience is unfinished");
      await card.getByRole("link", { name: "Finish it in the Builder" }).click();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("works at 768 px: nothing sticks out, the table scrolls inside its frame", async () => {
    const { context, page, log } = await openPage(browser, { width: 768, height: 1000 });
    try {
      await openWithAudience(page, GERMANY);
      const card = page.getByRole("region", { name: "Companies in your audience" });
      await poll(() => card.locator("[data-state]").getAttribute("data-state")).toBe("ready");
      const finder = page.getByRole("region", { name: "Find lookalike companies" });
      await finder.getByRole("textbox", { name: "Website domain" }).fill(seed.domain);
      await finder.getByRole("checkbox", { name: "All columns" }).check();
      await finder.getByRole("spinbutton", { name: "How many" }).fill("8");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      await poll(() => finder.locator(".lookalike-table tbody tr").count()).toBe(8);
      const values = page.getByRole("region", { name: "Company field values" });
      await poll(() => values.getByRole("list", { name: "Industry" }).locator("li").count()).toBeGreaterThan(
        10,
      );
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, "companies-768");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });
});
