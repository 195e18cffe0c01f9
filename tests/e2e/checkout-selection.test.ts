import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserAndAppForFile, openPage, screenshot } from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";
import {
  balanceOf,
  estimateViaProxy,
  expectClean,
  GERMANY,
  lastSelection,
  poll,
  SHOTS,
  selectSampleRows,
  urlWithAudience,
} from "./checkout-support";

/**
 * One selection rule (issue 19, item 8), in Chromium on the PAYG demo key: five people ticked in
 * the sample of an audience, the audience then narrowed in the Builder so that only one of them is
 * still in it. The Builder says four left; Checkout marks them "No longer in this audience";
 * Enrich reviews and buys only the one (charged once, exactly her price), and Export estimates the
 * same one. Another audience starts with no ticks, and coming back restores them. Screenshots,
 * 1440 and 768 wide: test-artifacts/checkout/selection-*.png.
 */

const env = browserAndAppForFile({ env: { SANDBOX_KEY: "sbx_payg_demo" } });

const LEFT_WORDS = "4 of 5 selected people left the audience after your edits; 1 will be bought.";

const FRANCE = {
  ...GERMANY,
  children: [
    { type: "condition" as const, column: "COUNTRY_NAME_PER", operator: "eq" as const, value: "France" },
  ],
};

const sampleTable = (page: Page) => page.getByRole("region", { name: /^Sample of \d+ people, masked$/ });
const enrichTab = (page: Page) => page.getByRole("tabpanel", { name: "Enrich chosen people" });
const exportTab = (page: Page) => page.getByRole("tabpanel", { name: "Export a file" });
const selectionBar = (page: Page) => page.locator(".sample-selection");
const savedPanel = (page: Page) => page.getByRole("complementary", { name: "Saved audiences" });
const openName = (page: Page) =>
  page.getByRole("region", { name: "Open audience" }).locator(".open-audience-name").textContent();
const summary = (page: Page) =>
  page.getByRole("region", { name: "In plain English" }).locator("p").textContent();
const rowBoxes = (page: Page) => sampleTable(page).getByRole("checkbox", { name: /^Select (?!every row)/ });
/** Waits for a sample with rows. */
const sampleShown = (page: Page) => poll(() => rowBoxes(page).count()).toBeGreaterThan(0);
const tickedInSample = (page: Page) =>
  sampleTable(page)
    .getByRole("checkbox", { name: /^Select (?!every row)/, checked: true })
    .count();

/** The marks of Checkout's list of selected people, as "name: mark". */
async function marksOf(page: Page): Promise<string[]> {
  const people = page.getByRole("list", { name: "People selected in the sample" }).getByRole("listitem");
  return people.evaluateAll((items) =>
    items.map(
      (li) =>
        `${li.querySelector(".checkout-review-name")?.textContent}: ${li.querySelector(".checkout-review-mark")?.textContent}`,
    ),
  );
}

