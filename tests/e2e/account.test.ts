import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cspViolations,
  DEMO_KEYS,
  launchBrowser,
  openPage,
  type PageLog,
  poll,
  type RunningApp,
  screenshot,
  startApp,
  until,
} from "../support/browser";

/**
 * The Account screen in Chromium: plan, balance and its dollar value, today's limits (the View
 * budget unknown until the Builder's first sample, then the sample's own number), the connection,
 * and key rotation behind a confirm dialog (Escape cancels; confirm rotates, the new last four show,
 * the header's credits still load). A view-only key's refusal is explained.
 * Screenshots: test-artifacts/account/*.png at 1280 and 768 px.
 */

const SHOTS = "account";

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
const main = (page: Page) => page.locator("main");
const card = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true });
const dialogOpen = (page: Page) => page.evaluate(() => document.querySelector("dialog")?.open ?? false);
const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
const apiPaths = (log: PageLog) => log.exchanges.map((e) => new URL(e.url).pathname);

function expectClean(log: PageLog, allowed: RegExp | null = null) {
  expect(log.problems().filter((line) => !allowed?.test(line))).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

/** Opens the Account page and waits for the balance. */
async function openAccount(page: Page) {
  await page.goto(`${app.url}/account`);
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Account");
  await poll(() => main(page).getByTestId("balance").textContent()).toBe("10,000 credits");
}

describe("the Account screen (sandbox, PAYG demo key)", () => {
  it("shows plan, balance and limits; the View budget appears after a sample in the Builder", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openAccount(page);
      const balance = card(page, "Balance");
      expect(await balance.getByTestId("plan").textContent()).toBe("Pay as you go");
      expect(await balance.textContent()).toMatch(
        /About \$27\.00 at the public price of \$0\.0027 per credit/,
      );
      expect(await balance.textContent()).toMatch(/Pay as you go/);

      const limits = card(page, "Today's limits");
      expect(await limits.getByTestId("view-budget").textContent()).toMatch(
        /Not known yet today — it is shown after the first sample\./,
      );
      await poll(() => limits.getByTestId("rate-limit").textContent()).toMatch(
        /[\d,]+ of [\d,]+ requests left this minute/,
      );
      expect(await limits.getByTestId("rate-limit").textContent()).toMatch(/queues its own calls/);

      const connection = card(page, "Connection");
      expect(await connection.textContent()).toMatch(/Sandbox \(synthetic data\)/);
      expect(await connection.getByTestId("key-last4").textContent()).toBe("…demo");
      // Nothing of the page spent View budget: no View was sent.
      expect(apiPaths(log)).not.toContain("/api/v2/contact/view");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      await shot(page, "account-1280-before-sample");

      // A sample in the Builder; its own meter says what is left.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Builder" }).click();
      const meter = await until(
        () => page.locator(".budget-meter-text").textContent(),
        (text) => /sample rows left today/.test(text ?? ""),
        { what: "the Builder's sample budget" },
      );
      const left = /^([\d,]+) of/.exec(meter ?? "")?.[1];
      expect(left).toBeDefined();

      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
      await poll(() => limits.getByTestId("view-budget").textContent()).toMatch(
        new RegExp(`${left} of 100,000 sample rows left today`),
      );
      expect(await limits.getByTestId("view-budget").textContent()).toMatch(
        /Resets at .+ your time \(midnight UTC\)/,
      );
      expect(await limits.getByRole("meter").getAttribute("value")).toBe(left!.replace(/,/g, ""));
      // The Account page read it from the proxy: exactly one View was ever sent (the Builder's).
      expect(apiPaths(log).filter((p) => p === "/api/v2/contact/view")).toHaveLength(1);
      await shot(page, "account-1280");
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("rotates the key only after the confirm: Escape cancels, confirm shows the new last four", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await openAccount(page);
      const rotateCard = card(page, "Key rotation");
      const opener = rotateCard.getByRole("button", { name: "Rotate API key…" });

      // First a cancel with Escape: the dialog closes, focus returns, nothing is sent.
      await opener.click();
      expect(await dialogOpen(page)).toBe(true);
      const dialog = page.getByRole("dialog", { name: "Rotate the API key?" });
      expect(await dialog.textContent()).toMatch(/stops working at once/);
      expect(await dialog.textContent()).toMatch(/switches to the new key by itself/);
      expect(await dialog.textContent()).toMatch(/carry over/);
      expect(await focused(page)).toBe("Cancel");
      await shot(page, "rotate-confirm-1280");
      await page.keyboard.press("Escape");
      await poll(() => dialogOpen(page)).toBe(false);
      expect(await focused(page)).toBe("Rotate API key…");
      // The Cancel button closes it too.
      await opener.click();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await poll(() => dialogOpen(page)).toBe(false);
      await log.settle();
      expect(apiPaths(log).filter((p) => p.includes("api-key"))).toEqual([]);
      expect(await card(page, "Connection").getByTestId("key-last4").textContent()).toBe("…demo");

      // Then the confirm.
      await opener.click();
      await dialog.getByRole("button", { name: "Rotate the key" }).click();
      await poll(() => rotateCard.getByRole("status").textContent()).toMatch(
        /^Rotated: the key now ends in …\S{4}\.$/,
      );
      expect(await dialogOpen(page)).toBe(false);
      const stored = (
        JSON.parse(await readFile(path.join(app.proxy.dataDir, "api-key"), "utf8")) as { key: string }
      ).key;
      const last4 = stored.slice(-4);
      expect(await rotateCard.getByRole("status").textContent()).toBe(
        `Rotated: the key now ends in …${last4}.`,
      );
      await poll(() => card(page, "Connection").getByTestId("key-last4").textContent()).toBe(`…${last4}`);

      await log.settle();
      const rotation = log.exchanges.filter(
        (e) => new URL(e.url).pathname === "/api/v2/account/api-keys/rotate",
      );
      expect(rotation).toHaveLength(1);
      expect(rotation[0]!.status).toBe(200);
      expect(rotation[0]!.requestHeaders["idempotency-key"]).toMatch(/^[\w-]{8,128}$/);
      // The balance was asked again with the new key, and the header still shows the credits.
      const creditCalls = log.exchanges.filter((e) => new URL(e.url).pathname === "/api/v2/credits");
      expect(creditCalls.at(-1)!.status).toBe(200);
      expect(log.exchanges.indexOf(creditCalls.at(-1)!)).toBeGreaterThan(log.exchanges.indexOf(rotation[0]!));
      await poll(() => page.locator("header.header").getByText("10,000 credits").isVisible()).toBe(true);
      await shot(page, "account-rotated-1280");

      // A reload: everything loads with the new key.
      await openAccount(page);
      expect(await card(page, "Connection").getByTestId("key-last4").textContent()).toBe(`…${last4}`);

      // Neither key ever reached the browser.
      await log.settle();
      const everything = log.exchanges
        .map((e) => `${JSON.stringify(e.responseHeaders)}\n${e.body}`)
        .join("\n")
        .toLowerCase();
      for (const secret of [stored, ...DEMO_KEYS]) expect(everything).not.toContain(secret.toLowerCase());
      expectClean(log);
    } finally {
      await context.close();
    }
  });

  it("works at 768 px", async () => {
    const { context, page, log } = await openPage(browser, { width: 768, height: 1024 });
    try {
      await openAccount(page);
      await poll(() => card(page, "Today's limits").getByTestId("rate-limit").textContent()).toMatch(
        /left this minute/,
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
      // One column: the cards are stacked, each as wide as the content.
      const boxes = await page
        .locator(".account-grid > .card")
        .evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().left));
      expect(new Set(boxes.map(Math.round)).size).toBe(1);
      await shot(page, "account-768");
      await card(page, "Key rotation").getByRole("button", { name: "Rotate API key…" }).click();
      const dialog = page.getByRole("dialog", { name: "Rotate the API key?" });
      const box = await dialog.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(768);
      await shot(page, "rotate-confirm-768");
      await page.keyboard.press("Escape");
      await poll(() => dialogOpen(page)).toBe(false);
      await log.settle();
      expectClean(log);
    } finally {
      await context.close();
    }
  });
});

