import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatNumber } from "../../src/app/lib/format";
import type { GroupNode, LookalikeNode } from "../../src/contract/filter";
import {
  cspViolations,
  launchBrowser,
  openPage,
  type PageLog,
  poll,
  type RunningApp,
  screenshot,
  settledCount,
  startApp,
} from "../support/browser";
import { browser as apiClient } from "../support/proxy-server";

/**
 * The Companies screen in Chromium: the company count of the working audience and its companies
 * with their people (one added as a condition: the Builder counts it), a target-account list
 * pasted and uploaded (matched and unmatched domains, then added as one condition), lookalikes of a
 * domain from the data (a table with similarity, website, industry and size), one of them used as
 * a lookalike rule, lookalikes by company id with all columns, the column values with their people
 * (one added), an unfinished audience, and the layout at 1440 and 768 px.
 * Screenshots: test-artifacts/companies/*.png.
 */

const SHOTS = "companies";

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
/** A company of the data: the employer of the most German contacts. */
let seed: { domain: string; rbidOrg: string; name: string };

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp()]);
  api = apiClient(app.url);
  // The same company every run (a View's row is a new draw each time, and what the values browser
  // shows below depends on it): the one employing the most German contacts.
  const top = await api.post<{ buckets: { value: string }[] }>("/api/v2/contact/insights", {
    section: "breakdown",
    groupField: "COMPANY_NAME_ORG",
    filter: GERMANY,
  });
  expect(top.status, top.text).toBe(200);
  const name = top.body.buckets[0]!.value;
  const facts = await api.post<{ fields: Record<string, { value: string }[]> }>("/api/v2/contact/insights", {
    section: "fields",
    fields: ["RBID_ORG", "DOMAIN_ORG"],
    filter: {
      type: "group",
      op: "AND",
      children: [{ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: name }],
    },
  });
  expect(facts.status, facts.text).toBe(200);
  const row = {
    COMPANY_NAME_ORG: name,
    RBID_ORG: facts.body.fields.RBID_ORG![0]!.value,
    DOMAIN_ORG: facts.body.fields.DOMAIN_ORG![0]!.value,
  };
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

interface Bucket {
  value: string | null;
  count: number;
}

