import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { approvalsAnswer } from "../../src/contract/spending";
import { browserAndAppForFile, openPage, poll, screenshot } from "../support/browser";
import { browser as proxyClient } from "../support/proxy-server";
import { PASSWORD, signIn as signInByApi } from "../support/team";
import { expectCleanBut, signInOnPage } from "./team-support";

/**
 * Email verification under the team's rules, in Chromium: bo (buyer) has an approval threshold of
 * 0, so his check of one address is "Sent for approval" (nothing spent); ada (admin) approves it
 * and bo's screen shows the verdict without a click more; with a monthly cap of 2, bo's batch of 12
 * is refused before anything is sent, in words; the Spending page's ledger lists the check as an
 * "Email verification" of that address. Screenshots: test-artifacts/verify-spending/*.png.
 */

const SHOTS = "verify-spending";
const env = browserAndAppForFile({ env: { SANDBOX_KEY: "sbx_payg_demo" } });
const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });
const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent();

describe("verification under the team's caps and approvals, in the browser", () => {
  it("a check above the threshold waits for an admin and shows its verdict once approved; a batch over a cap is refused in words", async () => {
    const { browser, app } = env;
    const local = proxyClient(app.url);
    expect(
      (await local.post("/api/team/people", { name: "ada", role: "admin", password: PASSWORD("ada") }))
        .status,
    ).toBe(201);
    const adaApi = await signInByApi(app.url, "ada");
    expect(
      (await adaApi.post("/api/team/people", { name: "bo", role: "buyer", password: PASSWORD("bo") })).status,
    ).toBe(201);
    const caps = (monthlyCap: number | null, approvalThreshold: number | null) =>
      adaApi.call("PUT", "/api/spending/caps", { people: [{ name: "bo", monthlyCap, approvalThreshold }] });
    expect((await caps(null, 0)).status).toBe(200);

    const bo = await openPage(browser, { width: 1440, height: 900 });
    const admin = await openPage(browser, { width: 1440, height: 900 });
    try {
      await bo.page.goto(`${app.url}/verify`);
      await signInOnPage(bo.page, "bo");
      await poll(() => heading(bo.page)).toBe("Verify");
      const single = bo.page.getByRole("region", { name: "Verify one address" });
      await single.getByLabel("Email address").fill("info@example.com");
      await single.getByRole("button", { name: "Verify", exact: true }).click();
      const notice = single.locator("[data-spend=approval]");
      await poll(() => notice.textContent()).toMatch(/Sent for approval.*may cost up to 1 credit/);
      expect(await single.getByTestId("verify-result").count()).toBe(0);
      await shot(bo.page, "01-check-sent-for-approval");

      // ada approves it (on the Spending page): it runs once, for bo.
      await admin.page.goto(`${app.url}/spending`);
      await signInOnPage(admin.page, "ada");
      const waiting = admin.page.getByRole("list", { name: "Waiting for approval" });
      const request = waiting.getByTestId("approval").filter({ hasText: "info@example.com" });
      await poll(() => request.count()).toBe(1);
      expect(await request.textContent()).toMatch(/Email verification: info@example\.com/);
      await request.getByRole("button", { name: "Approve the request of bo" }).click();
      await poll(() => admin.page.getByRole("list", { name: "Decided requests" }).textContent()).toMatch(
        /Approved and bought by ada.*Ran: 1 credit charged\./,
      );
      const approvals = approvalsAnswer.parse((await adaApi.get("/api/approvals")).body);
      expect(approvals.approvals.filter((a) => a.state === "ran")).toHaveLength(1);

      // bo's screen follows the request and shows the verdict (the proxy's replay: charged once).
      const result = single.getByTestId("verify-result");
      await poll(() => result.isVisible()).toBe(true);
      expect(await result.textContent()).toContain("Invalid");
      await shot(bo.page, "02-check-approved-verdict");

      // A monthly cap of 2 (1 already spent): a batch of 12 is refused before anything is sent.
      expect((await caps(2, null)).status).toBe(200);
      const batch = bo.page.getByRole("region", { name: "Verify a list as a batch job" });
      const twelve = Array.from({ length: 12 }, (_, i) => `lead${i}@example.com`).join("\n");
      await batch.getByLabel("Addresses", { exact: true }).fill(twelve);
      await batch.getByRole("button", { name: "Review and start" }).click();
      await batch.getByRole("button", { name: "Start verification job" }).click();
      await poll(() => batch.getByRole("alert").first().textContent()).toMatch(
        /may cost up to 12 credits; your monthly cap is 2 and 1 is already spent this month, so 1 is left\. Nothing was sent\./,
      );
      await shot(bo.page, "03-batch-refused-by-cap");

      // The ledger says what was bought, in words.
      await admin.page.reload();
      const ledger = admin.page.getByRole("region", { name: "Ledger entries" });
      await poll(async () => (await ledger.locator("tbody tr").allTextContents()).join("\n")).toMatch(
        /bo\s*Email verification\s*info@example\.com/,
      );
      expect(await admin.page.locator("main").textContent()).not.toMatch(/verifyV2|batchV2|CAP_REACHED/);
      await shot(admin.page, "04-ledger-email-verification");
      expectCleanBut(bo.log);
      expectCleanBut(admin.log);
    } finally {
      await bo.context.close();
      await admin.context.close();
    }
  }, 120_000);
});
