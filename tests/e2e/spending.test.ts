import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserAndAppForFile,
  downloadedText,
  type OpenedPage,
  openPage,
  poll,
  screenshot,
} from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";
import { PASSWORD, signIn as signInByApi } from "../support/team";
import { GERMANY } from "./checkout-support";
import { expectCleanBut, signInOnPage } from "./team-support";

/**
 * The team's spending in Chromium, on the proxy's own routes (ledger, caps, approvals, month
 * summary, do-not-contact lists): ada (admin) sets bo's (buyer) monthly cap and approval
 * threshold on the Spending page; bo enriches 5 contacts twice (the second time free: already the
 * team's) and asks for two purchases above his threshold; ada sees the badge, approves one (it is
 * bought once, for bo), denies the other with a reason, and, after lowering bo's cap, meets the
 * cap on approving a third, said in words. The ledger, filtered by person and month, says it all
 * with its totals and the same as CSV; the Account page shows bo's month against his cap. bo
 * builds a do-not-contact list from pasted lines and from a CSV file, sees the lines not used,
 * adds entries, browses and deletes a list; cy (analyst) reads the lists only.
 * Screenshots (1440 wide): test-artifacts/spending/*.png.
 */

const SHOTS = "spending";
const env = browserAndAppForFile({ env: { SANDBOX_KEY: "sbx_payg_demo" } });
const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });
const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent();
const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });
const thisMonth = () => new Date().toISOString().slice(0, 7);

