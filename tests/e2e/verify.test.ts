import { rm } from "node:fs/promises";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/app";
import {
  cspViolations,
  downloadedText,
  focusState,
  launchBrowser,
  openPage,
  type PageLog,
  type RunningApp,
  screenshot,
  startApp,
  until,
} from "../support/browser";
import { startSandbox } from "../support/proxy-server";

/**
 * The Verify screen in Chromium over the embedded sandbox (PAYG demo key): one address verified
 * and explained; a pasted list of 12 suggests a batch; the batch job is followed by polling to
 * completion and its CSV downloads; an uploaded file's job is cancelled while it runs and shows
 * as cancelled; a reload keeps the jobs. Screenshots: test-artifacts/verify/*.png (1280 and 768).
 */

const SHOTS = "verify";
/** 1.5 addresses a second: a 12-address job runs about 8 s, so polls (every 5 s) see it progress. */
const VERIFY_RATE = 1.5;

let browser: Browser;
let app: RunningApp;
let own: { sandbox: Sandbox; dataDir: string };

beforeAll(async () => {
  own = await startSandbox({ verifyRate: VERIFY_RATE });
  [browser, app] = await Promise.all([launchBrowser(), startApp({ sandbox: own.sandbox })]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await own?.sandbox.close();
  if (own) await rm(own.dataDir, { recursive: true, force: true });
});

function expectClean(log: PageLog) {
  expect(log.problems()).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

const shot = (page: Page, name: string) => screenshot(page, SHOTS, name, { fromTop: true });

/** Pastes `text` into the focused element the way a browser does (a ClipboardEvent with data). */
async function paste(page: Page, target: Locator, text: string) {
  await target.focus();
  await page.evaluate((value) => {
    const data = new DataTransfer();
    data.setData("text/plain", value);
    document.activeElement?.dispatchEvent(
      new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

interface RowState {
  status: string;
  words: string;
  progress: { value: number; max: number } | null;
  text: string;
}

async function rowState(row: Locator): Promise<RowState> {
  return row.evaluate((li) => {
    const bar = li.querySelector("progress");
    return {
      status: li.getAttribute("data-status") ?? "",
      words: li.querySelector("[data-testid=job-status]")?.textContent ?? "",
      progress: bar?.hasAttribute("value")
        ? { value: Number(bar!.getAttribute("value")), max: Number(bar!.getAttribute("max")) }
        : null,
      text: (li.textContent ?? "").replace(/\s+/g, " "),
    };
  });
}

/** Watches a job row until `status`, recording every state it showed on the way. */
async function followRow(row: Locator, status: string, timeout: number): Promise<RowState[]> {
  const seen: RowState[] = [];
  await until(
    async () => {
      const state = await rowState(row);
      const last = seen.at(-1);
      if (!last || last.text !== state.text) seen.push(state);
      return state;
    },
    (state) => state.status === status,
    { timeout, interval: 100, what: `job to be ${status}` },
  );
  return seen;
}

/** Clicks a download button and reads the file the browser saved. */
async function downloadVia(page: Page, button: Locator): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 15_000 }), button.click()]);
  return { name: download.suggestedFilename(), text: await downloadedText(download) };
}

const TWELVE = Array.from({ length: 12 }, (_, i) =>
  i % 3 === 0 ? `person${i}@example.com` : `person${i}@unknown-company-zz.com`,
);

describe("the Verify screen in Chromium", () => {
  it("verifies one address, suggests a batch for 12, runs a batch to completion and downloads it, cancels another", async () => {
    const { context, page, log } = await openPage(browser, { width: 1280, height: 900 });
    try {
      await page.goto(`${app.url}/verify`);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Verify");
      await expect.poll(() => page.getByText("No batch jobs yet.", { exact: false }).isVisible()).toBe(true);

      // One address: the v2 result, explained, with its cost.
      const single = page.getByRole("region", { name: "Verify one address" });
      const email = single.getByLabel("Email address");
      // From the keyboard: type, Enter; Tab reaches the button with a visible focus.
      await email.focus();
      await page.keyboard.type("info@example.com");
      await page.keyboard.press("Enter");
      const result = single.getByTestId("verify-result");
      await expect.poll(() => result.isVisible()).toBe(true);
      const resultText = (await result.textContent()) ?? "";
      expect(resultText).toContain("Invalid");
      expect(resultText).toContain("info@example.com");
      expect(resultText).toContain("This address cannot receive mail");
      expect(resultText).toContain("reserved for examples");
      expect(resultText).toContain("Mail servers");
      expect(resultText).toContain("Cost: 1 credit.");
      await expect
        .poll(() => page.locator("header.header").getByText("9,999 credits").isVisible())
        .toBe(true);
      await email.focus();
      await page.keyboard.press("Tab");
      const focus = await focusState(page);
      expect(focus.element).toBe('button "Verify"');
      expect(focus.visible).toBe(true);

      // A malformed entry is refused before anything is sent.
      await email.fill("not an address");
      await single.getByRole("button", { name: "Verify", exact: true }).click();
      await expect.poll(() => single.getByText("That is 3 entries", { exact: false }).isVisible()).toBe(true);
      await email.fill("nobody-at-all");
      await single.getByRole("button", { name: "Verify", exact: true }).click();
      await expect
        .poll(() => single.getByRole("alert").textContent())
        .toBe("This does not look like an email address (name@company.com).");
      await email.fill("");

      // A pasted column of 12 addresses: a batch is suggested.
      await paste(page, email, TWELVE.join("\n"));
      const suggestion = single.getByText("That is 12 entries: verify them as a batch.");
      await expect.poll(() => suggestion.isVisible()).toBe(true);
      await shot(page, "01-single-result-and-batch-suggested-1280");

      // Moved to the batch form, reviewed, started.
      await single.getByRole("button", { name: "Verify these 12 as a batch" }).click();
      const batch = page.getByRole("region", { name: "Verify a list as a batch job" });
      const textarea = batch.getByLabel("Addresses", { exact: true });
      expect((await textarea.inputValue()).split("\n")).toEqual(TWELVE);
      expect(await email.inputValue()).toBe("");
      expect(await textarea.evaluate((el) => el === document.activeElement)).toBe(true);
      await expect.poll(() => batch.getByText("12 addresses ready to verify").isVisible()).toBe(true);
      await batch.getByRole("button", { name: "Review and start" }).click();
      const review = batch.getByRole("region", { name: "Start a job for 12 addresses?" });
      await expect.poll(() => review.isVisible()).toBe(true);
      expect(await review.getByTestId("review-count").textContent()).toBe("12");
      expect(await review.textContent()).toContain("12 credits");
      await shot(page, "02-batch-review-1280");
      await review.getByRole("button", { name: "Start verification job" }).click();
      await expect.poll(() => batch.getByText(/Job #\d+ started with 12 addresses/).isVisible()).toBe(true);

      const jobs = page.getByRole("region", { name: "Batch jobs" });
      const first = jobs.locator("li.job-row").filter({ hasText: "pasted-list-" });
      await expect.poll(() => first.count()).toBe(1);
      const firstId = await first.getAttribute("data-job-id");
      expect(firstId).toMatch(/^\d+$/);

      // It progresses (seen through polling) and completes.
      const seen = await followRow(first, "COMPLETED", 45_000);
      const progressed = seen.filter(
        (s) => s.status === "PROCESSING" && s.progress && s.progress.value > 0 && s.progress.value < 12,
      );
      expect(progressed.length, JSON.stringify(seen)).toBeGreaterThan(0);
      expect(progressed[0]!.words).toBe("Verifying");
      expect(progressed[0]!.progress!.max).toBe(12);
      const done = await rowState(first);
      expect(done.words).toBe("Completed");
      expect(done.text).toContain("Completed: 12 addresses verified");
      expect(done.text).toMatch(/Last update \d\d:\d\d:\d\d/);
      await shot(page, "03-batch-completed-1280");

      // Its results download as CSV: the header and one row per address.
      const file = await downloadVia(page, first.getByRole("button", { name: "Download results (CSV)" }));
      expect(file.name).toMatch(/^pasted-list-.*-results\.csv$/);
      const lines = file.text.split("\r\n").filter((line) => line !== "");
      expect(lines[0]).toBe("email,status,deliverability,role,risk");
      expect(lines.slice(1)).toHaveLength(12);
      expect(lines.slice(1).map((line) => line.split(",")[0])).toEqual(TWELVE);
      await expect.poll(() => first.getByText(/^Saved pasted-list-.*-results\.csv/).isVisible()).toBe(true);

      // Another job, from an uploaded CSV file, cancelled while it runs.
      await batch.getByText("Upload a file").click();
      const slow = Array.from({ length: 80 }, (_, i) => `slow${i}@unknown-company-zz.com`);
      await batch.getByLabel("File (.csv, .json or .txt)").setInputFiles({
        name: "slow-list.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(`name,email\n${slow.map((e, i) => `P${i},${e}`).join("\n")}\n`),
      });
      await expect.poll(() => batch.getByText("80 addresses in the file").isVisible()).toBe(true);
      await batch.getByRole("button", { name: "Review and start" }).click();
      await batch.getByRole("button", { name: "Start verification job" }).click();
      const second = jobs.locator("li.job-row").filter({ hasText: "slow-list.csv" });
      await expect.poll(() => second.count()).toBe(1);
      await followRow(second, "PROCESSING", 20_000);
      await second.getByRole("button", { name: "Cancel job" }).click();
      await shot(page, "04-cancel-confirm-1280");
      await second.getByRole("button", { name: /^Yes, cancel job #\d+$/ }).click();
      await followRow(second, "CANCELLED", 20_000);
      const cancelled = await rowState(second);
      expect(cancelled.words).toBe("Cancelled");
      expect(cancelled.text).toMatch(/Cancelled after \d+ of 80 addresses/);
      expect(await second.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
      // The results so far download too.
      const partial = await downloadVia(
        page,
        second.getByRole("button", { name: "Download results so far (CSV)" }),
      );
      expect(partial.name).toBe("slow-list-results.csv");
      const partialRows = partial.text.split("\r\n").filter((line) => line !== "").length - 1;
      expect(partialRows).toBeLessThan(80);
      expect(Number(/after (\d+) of/.exec(cancelled.text)![1])).toBe(partialRows);
      await shot(page, "05-jobs-completed-and-cancelled-1280");

      // A reload keeps both jobs, with their final statuses.
      await page.reload();
      await expect.poll(() => jobs.locator("li.job-row").count()).toBe(2);
      expect((await rowState(first)).words).toBe("Completed");
      expect((await rowState(second)).words).toBe("Cancelled");

      // 768 px: the same screen, stacked.
      await page.setViewportSize({ width: 768, height: 900 });
      await email.fill("jane.doe@gmail.com");
      await single.getByRole("button", { name: "Verify", exact: true }).click();
      await expect.poll(() => result.textContent()).toContain("Unknown");
      expect(await result.textContent()).toContain("Cost: 0 credits.");
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await shot(page, "06-verify-768");

      await log.settle();
      expectClean(log);
      // Every request went through the proxy with x-csrf; no key reached the page.
      for (const exchange of log.exchanges.filter((x) => x.url.includes("/api/")))
        expect(exchange.requestHeaders["x-csrf"]).toBe("1");
    } finally {
      await context.close();
    }
  }, 180_000);
});
