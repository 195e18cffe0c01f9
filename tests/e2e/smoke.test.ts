import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/server/team/passwords";
import {
  cspViolations,
  launchBrowser,
  type PageLog,
  type RunningApp,
  screenshot,
  startApp,
  watchPage,
} from "../support/browser";

/** The pages of the shell, in navigation order, with the heading each one shows. */
const PAGES = [
  { label: "Builder", path: "/", heading: "Builder" },
  { label: "Checkout", path: "/checkout", heading: "Checkout" },
  { label: "Insights", path: "/insights", heading: "Insights" },
  { label: "Companies", path: "/companies", heading: "Companies" },
  { label: "Verify", path: "/verify", heading: "Verify" },
  // Everyone signed in; the do-not-contact lists are its tab, not an entry of their own.
  { label: "Spending", path: "/spending", heading: "Spending" },
  // Shown to admins only; with nobody to sign in, the one local person is the admin.
  { label: "Team", path: "/team", heading: "Team" },
  { label: "Account", path: "/account", heading: "Account" },
] as const;

let browser: Browser;
let app: RunningApp;

beforeAll(async () => {
  [browser, app] = await Promise.all([launchBrowser(), startApp()]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function openPage(width = 1280): Promise<{ context: BrowserContext; page: Page; log: PageLog }> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  // Fail fast with Playwright's own message rather than at the test's timeout.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  return { context, page, log: watchPage(page) };
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

describe("the app shell in Chromium (sandbox, PAYG demo key)", () => {
  it("loads, shows Sandbox, the plan and the credits, navigates to every page, with a clean console", async () => {
    const { context, page, log } = await openPage();
    try {
      await page.goto(app.url);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");

      const header = page.locator("header.header");
      await expect.poll(() => header.getByText("10,000 credits").isVisible()).toBe(true);
      expect(await header.getByText("Sandbox", { exact: true }).isVisible()).toBe(true);
      const plan = header.locator(".badge-plan");
      expect(await plan.isVisible()).toBe(true);
      expect(await plan.textContent()).toBe("Plan: Pay as you go");
      // The sandbox badge explains itself: its tooltip opens on keyboard focus (and hover).
      expect(await page.getByRole("tooltip").count()).toBe(0);
      await header.getByText("Sandbox", { exact: true }).focus();
      expect(await page.getByRole("tooltip").textContent()).toMatch(/data is synthetic/);
      await screenshot(page, "app-shell", "sandbox-tooltip");
      expect(await page.title()).toBe("Builder · Audience Builder");

      const nav = page.getByRole("navigation", { name: "Main" });
      for (const target of PAGES) {
        await nav.getByRole("link", { name: target.label, exact: true }).click();
        await expect.poll(() => pathOf(page)).toBe(target.path);
        await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(target.heading);
        const current = nav.locator('[aria-current="page"]');
        expect(await current.count()).toBe(1);
        expect(await current.textContent()).toBe(target.label);
        expect(await page.title()).toBe(`${target.heading} · Audience Builder`);
        if (target.path === "/account") {
          await expect.poll(() => page.locator("main").getByText("10,000 credits").isVisible()).toBe(true);
          expect(await page.locator("main").getByText("…demo").isVisible()).toBe(true);
        }
        await screenshot(page, "app-shell", `${target.label.toLowerCase()}-1280`);
      }

      await log.settle();
      expect(log.problems()).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
      // Every call to the proxy carried the CSRF header, and nothing left the origin.
      const origin = new URL(app.url).origin;
      for (const exchange of log.exchanges) {
        expect(new URL(exchange.url).origin).toBe(origin);
        if (new URL(exchange.url).pathname.startsWith("/api/"))
          expect(exchange.requestHeaders["x-csrf"]).toBe("1");
      }
      // Each screen came as its own lazily loaded chunk.
      const chunks = log.exchanges
        .map((e) => new URL(e.url).pathname)
        .filter((p) => /-page-[\w-]+\.js$/.test(p));
      expect(chunks.length).toBe(PAGES.length);
    } finally {
      await context.close();
    }
  });

  it("is usable from the keyboard: skip link, nav links in tab order, Enter navigates", async () => {
    const { context, page, log } = await openPage();
    try {
      await page.goto(`${app.url}/verify`);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Verify");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
      const reached: string[] = [];
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press("Tab");
        const text = await page.evaluate(() => document.activeElement?.textContent ?? "");
        reached.push(text);
        if (text === "Insights") break;
      }
      expect(reached).toContain("Builder");
      expect(reached.at(-1)).toBe("Insights");
      await page.keyboard.press("Enter");
      await expect.poll(() => pathOf(page)).toBe("/insights");
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Insights");
      // After a client-side navigation, focus moves to the new page's heading.
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
      await log.settle();
      expect(log.problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("deep links load directly, unknown addresses say so, and it is usable at 768 px", async () => {
    const { context, page, log } = await openPage(768);
    try {
      await page.goto(`${app.url}/account`);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Account");
      await expect.poll(() => page.locator("main").getByText("10,000 credits").isVisible()).toBe(true);
      // Nothing overflows sideways at tablet width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      await screenshot(page, "app-shell", "account-768");

      await page.goto(`${app.url}/`);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      await screenshot(page, "app-shell", "builder-768");

      await page.goto(`${app.url}/no-such-page`);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Page not found");
      await log.settle();
      expect(log.problems()).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("sign-in when the server requires it", () => {
  let guarded: RunningApp;
  let usersDir: string;

  beforeAll(async () => {
    usersDir = await mkdtemp(path.join(os.tmpdir(), "ab-users-"));
    const usersFile = path.join(usersDir, "users.txt");
    await writeFile(usersFile, `ada:${await hashPassword("correct horse battery")}\n`);
    guarded = await startApp({ env: { USERS_FILE: usersFile }, sandbox: app.sandbox });
  });

  afterAll(async () => {
    await guarded?.close();
    if (usersDir) await rm(usersDir, { recursive: true, force: true });
  });

  it("asks for a sign-in, explains a wrong password, signs in and out", async () => {
    const { context, page, log } = await openPage();
    try {
      await page.goto(guarded.url);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in");

      await page.getByLabel("Name").fill("ada");
      await page.getByLabel("Password").fill("wrong password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("That name and password do not match.");
      await screenshot(page, "app-shell", "sign-in-error");

      await page.getByLabel("Password").fill("correct horse battery");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const header = page.locator("header.header");
      await expect.poll(() => header.getByText("10,000 credits").isVisible()).toBe(true);
      expect(await header.getByText("ada").isVisible()).toBe(true);
      // A users-file line without a role is an admin (nothing it could do before is lost).
      expect(await header.getByTestId("header-role").textContent()).toMatch(/Admin$/);
      await screenshot(page, "app-shell", "signed-in");

      await header.getByRole("button", { name: "Sign out" }).click();
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in");

      await log.settle();
      // The 401s of /api/session before sign-in, and the refused sign-in, are expected answers;
      // Chromium logs each failed fetch as a console error, and nothing else may appear.
      const unexpected = log
        .problems()
        .filter((line) => !/Failed to load resource: the server responded with a status of 401/.test(line));
      expect(unexpected).toEqual([]);
      expect(cspViolations(log)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
