import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/server/team/passwords";
import {
  browserAndAppForFile,
  type OpenedPage,
  openPage,
  poll,
  type RunningApp,
  screenshot,
  startApp,
} from "../support/browser";
import { GERMANY, urlWithAudience } from "./checkout-support";
import { expectCleanBut, signInOnPage } from "./team-support";

/**
 * People and roles in Chromium, from `npm start`'s zero set-up (local mode: one local person, the
 * admin): the first admin is added on the Team page, which then asks everyone to sign in; the admin
 * adds a buyer and an analyst. The analyst's Checkout says first that buying needs a buyer, the
 * Confirm stays off and nothing is charged (the proxy refuses a spend sent anyway with a 403); the
 * buyer exports a file, which the history shows as theirs. The admin changes the analyst's role and
 * removes the buyer: each one's session ends at once. The audit list says all of it in sentences.
 * Screenshots: test-artifacts/team/*.png.
 */

const SHOTS = "team";
const env = browserAndAppForFile({ env: { SANDBOX_KEY: "sbx_payg_demo" } });
const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });
const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent();
const header = (page: Page) => page.locator("header.header");
const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });
const people = (page: Page) => page.getByRole("region", { name: "People" });
const personRow = (page: Page, name: string) => people(page).locator(`tr[data-person="${name}"]`);

const PASSWORDS = { ada: "ada-admin-pass", bo: "bo-buyer-pass", cy: "cy-analyst-pass" } as const;

/** Problems the page logged, but for the refusals this test provokes on purpose. */

/** The balance, read by a signed-in page through the proxy (no spend). */
async function balance(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const answer = await fetch("/api/v2/credits", { headers: { "x-csrf": "1" } });
    return ((await answer.json()) as { credits: number }).credits;
  });
}