/** The service's breakdown of `filter` by `groupField` (free). */
async function breakdownOf(groupField: string, filter: GroupNode) {
  const answer = await api.post<{ buckets: Bucket[]; otherCount: number; total: number }>(
    "/api/v2/contact/insights",
    { section: "breakdown", groupField, filter },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

const and = (...children: GroupNode["children"]): GroupNode => ({
  ...GERMANY,
  children: [...GERMANY.children, ...children],
});

/** The Builder has opened with the audience: its settled count and the audience in plain English. */
async function builderShows(page: Page, count: number, english: string) {
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
  expect(await settledCount(page)).toBe(formatNumber(count));
  await poll(() => page.getByRole("region", { name: "In plain English" }).locator("p").textContent()).toBe(
    english,
  );
}

describe("the Companies screen", () => {
  it("counts the audience's companies, finds lookalikes of a domain, and turns one into a rule", async () => {
    const { context, page, log } = await openPage(browser, { width: 1440, height: 1000 });
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
      // What a lookalike is read by, whatever was ticked: its website (a link), industry and size.
      expect((await table.locator("thead th").allTextContents()).slice(0, 7)).toEqual([
        "Company",
        "Similarity",
        "Add to audience",
        "Company website",
        "Industry",
        "Employee range",
        "Company domain",
      ]);
      expect(await columnTexts(page, "WEBSITE_ORG")).toEqual(domains);
      const link = table.locator('td[data-column="WEBSITE_ORG"] a').first();
      expect(await link.getAttribute("href")).toBe(`https://www.${domains[0]}`);
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
      expect((await columnTexts(page, "INDUSTRY_LINKEDIN_ORG")).every((t) => t.length > 2)).toBe(true);
      expect(
        (await columnTexts(page, "EMPLOYEE_COUNT_RANGE_ORG")).every((t) =>
          /^\d[\d,]*(-\d[\d,]*|\+)$/.test(t),
        ),
      ).toBe(true);
      await poll(() => finder.getByRole("status").textContent()).toBe(
        `Found 10 companies like ${seed.name}.`,
      );
      await shot(page, "companies-1440-lookalikes");

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
      await table.getByRole("button", { name: `Add lookalike: ${chosenName}` }).click();

      // The Builder opens with the rule added to the audience, and counts it.
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(new URL(page.url()).pathname).toBe("/");
      expect(new URL(page.url()).searchParams.get("a")).not.toBeNull();
      const rule = page.getByRole("group", { name: /^Lookalike 2:/ });
      // Found, the company shows by its name, its domain after it.
      await poll(() => rule.locator(".fe-lookup").textContent()).toContain(`Like: ${chosenName}`);
      await poll(() => rule.locator(".fe-company-chip").textContent()).toBe(`${chosenName} ${chosenDomain}`);
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
      ).toBe(`Country is "Germany" and works at a company similar to ${chosenName} (${chosenDomain})`);
      await shot(page, "companies-1440-builder-after-lookalike");

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
      // The industries with people in this audience, then every one behind "Show all".
      await poll(() => values.getByRole("list", { name: "Industry" }).locator("li").count()).toBeGreaterThan(
        0,
      );
      await values.getByRole("button", { name: /^Show all \d+ / }).click();
      await poll(() => values.getByRole("list", { name: "Industry" }).locator("li").count()).toBeGreaterThan(
        10,
      );
      await values.getByRole("radio", { name: "Employee range" }).check();
      const ranges = values.getByRole("list", { name: "Employee range" });
      const rangeLabels = () => ranges.locator(".addable-value-label").allTextContents();
      // Once counted, the ranges with no one in this audience wait behind "Show all".
      await poll(() => values.getByRole("status").textContent()).toMatch(
        /^8 values, \d+ with people in your audience$/,
      );
      await values.getByRole("button", { name: /^Show all 8 / }).click();
      await poll(rangeLabels).toEqual(expect.arrayContaining(["51-200", "11-50"]));
      await values.getByRole("searchbox", { name: "Search within Employee range" }).fill("00");
      await poll(rangeLabels).not.toContain("11-50");
      expect(await values.getByRole("status").textContent()).toMatch(/^\d+ of 8 values contain “00”$/);
      await values.getByRole("radio", { name: "HQ country" }).check();
      await poll(() =>
        values.getByRole("list", { name: "HQ country" }).locator(".addable-value-label").allTextContents(),
      ).toContain("Germany");
      await shot(page, "companies-1440-overview");

      await log.settle();
      expect(log.problems().filter((line) => UNKNOWN_COMPANY_422.test(line))).toHaveLength(1);
      expectClean(log, UNKNOWN_COMPANY_422);
    } finally {
      await context.close();
    }
  });

  it("finds a company's lookalikes from its name, in any case; a name nobody has is said", async () => {
    const { context, page, log } = await openPage(browser, { width: 1440, height: 1000 });
    try {
      await openWithAudience(page, GERMANY);
      const finder = page.getByRole("region", { name: "Find lookalike companies" });
      await finder.getByRole("radio", { name: "Company name" }).check();
      await finder.getByRole("textbox", { name: "Company name" }).fill(seed.name.toUpperCase());
      await finder.getByRole("spinbutton", { name: "How many" }).fill("6");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      const people = (
        await breakdownOf("DOMAIN_ORG", {
          type: "group",
          op: "AND",
          children: [{ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: seed.name }],
        } as GroupNode)
      ).buckets[0]!.count;
      await poll(() => finder.locator(".lookalike-named").textContent()).toBe(
        `“${seed.name.toUpperCase()}” is ${seed.domain} (${formatNumber(people)} ${people === 1 ? "person" : "people"}).`,
      );
      // The same lookalikes as by its domain.
      const table = finder.getByRole("region", { name: `6 companies like ${seed.name}, most similar first` });
      await poll(() => table.locator("tbody tr").count()).toBe(6);
      const byName = await columnTexts(page, "COMPANY_NAME_ORG");
      await shot(page, "companies-1440-lookalikes-by-name");
      await finder.getByRole("radio", { name: "Website domain" }).check();
      await finder.getByRole("textbox", { name: "Website domain" }).fill(seed.domain);
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      await poll(() => finder.locator(".lookalike-named").count()).toBe(0);
      await poll(() => columnTexts(page, "COMPANY_NAME_ORG")).toEqual(byName);

      // A name no company of the data has: a sentence with what to try, no table.
      await finder.getByRole("radio", { name: "Company name" }).check();
      await finder.getByRole("textbox", { name: "Company name" }).fill("Nobody Named This Ltd");
      await finder.getByRole("button", { name: "Find lookalikes" }).click();
      await poll(() => finder.getByRole("alert").textContent()).toBe(
        "No company of the contact data is named “Nobody Named This Ltd”. Check the spelling, or search by its website domain.",
      );
      expect(await finder.locator(".lookalike-table").count()).toBe(0);
      await page.setViewportSize({ width: 768, height: 1000 });
      await shot(page, "companies-768-lookalike-name-unknown");
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("lists the audience's companies with their people, and adds one as a condition", async () => {
    const { context, page, log } = await openPage(browser, { width: 1440, height: 1000 });
    try {
      await openWithAudience(page, GERMANY);
      const companies = await countOf("/api/v2/contact/company/count", GERMANY);
      const top = await breakdownOf("COMPANY_NAME_ORG", GERMANY);
      const card = page.getByRole("region", { name: "Companies in your audience" });
      const list = card.getByRole("list", { name: "Companies in this audience" });
      const labels = () => list.locator(".addable-value-label").allTextContents();
      const people = () => list.locator(".addable-value-people").allTextContents();

      // The top 20, most people first, as the service's breakdown has them.
      await poll(labels).toEqual(top.buckets.map((b) => b.value));
      expect(await people()).toEqual(top.buckets.map((b) => `${formatNumber(b.count)} people`));
      // Each with its domain, industry and size, as the data gives them for that company.
      const first = top.buckets[0]!.value!;
      const facts = await api.post<{ fields: Record<string, Bucket[]> }>("/api/v2/contact/insights", {
        section: "fields",
        fields: ["DOMAIN_ORG", "INDUSTRY_LINKEDIN_ORG", "EMPLOYEE_COUNT_RANGE_ORG"],
        filter: {
          type: "group",
          op: "AND",
          children: [{ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: first }],
        },
      });
      const [domain, itsIndustry, size] = [
        "DOMAIN_ORG",
        "INDUSTRY_LINKEDIN_ORG",
        "EMPLOYEE_COUNT_RANGE_ORG",
      ].map((field) => facts.body.fields[field]![0]!.value);
      await poll(() => list.locator(".addable-value-detail").first().textContent()).toBe(
        `${domain} · ${itsIndustry} · ${size} employees`,
      );
      await poll(async () =>
        (await list.locator(".addable-value-detail").allTextContents()).includes("…"),
      ).toBe(false);
      for (const line of await list.locator(".addable-value-detail").allTextContents())
        expect(line).toMatch(/^[a-z0-9.-]+\.[a-z.]+ · .+ · [\d,+-]+ employees$/);
      const left = companies - 20;
      expect(await card.getByRole("status").textContent()).toBe(
        `20 of ${formatNumber(companies)} companies shown; ${formatNumber(top.otherCount)} people work at the other ${formatNumber(left)}.`,
      );
      await shot(page, "companies-1440-audience-companies");

      // The next 20: others, fewer people each, nobody counted twice.
      await card.getByRole("button", { name: "Show 20 more" }).click();
      await poll(() => list.locator("li").count()).toBe(40);
      const names = await labels();
      expect(new Set(names).size).toBe(40);
      const counts = (await people()).map((text) => Number(text.replace(/\D/g, "")));
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      const shown = counts.reduce((sum, n) => sum + n, 0);
      await poll(() => card.getByRole("status").textContent()).toBe(
        `40 of ${formatNumber(companies)} companies shown; ${formatNumber(top.total - shown)} people work at the other ${formatNumber(companies - 40)}.`,
      );

      // One click: the Builder opens with the company ANDed to the audience, and counts it.
      const chosen = top.buckets[1]!;
      await list.getByRole("button", { name: `Add condition: Company is "${chosen.value}"` }).click();
      await builderShows(page, chosen.count, `Country is "Germany" and Company is "${chosen.value}"`);
      expect(
        await countOf(
          "/api/v2/contact/count",
          and({ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: chosen.value! }),
        ),
      ).toBe(chosen.count);
      await shot(page, "companies-1440-builder-after-company");

      // Field values count the people of the audience; one is added the same way.
      await page.getByRole("link", { name: "Companies", exact: true }).click();
      const narrowed = and({
        type: "condition",
        column: "COMPANY_NAME_ORG",
        operator: "eq",
        value: chosen.value!,
      });
      const industries = await breakdownOf("INDUSTRY_LINKEDIN_ORG", narrowed);
      const industry = industries.buckets[0]!;
      const values = page.getByRole("region", { name: "Company field values" });
      const row = values.getByRole("list", { name: "Industry" }).locator("li", { hasText: industry.value! });
      await poll(() => row.locator(".addable-value-people").textContent()).toBe(
        `${formatNumber(industry.count)} ${industry.count === 1 ? "person" : "people"}`,
      );
      // Those with people lead; the ones with no one wait behind "Show all".
      const industryPeople = () =>
        values.getByRole("list", { name: "Industry" }).locator(".addable-value-people").allTextContents();
      await poll(async () => (await industryPeople()).length).toBeGreaterThan(0);
      expect(await industryPeople()).not.toContain("0 people");
      expect(await values.locator(".addable-value[data-empty]").count()).toBe(0);
      await values
        .getByRole("button", { name: /^Show all \d+ \(\d+ with no one in your audience\)$/ })
        .click();
      await poll(() =>
        values.locator(".addable-value[data-empty] .addable-value-people").first().textContent(),
      ).toBe("0 people");
      const inOrder = (await industryPeople()).map((text) => Number(text.replace(/\D/g, "")));
      expect(inOrder).toEqual([...inOrder].sort((a, b) => b - a));
      await shot(page, "companies-1440-values-with-people-first");
      await row.getByRole("button", { name: `Add condition: Industry is "${industry.value}"` }).click();
      await builderShows(
        page,
        industry.count,
        `Country is "Germany" and Company is "${chosen.value}" and Industry is "${industry.value}"`,
      );
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("checks a pasted and an uploaded target-account list, with progress, and adds the matched domains", async () => {
    const { context, page, log } = await openPage(browser, { width: 1440, height: 1000 });
    try {
      // Real domains of the data, written as people paste them, and three that are not in it.
      const real = (await breakdownOf("DOMAIN_ORG", GERMANY)).buckets.slice(0, 8).map((b) => b.value!);
      const ghosts = ["no-such-company-1.example", "nowhere-two.test", "ghost-company.io"];
      expect(
        await countOf("/api/v2/contact/count", {
          type: "group",
          op: "AND",
          negate: false,
          children: [{ type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: ghosts }],
        }),
      ).toBe(0);
      const pasted = [
        `https://www.${real[0]!.toUpperCase()}/about`,
        real[1],
        "",
        `WWW.${real[2]}`,
        ghosts[0],
        real[1],
        `jane@${real[3]}`,
        "not a domain",
        `${real[4]}, ${real[5]}`,
        ghosts[1],
        `${real[6]}\t${real[7]}`,
        ghosts[2],
      ].join("\n");
      await openWithAudience(page, GERMANY);
      const target = page.getByRole("region", { name: "Target accounts" });
      await target.getByRole("textbox", { name: "Company domains" }).fill(pasted);
      await target.getByRole("button", { name: "Check the domains" }).click();
      await poll(() => target.locator(".target-matched").textContent()).toMatch(/^Matched 8 of 11 domains: /);
      const matchedPeople = await countOf("/api/v2/contact/count", {
        type: "group",
        op: "AND",
        negate: false,
        children: [{ type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: real }],
      });
      expect(await target.locator(".target-matched").textContent()).toBe(
        `Matched 8 of 11 domains: ${formatNumber(matchedPeople)} people in the data work at them.`,
      );
      expect(
        await target
          .getByRole("list", { name: "Not in the data: 3 domains" })
          .locator("li")
          .allTextContents(),
      ).toEqual(ghosts);
      expect(
        await target.getByRole("list", { name: "How the list was read" }).locator("li").allTextContents(),
      ).toEqual([
        "1 blank line skipped.",
        "3 entries read as the domain alone (https://www.Acme.com/about as acme.com).",
        "1 repeated domain counted once.",
        "1 entry is not a domain, left out: “not a domain”.",
      ]);
      await shot(page, "companies-1440-target-accounts");

      // An uploaded file: its Website column is read, its header row skipped.
      await target.getByLabel("Or upload a .csv or .txt file").setInputFiles({
        name: "accounts.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(
          `Company,Website\r\nOne,https://www.${real[0]}\r\nTwo,${ghosts[0]}\r\nThree,${real[2]}\r\n`,
        ),
      });
      await poll(() => target.locator(".target-matched").textContent()).toMatch(/^Matched 2 of 3 domains: /);
      expect(await target.getByRole("list", { name: "How the list was read" }).textContent()).toBe(
        "The header row “Company,Website” was skipped; the Website column was read.1 entry read as the domain alone (https://www.Acme.com/about as acme.com).",
      );
      expect(await target.getByText(/^Read accounts\.csv \(/).isVisible()).toBe(true);

      // A long list: progress as it goes, a 429 waited out, Stop, and going on where it stopped.
      const many = [...real, ...Array.from({ length: 392 }, (_, i) => `absent-${i}.example`)];
      let refused = false;
      await page.route("**/api/v2/contact/insights", async (route) => {
        if (!refused) {
          refused = true;
          await route.fulfill({
            status: 429,
            headers: { "content-type": "application/json", "retry-after": "1" },
            body: JSON.stringify({ detail: "Too many requests", code: "RATE_LIMITED" }),
          });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 400));
        await route.continue();
      });
      await target.getByRole("textbox", { name: "Company domains" }).fill(many.join("\n"));
      await target.getByRole("button", { name: "Check the domains" }).click();
      const progress = target.locator(".target-progress");
      await poll(() => progress.textContent()).toMatch(/The service asked to wait 1 second before more/);
      const bar = target.getByRole("progressbar", { name: "Checking the domains" });
      await poll(async () => Number(await bar.getAttribute("value"))).toBeGreaterThanOrEqual(40);
      expect(await bar.getAttribute("aria-valuetext")).toMatch(/^\d+ of 400 domains$/);
      await shot(page, "companies-1440-target-progress");
      // The page is not frozen: another field takes typing meanwhile.
      await page.getByRole("textbox", { name: "Website domain" }).fill("typing.example");
      await target.getByRole("button", { name: "Stop" }).click();
      await poll(() => progress.locator("p").textContent()).toMatch(
        /^Stopped after checking \d+ of 400 domains\.$/,
      );
      await shot(page, "companies-1440-target-stopped");
      // Chunks already asked finish through the handler before it goes.
      await page.unrouteAll({ behavior: "wait" });
      await target.getByRole("button", { name: "Go on checking" }).click();
      await poll(() => target.locator(".target-matched").textContent()).toMatch(
        /^Matched 8 of 400 domains: /,
      );
      expect(await target.locator(".target-unmatched").textContent()).toContain("and 192 more.");

      // The paste again (answered from the cache), added as one condition: the Builder counts it.
      await target.getByRole("textbox", { name: "Company domains" }).fill(pasted);
      await target.getByRole("button", { name: "Check the domains" }).click();
      await poll(() => target.locator(".target-matched").textContent()).toMatch(/^Matched 8 of 11 domains: /);
      await target.getByRole("button", { name: "Add the 8 matched domains as a condition" }).click();
      const expected = await countOf(
        "/api/v2/contact/count",
        and({ type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: real }),
      );
      expect(expected).toBeLessThan(await countOf("/api/v2/contact/count", GERMANY));
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(await settledCount(page)).toBe(formatNumber(expected));
      await poll(() =>
        page.getByRole("region", { name: "In plain English" }).locator("p").textContent(),
      ).toMatch(/^Country is "Germany" and Company domain is one of /);
      await shot(page, "companies-1440-builder-after-target-list");
      await log.settle();
      expectClean(log, /status of 429/);
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
      const target = page.getByRole("region", { name: "Target accounts" });
      await target
        .getByRole("textbox", { name: "Company domains" })
        .fill(`https://www.${seed.domain}/\nno-such-company-1.example\nnowhere-two.test`);
      await target.getByRole("button", { name: "Check the domains" }).click();
      await poll(() => target.locator(".target-matched").textContent()).toMatch(/^Matched 1 of 3 domains: /);
      await poll(() =>
        card.getByRole("list", { name: "Companies in this audience" }).locator("li").count(),
      ).toBe(20);
      const values = page.getByRole("region", { name: "Company field values" });
      // The industries with people in this audience, then every one behind "Show all".
      await poll(() => values.getByRole("list", { name: "Industry" }).locator("li").count()).toBeGreaterThan(
        0,
      );
      await values.getByRole("button", { name: /^Show all \d+ / }).click();
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
