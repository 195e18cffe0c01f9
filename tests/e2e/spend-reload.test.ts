import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserAndAppForFile, openPage, poll, screenshot } from "../support/browser";

/**
 * A spend whose answer was lost, then the page reloaded: the spend journal (src/app/lib/spend.ts)
 * still holds the request and its Idempotency-Key, the screen says the outcome is not known, and
 * "Try again" sends the SAME key, so the proxy answers with the first answer instead of spending
 * again. The first request really reaches the service (route.fetch) before its answer is dropped.
 * Screenshots: test-artifacts/spend-reload/*.png.
 */

const SHOTS = "spend-reload";

const env = browserAndAppForFile();

interface Dropped {
  key: string;
  answer: unknown;
}

/** Lets the first matching request reach the server, then drops its answer (as a lost connection). */
async function dropFirstAnswer(page: Page, pattern: RegExp): Promise<() => Dropped | null> {
  let dropped: Dropped | null = null;
  await page.route(pattern, async (route: Route) => {
    if (dropped) return route.continue();
    const response = await route.fetch();
    dropped = { key: route.request().headers()["idempotency-key"] ?? "", answer: await response.json() };
    await route.abort("connectionreset");
  });
  return () => dropped;
}

const headerCredits = (page: Page) => page.locator("header.header").textContent();

describe("a spend retried after a reload reuses its key", () => {
  it("Verify: one address, answer lost, reload, Try again: the same key, charged once", async () => {
    const { context, page, log } = await openPage(env.browser, { width: 1280, height: 900 });
    try {
      await page.goto(`${env.app.url}/verify`);
      await poll(() => headerCredits(page)).toContain("10,000 credits");
      const dropped = await dropFirstAnswer(page, /\/api\/v2\/email\/verify\?/);
      const single = page.getByRole("region", { name: "Verify one address" });
      await single.getByLabel("Email address").fill("info@example.com");
      await single.getByRole("button", { name: "Verify" }).click();
      await poll(async () => dropped() !== null).toBe(true);
      await poll(() => single.getByRole("alert").textContent()).toContain(
        "No answer: the check of info@example.com may or may not have gone through",
      );

      await page.unrouteAll();
      await page.reload();
      const notice = single.getByRole("alert");
      await poll(() => notice.textContent()).toContain(
        "No answer: the check of info@example.com may or may not have gone through",
      );
      await screenshot(page, SHOTS, "verify-after-reload");
      const before = log.exchanges.length;
      await notice.getByRole("button", { name: "Try again" }).click();
      await poll(() => single.getByTestId("verify-result").isVisible()).toBe(true);
      expect(await single.getByTestId("verify-result").textContent()).toContain("info@example.com");

      // The page's log records an exchange once its answer has been read: wait for it.
      const retriesOf = () =>
        log.exchanges.slice(before).filter((e) => new URL(e.url).pathname === "/api/v2/email/verify");
      await poll(async () => retriesOf().length).toBe(1);
      const retries = retriesOf();
      expect(retries[0]!.requestHeaders["idempotency-key"]).toBe(dropped()!.key);
      expect(retries[0]!.status).toBe(200);
      // One definite answer, one credit: the first send charged, the retry was the saved answer.
      await poll(() => headerCredits(page)).toContain("9,999 credits");
      await screenshot(page, SHOTS, "verify-retried");
    } finally {
      await context.close();
    }
  });

  it("Key rotation: answer lost, reload, Try again: the same key, rotated once", async () => {
    const { context, page, log } = await openPage(env.browser, { width: 1280, height: 900 });
    try {
      await page.goto(`${env.app.url}/account`);
      const card = page.getByRole("region", { name: "Key rotation", exact: true });
      const dropped = await dropFirstAnswer(page, /\/api\/v2\/account\/api-keys\/rotate$/);
      await card.getByRole("button", { name: "Rotate API key…" }).click();
      const dialog = page.getByRole("dialog", { name: "Rotate the API key?" });
      await dialog.getByRole("button", { name: "Rotate the key" }).click();
      await poll(async () => dropped() !== null).toBe(true);
      // The dialog closes: the card says the rotation waits for a click, and sends nothing by itself.
      await poll(() => card.getByRole("alert").textContent()).toContain(
        "No answer: the key rotation may or may not have gone through",
      );
      expect(await dialog.isVisible()).toBe(false);
      const first = dropped()!.answer as { last4: string };
      expect(first.last4).toMatch(/^\S{4}$/);

      await page.unrouteAll();
      await page.reload();
      const notice = card.getByRole("alert");
      await poll(() => notice.textContent()).toContain(
        "No answer: the key rotation may or may not have gone through",
      );
      await screenshot(page, SHOTS, "rotation-after-reload");
      const before = log.exchanges.length;
      await notice.getByRole("button", { name: "Try the rotation again" }).click();
      await poll(() => card.getByRole("status").textContent()).toBe(
        `Rotated: the key now ends in …${first.last4}.`,
      );

      // The page's log records an exchange once its answer has been read: wait for it.
      const retriesOf = () =>
        log.exchanges
          .slice(before)
          .filter((e) => new URL(e.url).pathname === "/api/v2/account/api-keys/rotate");
      await poll(async () => retriesOf().length).toBe(1);
      const retries = retriesOf();
      expect(retries[0]!.requestHeaders["idempotency-key"]).toBe(dropped()!.key);
      // The key the proxy holds is still the one the first rotation made: it did not rotate twice.
      await page.goto(`${env.app.url}/account`);
      await poll(() => page.getByRole("region", { name: "Connection", exact: true }).textContent()).toContain(
        first.last4,
      );
      await screenshot(page, SHOTS, "rotation-retried");
    } finally {
      await context.close();
    }
  });
});
