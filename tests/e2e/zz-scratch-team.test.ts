import type { Page, Route } from "playwright-core";
import { expect, it } from "vitest";
import { browserAndAppForFile, openPage, screenshot } from "../support/browser";
import { GERMANY, urlWithAudience } from "./checkout-support";

const env = browserAndAppForFile();
const json = (route: Route, body: unknown, status = 200) =>
  route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });

async function mock(page: Page, role: string, user: string | null) {
  await page.route("**/api/session", (r) => json(r, { mode: "sandbox", plan: "PAYG", user, role, keyLast4: "demo" }));
  await page.route("**/api/team/people", (r) =>
    r.request().method() === "GET"
      ? json(r, {
          people: [
            { name: "ada", role: "admin", source: "team", createdAt: "2026-11-25T10:00:00Z", createdBy: null },
            { name: "bo", role: "buyer", source: "team", createdAt: "2026-11-25T11:00:00Z", createdBy: "ada" },
            { name: "cy", role: "analyst", source: "team", createdAt: "2026-11-25T11:05:00Z", createdBy: "ada" },
            { name: "ops", role: "admin", source: "file", createdAt: "2026-11-24T09:00:00Z", createdBy: null },
          ],
        })
      : json(r, { detail: "x", code: "LAST_ADMIN" }, 409),
  );
  await page.route("**/api/team/audit*", (r) =>
    json(r, {
      more: true,
      entries: [
        { id: 3, at: "2026-11-25T11:05:00Z", actor: "ada", action: "person.add", target: "cy", summary: "as analyst" },
        { id: 2, at: "2026-11-25T11:00:00Z", actor: "ada", action: "person.add", target: "bo", summary: "as buyer" },
        { id: 1, at: "2026-11-25T10:00:00Z", actor: "local", action: "person.add", target: "ada", summary: "as admin" },
      ],
    }),
  );
  await page.route("**/api/team/jobs*", (r) => json(r, { jobs: [] }));
}

it("looks", async () => {
  const { browser, app } = env;
  for (const [role, user] of [["admin", "ada"], ["analyst", "cy"], ["admin", null]] as const) {
    const { context, page } = await openPage(browser);
    await mock(page, role, user);
    await page.goto(`${app.url}/team`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Team");
    await page.waitForTimeout(800);
    if (role === "admin" && user) {
      await page.getByRole("button", { name: "Remove cy" }).click();
      await page.getByRole("button", { name: "Change role of bo" }).click();
    }
    await screenshot(page, "team-scratch", `team-${role}-${user}`);
    await page.goto(urlWithAudience(app, GERMANY, "/checkout"));
    await page.waitForTimeout(1500);
    await page.getByRole("button", { name: "Estimate" }).click();
    await page.waitForTimeout(1500);
    await screenshot(page, "team-scratch", `checkout-${role}-${user}`);
    await page.goto(`${app.url}/account`);
    await page.waitForTimeout(1000);
    await screenshot(page, "team-scratch", `account-${role}-${user}`);
    await page.goto(`${app.url}/verify`);
    await page.waitForTimeout(1000);
    await screenshot(page, "team-scratch", `verify-${role}-${user}`);
    await context.close();
  }
}, 120_000);