/** Both widths, from the top of the page. */
async function shots(page: Page, name: string) {
  for (const width of [1440, 768]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, SHOTS, `${name}-${width}`, { fromTop: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe("Selections belong to an audience; people who left it are marked and never bought", () => {
  it("ticks 5, narrows the audience to 1 of them: the Builder and Checkout say so, Enrich and Export take the same 1", async () => {
    const { app, browser } = env;
    const { context, page, log } = await openPage(browser, { width: 1440, height: 900 });
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const ids = await selectSampleRows(page, 5);
      const { names } = await lastSelection(page);
      // One of the five whose name none of the others has: narrowed to that name, only she stays.
      const keptId = ids.find((id) => ids.filter((other) => names[other] === names[id]).length === 1)!;
      const keptName = names[keptId]!;
      const kept = [keptId];
      const left = ids.filter((id) => id !== keptId);
      await poll(() => selectionBar(page).textContent()).toContain("5 contacts selected");

      // Narrow the same audience in the Builder: Full name is the first person's.
      await page.getByRole("button", { name: "Add condition to the whole filter" }).click();
      const rule = page.getByRole("group", { name: /^Condition 2:/ });
      await rule.getByRole("combobox", { name: "Field of condition 2" }).click();
      await page
        .getByRole("listbox", { name: "Field of condition 2" })
        .getByRole("option", { name: "Full name", exact: true })
        .click();
      await rule.getByLabel("Comparison of condition 2").selectOption("eq");
      await rule.getByLabel("Value of condition 2", { exact: true }).fill(keptName);
      await page.keyboard.press("Escape");
      await poll(() =>
        page.getByRole("region", { name: "In plain English" }).locator("p").textContent(),
      ).toBe(`Country is "Germany" and Full name is "${keptName}"`);
      // The ticks stayed with the audience; the Builder checks (free) how many are still in it.
      await poll(() => page.getByTestId("selection-left").textContent()).toContain(LEFT_WORDS);
      // The new sample holds her (and anyone else of that name in Germany), still ticked.
      await poll(() => page.locator(".sample-status").textContent()).toMatch(/^A random sample of/);
      expect(
        await sampleTable(page)
          .getByRole("checkbox", { name: `Select ${keptName}`, checked: true })
          .count(),
      ).toBe(1);
      expect(await selectionBar(page).textContent()).toContain("5 contacts selected (1 in this sample).");
      expect(await page.getByTestId("selection-left").textContent()).toContain(LEFT_WORDS);
      await shots(page, "selection-01-builder-left");
      const narrowed = page.url();

      const before = await balanceOf(app);
      await page.getByRole("link", { name: "Buy the 1 still in it" }).click();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
      expect(await page.getByTestId("selected-count").textContent()).toBe("5");
      await poll(() => page.getByTestId("selected-kept").textContent()).toBe("1");
      expect(await page.getByTestId("selected-people").getByTestId("selection-left").textContent()).toBe(
        LEFT_WORDS,
      );
      expect(await marksOf(page)).toEqual(
        ids.map(
          (id) => `${names[id]}: ${kept.includes(id) ? "In this audience" : "No longer in this audience"}`,
        ),
      );

      // Enrich: the one still in it, reviewed with the four marked, bought alone.
      const enrich = enrichTab(page);
      const choice = enrich.getByRole("radio", { name: /^The 1 still in this audience, of the 5 selected/ });
      expect(await choice.isChecked()).toBe(true);
      await enrich.getByRole("radio", { name: /^Email 1 credit/ }).check();
      await enrich.getByRole("button", { name: "Review the purchase" }).click();
      const confirm = enrich.getByRole("region", { name: "Confirm the enrichment" });
      await poll(() => confirm.getByTestId("enrich-review-sentence").textContent()).toMatch(
        /^1 selected: 1 to buy: up to 2 credits/,
      );
      expect(await confirm.getByTestId("enrich-review-left").textContent()).toBe(LEFT_WORDS);
      const reviewed = await confirm
        .getByRole("list", { name: "Who is bought, who is free, who is left out" })
        .getByRole("listitem")
        .allTextContents();
      expect(reviewed).toEqual([
        `${keptName}New`,
        ...left.map((id) => `${names[id]}No longer in this audience`),
      ]);
      await shots(page, "selection-02-enrich-review");

      // Export, estimated (free): the same one person, nobody else.
      await page.getByRole("tab", { name: "Export a file" }).click();
      const exporting = exportTab(page);
      await exporting.getByRole("radio", { name: /^Only the 1 selected still in this audience/ }).check();
      await poll(() => exporting.getByRole("spinbutton", { name: "Most rows" }).inputValue()).toBe("1");
      await exporting.getByRole("button", { name: "Estimate" }).click();
      await poll(() => exporting.getByTestId("estimate-rows").textContent()).toBe("1");
      expect(await exporting.getByTestId("estimate-audience").textContent()).toBe("1");
      expect(await exporting.getByRole("region", { name: "Confirm the export" }).textContent()).toContain(
        "the 1 person selected in the sample still in this audience (4 who left it are not bought)",
      );
      await shots(page, "selection-03-export-estimate");
      expect(await balanceOf(app)).toBe(before);

      // Enrich it: the one row, charged once, exactly her price.
      const figures = await estimateViaProxy(app, {
        filter: {
          type: "group",
          op: "AND",
          negate: false,
          children: [{ type: "condition", column: "RBID_PAO", operator: "in", valueList: kept }],
        },
        maxRows: 1,
        reveal: "email",
      });
      await page.getByRole("tab", { name: "Enrich chosen people" }).click();
      const buy = enrich.getByRole("button", { name: /^Confirm: buy 1 new for up to 2 credits/ });
      await poll(() => buy.isEnabled()).toBe(true);
      await buy.click();
      const result = enrich.getByRole("region", { name: "Enriched rows", exact: true });
      await poll(() => result.locator("tbody tr").count()).toBe(1);
      expect(await result.locator("tbody").textContent()).toContain(keptName);
      await poll(() => balanceOf(app)).toBe(before - figures.rows - figures.withEmail);
      await log.settle();
      const sends = log.exchanges.filter(
        (e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/enrich"),
      );
      expect(sends).toHaveLength(1);
      const answer = JSON.parse(sends[0]!.body) as { rows: { RBID_PAO: string }[]; notFound: string[] };
      expect(answer.rows.map((row) => row.RBID_PAO)).toEqual(kept);
      expect(answer.notFound).toEqual([]);

      // A reload keeps the ticks and the marks.
      await page.reload();
      await poll(() => page.getByTestId("selected-kept").textContent()).toBe("1");
      expect(await marksOf(page)).toHaveLength(5);

      // Another audience starts with no ticks of its own...
      await page.goto(urlWithAudience(app, FRANCE));
      await sampleShown(page);
      await poll(() => selectionBar(page).textContent()).toContain("No contacts selected");
      expect(
        await sampleTable(page)
          .getByRole("checkbox", { name: /^Select (?!every row)/, checked: true })
          .count(),
      ).toBe(0);
      await shots(page, "selection-04-another-audience");
      await page.goto(urlWithAudience(app, FRANCE, "/checkout"));
      await poll(() => page.getByTestId("selected-count").textContent()).toBe("0");
      expect(await page.getByTestId("selected-people").count()).toBe(0);

      // ...and coming back to the narrowed one restores its five, four of them still marked as left.
      await page.goto(narrowed);
      await poll(() => selectionBar(page).textContent()).toContain("5 contacts selected");
      await poll(() => page.getByTestId("selection-left").textContent()).toContain(LEFT_WORDS);
      expect(await balanceOf(app)).toBe(before - figures.rows - figures.withEmail);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("a saved audience keeps its own ticks: they follow it when saved, another one opened shows none, opening it again restores them", async () => {
    const { app, browser } = env;
    const france = await proxyClient(app.url).post<{ id: string }>("/api/audiences", {
      name: "France leads",
      filter: FRANCE,
      shared: false,
    });
    expect(france.status).toBe(201);
    const { context, page, log } = await openPage(browser, { width: 1440, height: 900 });
    try {
      await page.goto(urlWithAudience(app, GERMANY));
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const ids = await selectSampleRows(page, 3);
      const { names: named } = await lastSelection(page);
      const names = ids.map((id) => named[id]);

      // Saved as a new audience: the ticks go with it.
      await savedPanel(page).getByRole("button", { name: "Save as new…" }).click();
      await savedPanel(page).getByLabel("Name this audience").fill("Germany leads");
      await savedPanel(page).getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => openName(page)).toBe("Germany leads");
      await poll(() => selectionBar(page).textContent()).toContain("3 contacts selected");

      // Another saved audience: its own ticks, none.
      await savedPanel(page).getByRole("button", { name: "Open France leads", exact: true }).click();
      await poll(() => openName(page)).toBe("France leads");
      await poll(() => summary(page)).toBe('Country is "France"');
      await sampleShown(page);
      await poll(() => selectionBar(page).textContent()).toContain("No contacts selected");
      expect(await tickedInSample(page)).toBe(0);
      await sampleTable(page)
        .getByRole("checkbox", { name: /^Select (?!every row)/ })
        .first()
        .click();
      await poll(() => selectionBar(page).textContent()).toContain("1 contact selected");
      await shots(page, "selection-05-another-saved-audience");

      // Back to the first: its three, and only them; Checkout buys them.
      await savedPanel(page).getByRole("button", { name: "Open Germany leads", exact: true }).click();
      await poll(() => openName(page)).toBe("Germany leads");
      await sampleShown(page);
      await poll(() => selectionBar(page).textContent()).toContain("3 contacts selected");
      await page.getByRole("link", { name: "Buy the 3 selected" }).click();
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
      expect(await page.locator(".checkout-open-audience").textContent()).toContain("Germany leads");
      expect(await page.getByTestId("selected-count").textContent()).toBe("3");
      await poll(() => page.getByTestId("selected-people").textContent()).toContain(
        "Everyone you selected is still in this audience.",
      );
      expect(await marksOf(page)).toEqual(names.map((name) => `${name}: In this audience`));
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  }, 120_000);
});