async function addPerson(page: Page, name: keyof typeof PASSWORDS, role: "Buyer" | "Analyst") {
  const form = page.getByRole("form", { name: "Add a person" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Role").selectOption(role.toLowerCase());
  await form.getByLabel("First password").fill(PASSWORDS[name]);
  await form.getByRole("button", { name: "Add to the team" }).click();
  await poll(() => personRow(page, name).locator(".team-role").textContent()).toBe(role);
  expect(await personRow(page, name).textContent()).toMatch(/Added by ada/);
}

describe("a team: people, roles and what each may do", () => {
  it("an admin adds a buyer and an analyst; the analyst cannot buy, the buyer can; role changes and removals end sessions at once; the audit list tells it", async () => {
    const { browser, app } = env;
    const opened: OpenedPage[] = [];
    const open = async () => {
      const one = await openPage(browser);
      opened.push(one);
      return one;
    };
    try {
      // ---- Local mode: the one local person adds the first admin, then everyone signs in.
      const admin = await open();
      await admin.page.goto(`${app.url}/team`);
      await poll(() => heading(admin.page)).toBe("Team");
      const first = admin.page.getByRole("region", { name: "Nobody signs in yet" });
      expect(await first.textContent()).toMatch(/everyone signs in from then on, you included/);
      // The first person must be an admin: the other roles cannot be picked.
      const firstForm = admin.page.getByRole("form", { name: "Add the first admin" });
      expect(await firstForm.getByLabel("Role").inputValue()).toBe("admin");
      // Plain-words errors, from the contract's own schemas, before anything is sent.
      await firstForm.getByLabel("Name").fill("ada lovelace");
      await firstForm.getByLabel("First password").fill("short");
      await firstForm.getByRole("button", { name: "Add the first admin" }).click();
      await poll(() => firstForm.getByRole("alert").allTextContents()).toEqual([
        "Use 1 to 64 letters, digits, dots, dashes, underscores or @.",
        "Use a password of at least 8 characters.",
      ]);
      await shot(admin.page, "team-01-local-mode-first-admin");
      await firstForm.getByLabel("Name").fill("ada");
      await firstForm.getByLabel("First password").fill(PASSWORDS.ada);
      await firstForm.getByRole("button", { name: "Add the first admin" }).click();
      await signInOnPage(admin.page, "ada", PASSWORDS.ada);
      await poll(() => heading(admin.page)).toBe("Team");
      expect(await header(admin.page).getByTestId("header-role").textContent()).toMatch(/Admin$/);
      expect(await nav(admin.page).getByRole("link", { name: "Team" }).isVisible()).toBe(true);

      // ---- The admin adds a buyer and an analyst.
      await addPerson(admin.page, "bo", "Buyer");
      await addPerson(admin.page, "cy", "Analyst");
      // A taken name is explained.
      const form = admin.page.getByRole("form", { name: "Add a person" });
      await form.getByLabel("Name").fill("cy");
      await form.getByLabel("First password").fill("another-password");
      await form.getByRole("button", { name: "Add to the team" }).click();
      await poll(() => form.getByRole("alert").textContent()).toMatch(
        /The person was not added: someone called cy is on the team already/,
      );
      await form.getByLabel("Name").fill("");
      await form.getByLabel("First password").fill("");
      // The last admin cannot stop being one.
      await personRow(admin.page, "ada").getByRole("button", { name: "Change role of ada" }).click();
      await personRow(admin.page, "ada").getByLabel("New role for ada").selectOption("buyer");
      await personRow(admin.page, "ada").getByRole("button", { name: "Make ada buyer" }).click();
      await poll(() => personRow(admin.page, "ada").getByRole("alert").textContent()).toMatch(
        /ada is the team's only admin/,
      );
      await personRow(admin.page, "ada").getByRole("button", { name: "Cancel" }).click();

      // ---- The buyer exports a file: bought once, and the history says who made it.
      const buyer = await open();
      await buyer.page.goto(urlWithAudience(app, GERMANY, "/checkout"));
      await signInOnPage(buyer.page, "bo", PASSWORDS.bo);
      await poll(() => heading(buyer.page)).toBe("Checkout");
      expect(await buyer.page.getByTestId("role-notice").count()).toBe(0);
      expect(await nav(buyer.page).getByRole("link", { name: "Team" }).count()).toBe(0);
      const exportTab = buyer.page.getByRole("tabpanel", { name: "Export a file" });
      await poll(() => buyer.page.getByTestId("audience-count").textContent()).toMatch(/^\d{1,3}(,\d{3})*$/);
      await exportTab.getByRole("spinbutton", { name: "Most rows" }).fill("5");
      await exportTab.getByRole("textbox", { name: /File name/ }).fill("bo's five");
      const before = await balance(buyer.page);
      await exportTab.getByRole("button", { name: "Estimate" }).click();
      const download = buyer.page.waitForEvent("download", { timeout: 30_000 });
      await exportTab.getByRole("button", { name: "Confirm and export 5 rows" }).click();
      await download;
      const history = buyer.page.getByRole("region", { name: "Export history" });
      await history.getByRole("button", { name: "Refresh" }).click();
      await poll(() => history.getByTestId("export-by").allTextContents()).toEqual(["bo"]);
      const spent = before - (await balance(buyer.page));
      expect(spent).toBeGreaterThan(0);
      // A verification job the buyer starts is listed as theirs too.
      await nav(buyer.page).getByRole("link", { name: "Verify" }).click();
      await poll(() => heading(buyer.page)).toBe("Verify");
      const batch = buyer.page.getByRole("region", { name: "Verify a list as a batch job" });
      await batch
        .getByLabel("Addresses", { exact: true })
        .fill(Array.from({ length: 10 }, (_, i) => `person${i}@example.com`).join("\n"));
      await batch.getByRole("button", { name: "Review and start" }).click();
      await batch.getByRole("button", { name: "Start verification job" }).click();
      const job = buyer.page.getByRole("region", { name: "Batch jobs" }).locator("li.job-row");
      await poll(() => job.getByTestId("job-starter").textContent()).toMatch(/^Started by you/);
      // Finished before the analyst's turn, so the balance moves no more behind the checks below.
      await poll(() => job.getAttribute("data-status"), 45_000).toBe("COMPLETED");
      expect(await job.getByRole("button", { name: "Download results (CSV)" }).isEnabled()).toBe(true);
      await shot(buyer.page, "team-08-buyer-verification-job");

      // ---- The analyst: Checkout says first that buying needs a buyer; nothing can be bought.
      const analyst = await open();
      await analyst.page.goto(urlWithAudience(app, GERMANY, "/checkout"));
      await signInOnPage(analyst.page, "cy", PASSWORDS.cy);
      await poll(() => heading(analyst.page)).toBe("Checkout");
      expect(await header(analyst.page).getByTestId("header-role").textContent()).toMatch(/Analyst$/);
      expect(await nav(analyst.page).getByRole("link", { name: "Team" }).count()).toBe(0);
      const notice = analyst.page.getByTestId("role-notice");
      await poll(() => notice.textContent()).toMatch(
        /Your role is analyst: nothing can be bought here\. You can build, count, sample and share audiences\. Buying contacts needs a buyer or an admin: ask an admin of your team\./,
      );
      // The notice comes before the audience and the forms.
      const noticeTop = (await notice.boundingBox())!.y;
      const summaryTop = (await analyst.page.getByTestId("audience-count").boundingBox())!.y;
      expect(noticeTop).toBeLessThan(summaryTop);
      const analystExport = analyst.page.getByRole("tabpanel", { name: "Export a file" });
      await poll(() => analyst.page.getByTestId("audience-count").textContent()).toMatch(/^\d/);
      await analystExport.getByRole("spinbutton", { name: "Most rows" }).fill("5");
      const analystBefore = await balance(analyst.page);
      // Estimating is free and stays available; Confirm is off, with the reason.
      await analystExport.getByRole("button", { name: "Estimate" }).click();
      const confirm = analystExport.getByRole("button", { name: "Confirm and export 5 rows" });
      await poll(() => confirm.isVisible()).toBe(true);
      expect(await confirm.isDisabled()).toBe(true);
      expect(
        await analystExport
          .getByRole("region", { name: "Confirm the export" })
          .getByRole("alert")
          .textContent(),
      ).toMatch(/needs a buyer or an admin/);
      // bo's file is listed as bo's, and cannot be downloaded by an analyst.
      const analystHistory = analyst.page.getByRole("region", { name: "Export history" });
      await poll(() => analystHistory.getByTestId("export-by").allTextContents()).toEqual(["bo"]);
      expect(await analystHistory.getByRole("button", { name: /^Download/ }).count()).toBe(0);
      expect(await analystHistory.textContent()).toMatch(/Buyers and admins download/);
      await shot(analyst.page, "team-03-analyst-checkout");
      // A spend sent anyway is refused by the proxy, in words, before anything reaches the service.
      const refused = await analyst.page.evaluate(async (filter) => {
        const answer = await fetch("/api/v2/contact/preview", {
          method: "POST",
          headers: { "x-csrf": "1", "content-type": "application/json", "idempotency-key": "analyst-try-1" },
          body: JSON.stringify({ filter, limit: 1, reveal: "email" }),
        });
        return { status: answer.status, body: (await answer.json()) as { code?: string; detail?: string } };
      }, GERMANY);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("ROLE_REQUIRED");
      expect(await balance(analyst.page)).toBe(analystBefore);
      // Verify says the same, and its Verify button is off.
      await nav(analyst.page).getByRole("link", { name: "Verify" }).click();
      await poll(() => analyst.page.getByTestId("role-notice").textContent()).toMatch(
        /Your role is analyst: addresses cannot be verified here\./,
      );
      expect(
        await analyst.page
          .getByRole("region", { name: "Verify one address" })
          .getByRole("button", { name: "Verify", exact: true })
          .isDisabled(),
      ).toBe(true);
      // Account: key rotation is for admins, and the page says so.
      await nav(analyst.page).getByRole("link", { name: "Account" }).click();
      await poll(() => analyst.page.getByTestId("rotate-who").textContent()).toMatch(
        /Rotating the team's API key needs an admin/,
      );
      expect(await analyst.page.getByRole("button", { name: "Rotate API key…" }).isDisabled()).toBe(true);

      // ---- The admin's Team page: the three people, who added them and when.
      await admin.page.reload();
      await poll(() => people(admin.page).locator("tbody tr").count()).toBe(3);
      await shot(admin.page, "team-02-people");

      // ---- The admin makes the analyst a buyer: cy's session ends at once.
      const cyRow = personRow(admin.page, "cy");
      await cyRow.getByRole("button", { name: "Change role of cy" }).click();
      expect(await cyRow.textContent()).toMatch(/This signs cy out at once, on every device/);
      await cyRow.getByLabel("New role for cy").selectOption("buyer");
      await cyRow.getByRole("button", { name: "Make cy buyer" }).click();
      await poll(() => cyRow.locator(".team-role").textContent()).toBe("Buyer");
      await analyst.page.reload();
      await poll(() => heading(analyst.page)).toBe("Sign in");
      await signInOnPage(analyst.page, "cy", PASSWORDS.cy);
      await analyst.page.goto(urlWithAudience(app, GERMANY, "/checkout"));
      await poll(() => heading(analyst.page)).toBe("Checkout");
      expect(await header(analyst.page).getByTestId("header-role").textContent()).toMatch(/Buyer$/);
      expect(await analyst.page.getByTestId("role-notice").count()).toBe(0);

      // ---- The admin removes the buyer, after a confirmation that says what it does.
      const boRow = personRow(admin.page, "bo");
      await boRow.getByRole("button", { name: "Remove bo" }).click();
      expect(await boRow.textContent()).toMatch(/This ends their sessions at once/);
      expect(await boRow.textContent()).toMatch(
        /The audiences they saved, private and shared, pass to you\./,
      );
      await shot(admin.page, "team-04-remove-confirm");
      await boRow.getByRole("button", { name: "Yes, remove bo" }).click();
      await poll(() => personRow(admin.page, "bo").count()).toBe(0);
      expect(await people(admin.page).textContent()).toMatch(/bo was removed from the team and signed out/);
      // bo's open page loses its session at once: its next call is refused, and it asks for a sign-in.
      const status = await buyer.page.evaluate(
        async () => (await fetch("/api/session", { headers: { "x-csrf": "1" } })).status,
      );
      expect(status).toBe(401);
      await buyer.page.reload();
      await poll(() => heading(buyer.page)).toBe("Sign in");
      await buyer.page.getByLabel("Name").fill("bo");
      await buyer.page.getByLabel("Password").fill(PASSWORDS.bo);
      await buyer.page.getByRole("button", { name: "Sign in" }).click();
      await poll(() => buyer.page.getByRole("alert").textContent()).toMatch(/do not match/);

      // ---- The audit list tells it, newest first, in sentences.
      const audit = admin.page.getByRole("region", { name: "Audit" });
      await audit.getByRole("button", { name: "Refresh" }).click();
      await poll(() => audit.locator(".team-audit-what").allTextContents()).toEqual([
        expect.stringMatching(/^ada removed bo from the team/),
        expect.stringMatching(/^ada changed the role of cy/),
        expect.stringMatching(/^ada added cy to the team/),
        expect.stringMatching(/^ada added bo to the team/),
        expect.stringMatching(/^The local admin added ada to the team\. Added as admin\.$/),
      ]);
      await shot(admin.page, "team-05-audit");
      // At 768 px nothing sticks out of the page.
      await admin.page.setViewportSize({ width: 768, height: 1024 });
      await poll(() => admin.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        768,
      );
      await shot(admin.page, "team-06-768");

      for (const one of opened) await one.log.settle();
      expectCleanBut(admin.log, [/status of 409/]);
      expectCleanBut(analyst.log);
      expectCleanBut(buyer.log);
    } finally {
      for (const one of opened) await one.context.close();
    }
  }, 180_000);
});

describe("people of the users file", () => {
  let guarded: RunningApp;
  let usersDir: string;

  beforeAll(async () => {
    usersDir = await mkdtemp(path.join(os.tmpdir(), "ab-team-users-"));
    const usersFile = path.join(usersDir, "users.txt");
    await writeFile(
      usersFile,
      `ops:admin:${await hashPassword("ops-admin-pass")}\nan:analyst:${await hashPassword("an-analyst-pass")}\n`,
    );
    guarded = await startApp({ env: { USERS_FILE: usersFile }, sandbox: env.app.sandbox });
  });

  afterAll(async () => {
    await guarded?.close();
    if (usersDir) await rm(usersDir, { recursive: true, force: true });
  });

  it("are listed with their file role and no buttons; an analyst reaching /team reads why not", async () => {
    const admin = await openPage(env.browser);
    const analyst = await openPage(env.browser);
    try {
      await admin.page.goto(`${guarded.url}/team`);
      await poll(() => heading(admin.page)).toBe("Sign in");
      await admin.page.getByLabel("Name").fill("ops");
      await admin.page.getByLabel("Password").fill("ops-admin-pass");
      await admin.page.getByRole("button", { name: "Sign in" }).click();
      await poll(() => heading(admin.page)).toBe("Team");
      await poll(() => people(admin.page).locator("tbody tr").count()).toBe(2);
      const an = personRow(admin.page, "an");
      expect(await an.locator(".team-role").textContent()).toBe("Analyst");
      expect(await an.textContent()).toMatch(/Listed in the users file/);
      expect(await an.textContent()).toMatch(/Changed in the server's users file, not here/);
      expect(await an.getByRole("button").count()).toBe(0);
      await shot(admin.page, "team-07-users-file");

      // An analyst of the file: no Team in the navigation, and the address says why.
      await analyst.page.goto(`${guarded.url}/team`);
      await poll(() => heading(analyst.page)).toBe("Sign in");
      await analyst.page.getByLabel("Name").fill("an");
      await analyst.page.getByLabel("Password").fill("an-analyst-pass");
      await analyst.page.getByRole("button", { name: "Sign in" }).click();
      await poll(() => heading(analyst.page)).toBe("Team");
      expect(await nav(analyst.page).getByRole("link", { name: "Team" }).count()).toBe(0);
      expect(await analyst.page.locator("main").textContent()).toMatch(
        /Adding people and changing their roles needs an admin: ask an admin of your team\./,
      );
      expect(await analyst.page.getByRole("region", { name: "People" }).count()).toBe(0);
      await admin.log.settle();
      await analyst.log.settle();
      expectCleanBut(admin.log);
      expectCleanBut(analyst.log);
    } finally {
      await admin.context.close();
      await analyst.context.close();
    }
  });
});