describe("spending under the team's control, in the browser", () => {
  it("caps and thresholds, approvals, the ledger with its CSV, the month on Account, and do-not-contact lists", async () => {
    const { browser, app } = env;
    const opened: OpenedPage[] = [];
    const open = async () => {
      const one = await openPage(browser, { width: 1440, height: 900 });
      opened.push(one);
      return one;
    };
    try {
      // ---- A team: ada (admin), bo (buyer), cy (analyst), made through the proxy's team API.
      const local = proxyClient(app.url);
      expect(
        (await local.post("/api/team/people", { name: "ada", role: "admin", password: PASSWORD("ada") }))
          .status,
      ).toBe(201);
      const adaApi = await signInByApi(app.url, "ada");
      for (const [name, role] of [
        ["bo", "buyer"],
        ["cy", "analyst"],
      ] as const)
        expect((await adaApi.post("/api/team/people", { name, role, password: PASSWORD(name) })).status).toBe(
          201,
        );
      const boApi = await signInByApi(app.url, "bo");
      const sample = await adaApi.post<{ rows: { RBID_PAO: string }[] }>("/api/v2/contact/view", {
        filter: GERMANY,
        columns: ["RBID_PAO"],
        limit: 60,
      });
      expect(sample.status).toBe(200);
      const ids = sample.body.rows.map((row) => row.RBID_PAO);
      expect(ids.length).toBe(60);

      // ---- ada sets bo's monthly cap (50) and approval threshold (10) on the Spending page.
      const admin = await open();
      await admin.page.goto(`${app.url}/spending`);
      await signInOnPage(admin.page, "ada");
      await poll(() => heading(admin.page)).toBe("Spending");
      const capsForm = admin.page.getByRole("form", { name: "Monthly caps and approval thresholds" });
      await capsForm.getByLabel("Monthly cap of bo").fill("50");
      await capsForm.getByLabel("Approval threshold of bo").fill("ten");
      await capsForm.getByRole("button", { name: "Save caps" }).click();
      await poll(() => capsForm.getByRole("alert").textContent()).toBe(
        "Whole credits (0 to 1,000,000,000), or leave it blank.",
      );
      await capsForm.getByLabel("Approval threshold of bo").fill("10");
      await capsForm.getByRole("button", { name: "Save caps" }).click();
      await poll(() => capsForm.textContent()).toMatch(/Saved\. The proxy applies the new caps/);
      expect(await capsForm.getByLabel("Monthly cap of cy").getAttribute("placeholder")).toBe(
        "The team's pool",
      );

      // ---- bo buys: 5 contacts (5 credits), the same 5 again (already the team's: free), then two
      // purchases above his threshold, which become requests.
      const enrich = (personIds: string[], key: string) =>
        boApi.post("/api/v2/contact/enrich", { personIds, reveal: "none" }, { idempotencyKey: key });
      expect((await enrich(ids.slice(0, 5), "spend-e2e-first-0001")).status).toBe(200);
      expect((await enrich(ids.slice(0, 5), "spend-e2e-again-0002")).status).toBe(200);
      // A sample with contact details of 2 people in France (none of them the team's yet): 2 credits.
      const france = {
        type: "group",
        op: "AND",
        children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
      };
      const preview = await boApi.post(
        "/api/v2/contact/preview",
        { filter: france, limit: 2, reveal: "none" },
        { idempotencyKey: "spend-e2e-preview-06" },
      );
      expect(preview.status).toBe(200);
      const asked = await enrich(ids.slice(5, 17), "spend-e2e-twelve-003");
      expect(asked.status).toBe(202);
      expect((await enrich(ids.slice(17, 32), "spend-e2e-fifteen-04")).status).toBe(202);

      // ---- ada: the badge says 2 are waiting; approve the first, deny the second with a reason.
      await admin.page.reload();
      const badge = nav(admin.page).getByTestId("approvals-badge");
      await poll(() => badge.getAttribute("data-count")).toBe("2");
      expect(
        await nav(admin.page)
          .getByRole("link", { name: /^Spending\s*,\s*2 waiting for approval$/ })
          .count(),
      ).toBe(1);
      const waiting = admin.page.getByRole("list", { name: "Waiting for approval" });
      await poll(() => waiting.getByTestId("approval").count()).toBe(2);
      await shot(admin.page, "spending-01-admin-two-waiting");
      const twelve = waiting.getByTestId("approval").filter({ hasText: "up to 12 credits" });
      await twelve.getByRole("button", { name: "Approve the request of bo" }).click();
      await poll(() => admin.page.getByRole("list", { name: "Decided requests" }).textContent()).toMatch(
        /Approved and bought by ada/,
      );
      const fifteen = waiting.getByTestId("approval").filter({ hasText: "up to 15 credits" });
      await fifteen.getByRole("button", { name: "Deny… the request of bo" }).click();
      await fifteen.getByLabel("Why (optional; bo reads it)").fill("Not this month, please.");
      await fifteen.getByRole("button", { name: "Deny the request of bo" }).click();
      await poll(() => admin.page.getByRole("list", { name: "Decided requests" }).textContent()).toMatch(
        /Denied by ada.*Not this month, please\./,
      );
      await poll(() => badge.count()).toBe(0);

      // ---- A request that fitted when asked, approved after the cap was lowered: refused in words.
      expect((await enrich(ids.slice(32, 52), "spend-e2e-twenty-005")).status).toBe(202);
      await admin.page.getByRole("button", { name: "Refresh" }).first().click();
      const twenty = waiting.getByTestId("approval").filter({ hasText: "up to 20 credits" });
      await poll(() => twenty.count()).toBe(1);
      await capsForm.getByLabel("Monthly cap of bo").fill("30");
      await capsForm.getByRole("button", { name: "Save caps" }).click();
      await poll(() => capsForm.textContent()).toMatch(/Saved\./);
      await twenty.getByRole("button", { name: "Approve the request of bo" }).click();
      await poll(() => twenty.getByRole("alert").textContent()).toMatch(
        /^Not approved: .*cap is 30.*11 .*left/,
      );
      await shot(admin.page, "spending-02-admin-cap-reached-on-approve");

      // ---- The ledger, filtered by person and month, with its totals and the same as CSV.
      const ledger = admin.page.getByRole("region", { name: "Ledger entries" });
      await admin.page.getByLabel("Person", { exact: true }).selectOption("bo");
      await admin.page.getByLabel("Month", { exact: true }).fill(thisMonth());
      await poll(async () => (await ledger.locator("tbody tr").allTextContents()).length).toBe(4);
      const rows = await ledger.locator("tbody tr").allTextContents();
      expect(rows.filter((row) => /bo\s*Enrich/.test(row))).toHaveLength(3);
      expect(rows.some((row) => row.includes("5 (5 already yours)"))).toBe(true);
      // The sample says what it was bought from, in words.
      expect(rows.some((row) => /Sample with contact details.*Country is "France"/.test(row))).toBe(true);
      expect(rows.filter((row) => /Charged$/.test(row))).toHaveLength(3);
      const totals = admin.page.getByTestId("ledger-totals");
      await poll(() => totals.textContent()).toMatch(
        /^Charged19 creditsPurchases4Rows24 \(5 already yours\)/,
      );
      const csv = admin.page.waitForEvent("download");
      await admin.page.getByRole("button", { name: "Download CSV" }).click();
      const file = await downloadedText(await csv);
      expect(file.trim().split(/\r?\n/)).toHaveLength(5);
      // The response is recorded once its body is read.
      await admin.log.settle();
      expect(admin.log.exchanges.find((x) => x.url.includes("/api/ledger.csv"))?.url).toMatch(
        new RegExp(`/api/ledger\\.csv\\?person=bo&month=${thisMonth()}$`),
      );
      // No internal names anywhere on the page.
      expect(await admin.page.locator("main").textContent()).not.toMatch(
        /exportStart|RBID_|enrich\b|CAP_REACHED/,
      );
      await shot(admin.page, "spending-03-ledger-bo");
      // At 768 px the ledger scrolls sideways inside its card; the page itself does not.
      await admin.page.setViewportSize({ width: 768, height: 900 });
      expect(await admin.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      await shot(admin.page, "spending-03b-ledger-768");
      await admin.page.setViewportSize({ width: 1440, height: 900 });

      // ---- The Account page: bo's month against his cap.
      await nav(admin.page).getByRole("link", { name: "Account" }).click();
      const boRow = admin.page.locator('tr[data-person="bo"]');
      await poll(() => boRow.textContent()).toMatch(/^bo19 of 30 credits/);
      await shot(admin.page, "spending-04-account-month");
      expectCleanBut(admin.log);

      // ---- bo follows his requests; he makes do-not-contact lists.
      const buyer = await open();
      await buyer.page.goto(`${app.url}/spending`);
      await signInOnPage(buyer.page, "bo");
      await poll(() => heading(buyer.page)).toBe("Spending");
      expect(await nav(buyer.page).getByTestId("approvals-badge").count()).toBe(0);
      await poll(() => buyer.page.getByTestId("approval-state").allTextContents()).toEqual(
        expect.arrayContaining([
          "Waiting for an admin",
          expect.stringMatching(/^Approved and bought by ada/),
          "Denied by ada",
        ]),
      );
      expect(await buyer.page.getByTestId("approval-outcome").allTextContents()).toContain(
        "Not this month, please.",
      );
      expect(await buyer.page.getByRole("button", { name: /^Approve/ }).count()).toBe(0);
      expect(await buyer.page.getByLabel("Person", { exact: true }).count()).toBe(0);
      await shot(buyer.page, "spending-05-buyer-own-requests");

      await buyer.page
        .getByRole("navigation", { name: "Spending" })
        .getByRole("link", { name: "Do-not-contact lists" })
        .click();
      await poll(() => heading(buyer.page)).toBe("Do-not-contact lists");
      const create = buyer.page.getByRole("form", { name: "New list" });
      await create.getByLabel("Name of the list").fill("Competitors");
      await create
        .getByLabel("Entries, one a line")
        .fill("acme-example.com\nglobex.example\nnot a thing at all\nhttps://www.linkedin.com/in/jane-doe");
      await create.getByRole("button", { name: "Create the list" }).click();
      const result = create.getByTestId("import-result");
      await poll(() => result.textContent()).toMatch(/^Added 3 entries to Competitors\. 1 line was not used/);
      expect(await result.textContent()).toMatch(/Line 3: “not a thing at all” — /);
      await create.getByLabel("Name of the list").fill("From a CSV file");
      await create.getByLabel("Or upload a CSV file").setInputFiles({
        name: "customers.csv",
        mimeType: "text/csv",
        buffer: Buffer.from("domain\r\ninitech.example\r\numbrella.example\r\n"),
      });
      await poll(() => create.getByTestId("chosen-file").textContent()).toMatch(/^Read customers\.csv: /);
      await create.getByRole("button", { name: "Create the list" }).click();
      await poll(() => result.textContent()).toMatch(/^Added 2 entries to From a CSV file\./);
      const lists = buyer.page.getByTestId("suppression-list");
      await poll(() => lists.count()).toBe(2);
      const competitors = lists.filter({ hasText: "Competitors" });
      expect(await competitors.getByRole("definition").allTextContents()).toEqual(
        expect.arrayContaining(["2", "1"]),
      );
      await competitors.getByRole("button", { name: "Add entries to Competitors" }).click();
      const add = competitors.getByRole("form", { name: "Add entries to Competitors" });
      await add.getByLabel("Entries, one a line").fill("hooli.example\nacme-example.com");
      await add.getByRole("button", { name: "Add to the list" }).click();
      await poll(() => add.getByTestId("import-result").textContent()).toMatch(
        /^Added 1 entry to Competitors\. 1 was on the list already\./,
      );
      await competitors.getByRole("button", { name: "Browse entries of Competitors" }).click();
      await poll(() => competitors.locator("table tbody tr").count()).toBe(4);
      await shot(buyer.page, "spending-06-suppression-lists");
      const fromCsv = lists.filter({ hasText: "From a CSV file" });
      await fromCsv.getByRole("button", { name: "Delete… From a CSV file" }).click();
      await fromCsv.getByRole("button", { name: "Delete From a CSV file" }).click();
      await poll(() => buyer.page.getByText("From a CSV file was deleted.").count()).toBe(1);
      await poll(() => lists.count()).toBe(1);
      expectCleanBut(buyer.log);

      // ---- cy (analyst) reads the lists, and is told why they cannot change them.
      const analyst = await open();
      await analyst.page.goto(`${app.url}/suppression`);
      await signInOnPage(analyst.page, "cy");
      await poll(() => analyst.page.getByTestId("suppression-list").count()).toBe(1);
      expect(await analyst.page.getByTestId("role-notice").textContent()).toMatch(
        /^Your role is analyst: the lists can be read here, not changed\./,
      );
      expect(await analyst.page.getByRole("form", { name: "New list" }).count()).toBe(0);
      expect(await analyst.page.getByRole("button", { name: /Delete|Add entries/ }).count()).toBe(0);
      await shot(analyst.page, "spending-07-analyst-reads-lists");
      expectCleanBut(analyst.log);
    } finally {
      for (const one of opened) await one.context.close();
    }
  }, 180_000);
});
