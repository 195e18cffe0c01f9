import { rm } from "node:fs/promises";
import type { Browser, Locator, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/app";
import { launchBrowser, openPage, poll, type RunningApp, screenshot, startApp } from "../support/browser";
import { startSandbox } from "../support/proxy-server";
import { balanceOf, expectClean, GERMANY, urlWithAudience } from "./checkout-support";

/**
 * The app never sends a purchase again by itself (src/app/lib/spend.ts). A Preview that got no
 * answer, then a reload: Checkout shows it and sends nothing (counted where the sandbox is reached)
 * until "Try again", which carries the same Idempotency-Key. A 503 from the proxy ("nothing sent")
 * reads "Not sent, nothing charged" before and after a reload. A 409 "outcome unknown" says what
 * to check and buys again only after a confirmation, under a NEW key.
 * Screenshots: test-artifacts/spend-no-resend/*.png.
 */

const SHOTS = "spend-no-resend";

/** Every request that reaches the sandbox, by path. */
const reached: string[] = [];
const previewsReached = () => reached.filter((p) => p.endsWith("/contact/preview")).length;

const env = {} as { browser: Browser; app: RunningApp; sandbox: Sandbox; dataDir: string };
beforeAll(async () => {
  const own = await startSandbox();
  const counted: Sandbox = {
    ...own.sandbox,
    fetch: (request) => {
      reached.push(new URL(request.url).pathname);
      return own.sandbox.fetch(request);
    },
  };
  env.sandbox = own.sandbox;
  env.dataDir = own.dataDir;
  [env.browser, env.app] = await Promise.all([launchBrowser(), startApp({ sandbox: counted })]);
});
afterAll(async () => {
  await env.browser?.close();
  await env.app?.close();
  await env.sandbox?.close();
  if (env.dataDir) await rm(env.dataDir, { recursive: true, force: true });
});

async function shot(page: Page, name: string) {
  await screenshot(page, SHOTS, name);
}

const previewPanel = (page: Page) => page.getByRole("tabpanel", { name: "Preview first rows" });

/** Checkout's Preview tab with 5 rows, emails revealed, at its confirm step: returns the confirm button. */
async function reviewPreview(page: Page) {
  await page.getByRole("tab", { name: "Preview first rows" }).click();
  const panel = previewPanel(page);
  await panel.getByRole("spinbutton", { name: "Rows" }).fill("5");
  await panel.getByRole("radio", { name: /^Email 1 credit/ }).check();
  await panel.getByRole("button", { name: "Review the preview" }).click();
  const confirm = panel.getByRole("region", { name: "Confirm the preview" });
  await poll(() => confirm.getByTestId("confirm-cost").textContent()).toMatch(/^10 credits/);
  return confirm.getByRole("button", { name: "Confirm and preview 5" });
}

/** Idempotency-Keys of the previews the page sent, in order. */
function watchPreviewKeys(page: Page): string[] {
  const keys: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/api/v2/contact/preview"))
      keys.push(request.headers()["idempotency-key"] ?? "");
  });
  return keys;
}

const rowsOf = (page: Page) =>
  previewPanel(page).getByRole("region", { name: "Preview rows", exact: true }).locator("tbody tr");

interface AtConfirm {
  app: RunningApp;
  page: Page;
  /** Idempotency-Keys of the previews the page sent, in order. */
  keys: string[];
  confirm: Locator;
  /** The balance and the previews that reached the sandbox, before the confirm. */
  before: number;
  reachedBefore: number;
}

/**
 * A fresh page at the Preview's confirm step; runs `steps`, then checks the page logged nothing
 * beyond `allowed` (the failures the test itself caused).
 */
async function atPreviewConfirm(allowed: RegExp[], steps: (at: AtConfirm) => Promise<void>) {
  const { app } = env;
  const { context, page, log } = await openPage(env.browser, { width: 1280, height: 900 });
  try {
    const keys = watchPreviewKeys(page);
    await page.goto(urlWithAudience(app, GERMANY, "/checkout"));
    const confirm = await reviewPreview(page);
    await steps({ app, page, keys, confirm, before: await balanceOf(app), reachedBefore: previewsReached() });
    await log.settle();
    expectClean(log, allowed);
  } finally {
    await context.close();
  }
}

/** Reloads, opens the Preview tab again, and waits for its notice to say `says`; sends nothing. */
async function reloadTo(page: Page, says: string, at: AtConfirm): Promise<Locator> {
  const sent = at.keys.length;
  await page.reload();
  await page.getByRole("tab", { name: "Preview first rows" }).click();
  const notice = previewPanel(page).getByRole("alert");
  await poll(() => notice.textContent()).toContain(says);
  // Time enough for anything automatic to have gone out: nothing did.
  await page.waitForTimeout(1500);
  expect(at.keys).toHaveLength(sent);
  return notice;
}

/** The proxy's first answer to a preview is this 409 (nothing reaches the sandbox); later ones pass. */
async function first409(page: Page, detail: string, code: string) {
  let answered = 0;
  await page.route("**/api/v2/contact/preview", (route: Route) => {
    answered += 1;
    if (answered > 1) return route.continue();
    return route.fulfill({
      status: 409,
      contentType: "application/json",
      body: JSON.stringify({ detail, code }),
    });
  });
}

/** The rows are shown, the sandbox was reached once for them, and they were charged once. */
async function expectBoughtOnce(at: AtConfirm) {
  await poll(() => rowsOf(at.page).count()).toBe(5);
  expect(previewsReached()).toBe(at.reachedBefore + 1);
  expect(await balanceOf(at.app)).toBe(at.before - 10);
}