describe("a view-only key", () => {
  let viewOnly: RunningApp;
  beforeAll(async () => {
    viewOnly = await startApp({ env: { SANDBOX_KEY: "sbx_viewonly_demo" } });
  });
  afterAll(async () => {
    await viewOnly?.close();
  });

  it("is refused rotation (403), explained in the dialog; the key stays", async () => {
    const { context, page, log } = await openPage(browser);
    try {
      await page.goto(`${viewOnly.url}/account`);
      await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Account");
      await card(page, "Key rotation").getByRole("button", { name: "Rotate API key…" }).click();
      const dialog = page.getByRole("dialog", { name: "Rotate the API key?" });
      await dialog.getByRole("button", { name: "Rotate the key" }).click();
      await poll(() => dialog.getByRole("alert").textContent()).toMatch(
        /The key was not rotated: this API key may not rotate itself \(a view-only key cannot\)\. The current key still works\./,
      );
      // Trying again would be refused again: only a way out, and focus on it.
      expect(await dialog.getByRole("button").allTextContents()).toEqual(["Close"]);
      expect(await focused(page)).toBe("Close");
      await shot(page, "rotate-refused-1280");
      await page.keyboard.press("Escape");
      await poll(() => dialogOpen(page)).toBe(false);
      expect(await card(page, "Connection").getByTestId("key-last4").textContent()).toBe("…demo");
      await log.settle();
      // Chromium logs every non-2xx fetch; the 403 is the expected answer here.
      expectClean(log, /Failed to load resource: the server responded with a status of 403/);
    } finally {
      await context.close();
    }
  });
});
