import type { Page } from "playwright-core";
import { expect } from "vitest";
import { cspViolations, type PageLog } from "../support/browser";
import { PASSWORD } from "../support/team";

/** Shared steps of the team's browser tests (team, spending, verification under the caps). */

/** Signs `name` in on the Sign in page the app shows, and waits for the header to name them. */
export async function signInOnPage(page: Page, name: string, password = PASSWORD(name)) {
  const heading = () => page.getByRole("heading", { level: 1 }).textContent();
  await expect.poll(heading, { timeout: 15_000 }).toBe("Sign in");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect
    .poll(() => page.locator("header.header .header-user").textContent(), { timeout: 15_000 })
    .toContain(name);
}

/**
 * No console problem and no CSP violation, but the refusals these tests provoke on purpose (the
 * session read before sign-in: 401; a role or a cap: 403), which Chromium logs, and `allowed`.
 */
export function expectCleanBut(log: PageLog, allowed: RegExp[] = []) {
  const expected = [/Failed to load resource: the server responded with a status of 40[13]/, ...allowed];
  expect(log.problems().filter((line) => !expected.some((re) => re.test(line)))).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}