describe("a purchase is never sent again without a click", () => {
  it("the proxy unreachable, then a reload: nothing is sent until Try again, which uses the same key", () =>
    atPreviewConfirm([/ERR_CONNECTION_REFUSED/, /net::ERR_FAILED/], async (at) => {
      const { page, keys } = at;
      // The proxy cannot be reached at all.
      await page.route("**/api/v2/contact/preview", (route: Route) => route.abort("connectionrefused"));
      await at.confirm.click();
      const notice = previewPanel(page).getByRole("alert");
      await poll(() => notice.textContent()).toContain(
        "No answer: the preview may or may not have gone through",
      );
      expect(await notice.textContent()).toContain("not sent again by itself");
      await shot(page, "01-no-answer");
      await page.unrouteAll();

      const after = await reloadTo(
        page,
        "The page was closed or reloaded while the preview was on its way",
        at,
      );
      expect(previewsReached()).toBe(at.reachedBefore);
      expect(await balanceOf(at.app)).toBe(at.before);
      await shot(page, "02-no-answer-after-reload");

      await after.getByRole("button", { name: "Try again" }).click();
      await expectBoughtOnce(at);
      expect(keys).toEqual([keys[0], keys[0]]);
    }));

  it("the proxy says it sent nothing (503): 'Not sent, nothing charged', still so after a reload; Send it now uses the same key", () =>
    atPreviewConfirm([/status of 503/], async (at) => {
      const { page, keys } = at;
      await page.route("**/api/v2/contact/preview", (route: Route) =>
        route.fulfill({
          status: 503,
          contentType: "application/json",
          headers: { "retry-after": "30" },
          body: JSON.stringify({
            detail: "Spending is paused: nothing was sent and nothing charged.",
            code: "JOURNAL_UNAVAILABLE",
          }),
        }),
      );
      await at.confirm.click();
      const notice = previewPanel(page).getByRole("alert");
      await poll(() => notice.textContent()).toContain("Not sent, nothing charged");
      expect(await notice.textContent()).toContain("paused spending");
      await shot(page, "03-not-sent");
      await page.unrouteAll();

      const after = await reloadTo(page, "Not sent, nothing charged", at);
      expect(previewsReached()).toBe(at.reachedBefore);
      await shot(page, "04-not-sent-after-reload");

      await after.getByRole("button", { name: "Send it now" }).click();
      await expectBoughtOnce(at);
      expect(keys).toEqual([keys[0], keys[0]]);
    }));

  it("409 outcome unknown: says what to check, never resends; a new purchase only after a confirmation, with a new key", () =>
    atPreviewConfirm([/status of 409/], async (at) => {
      const { page, keys } = at;
      await first409(page, "Whether this purchase was carried out is not known.", "OUTCOME_UNKNOWN");
      await at.confirm.click();
      const notice = previewPanel(page).getByRole("alert");
      await poll(() => notice.textContent()).toContain("We don't know whether the preview went through");
      const text = (await notice.textContent()) ?? "";
      expect(text).toContain("It will not be sent again");
      expect(text).toContain("Before you buy it again, check the balance on the Account page");
      expect(text).not.toMatch(/OUTCOME_UNKNOWN|409|Idempotency/);
      expect(await notice.getByRole("button", { name: /Try again|Send it now/ }).count()).toBe(0);
      await shot(page, "05-outcome-unknown");

      // A reload: still said, still nothing sent.
      const after = await reloadTo(page, "We don't know whether the preview went through", at);
      await after.getByRole("button", { name: "Preview them again…" }).click();
      await poll(() => after.textContent()).toContain("charged a second time");
      // Asking is not buying.
      expect(keys).toHaveLength(1);
      await shot(page, "06-buy-again-confirmation");
      await after.getByRole("button", { name: "Yes, buy it again" }).click();
      // The first (answered by the route) never reached the sandbox; the new purchase did, once.
      await expectBoughtOnce(at);
      expect(keys).toHaveLength(2);
      expect(keys[1]).not.toBe(keys[0]);
      await shot(page, "07-bought-again");
    }));

  it("409 already made (its answer no longer kept): says so, never resends; a new purchase is a new review and a new key", () =>
    atPreviewConfirm([/status of 409/], async (at) => {
      const { page, keys } = at;
      await first409(
        page,
        "This purchase was already made on 2026-10-01 (it is in the ledger), and its answer is no longer kept, so it is not sent again. To buy the same contacts again, start a new purchase.",
        "PURCHASE_ALREADY_MADE",
      );
      await at.confirm.click();
      const notice = previewPanel(page).getByRole("alert");
      await poll(() => notice.textContent()).toContain("Already bought: not sent again");
      const text = (await notice.textContent()) ?? "";
      expect(text).toContain("already made on 2026-10-01");
      expect(text).toContain("Nothing was sent or charged now");
      expect(text).not.toMatch(/PURCHASE_ALREADY_MADE|409|Idempotency/);
      expect(await notice.getByRole("button", { name: /Try again|Send it now/ }).count()).toBe(0);
      await shot(page, "08-already-made");

      await previewPanel(page).getByRole("button", { name: "Change the preview" }).click();
      // Back to the form: nothing sent until the buyer reviews and confirms again, under a new key.
      expect(keys).toHaveLength(1);
      const confirm = await reviewPreview(page);
      await shot(page, "09-new-purchase-review");
      await confirm.click();
      await expectBoughtOnce(at);
      expect(keys).toHaveLength(2);
      expect(keys[1]).not.toBe(keys[0]);
    }));
});
