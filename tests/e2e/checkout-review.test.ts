import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEFAULT_PICKED_COLUMNS, requestColumns } from "../../src/app/features/checkout/export-settings";
import type { GroupNode } from "../../src/contract/filter";
import type { Approval, EnrichReview, ExportReview } from "../../src/contract/spending";
import { browserAndAppForFile, type OpenedPage, openPage, until } from "../support/browser";
import { browser as apiClient } from "../support/proxy-server";
import { PASSWORD, signIn } from "../support/team";
import {
  expectClean,
  GERMANY,
  lastSelection,
  poll,
  readCsvDownload,
  SELECTIONS_KEY,
  selectedIds,
  shot,
  urlWithAudience,
} from "./checkout-support";

/**
 * The Checkout's review screens in Chromium, on the PAYG demo key, for a team (ada admin, bo
 * buyer): bo buys 3 people, then reviews 5 (the 3, one on a do-not-contact list made through
 * `POST /api/suppression`, one new) and pays for the new one only; the same 5 again are "Get the 4
 * (free)"; the export estimate says how many of the audience are already the team's and what the
 * owned choice does; with an approval threshold, bo's purchase is "Sent for approval", survives a
 * reload waiting, and once ada approves it in another browser context the same request gets the
 * rows, charged once; a denied one says who and why; a monthly cap refuses in words with nothing
 * spent. Screenshots at 1440 wide: test-artifacts/checkout/review-*.png.
 */

const env = browserAndAppForFile({ env: { SANDBOX_KEY: "sbx_payg_demo" } });
const WIDE = { width: 1440, height: 1000 };
const FRANCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
};
/** The columns the app asks for by default: what the team owns is kept per set of columns. */
const COLUMNS = requestColumns(DEFAULT_PICKED_COLUMNS);

let admin: ReturnType<typeof apiClient>;

/** The team: the local admin adds ada (admin); ada adds bo (buyer). */
async function makeTeam(url: string) {
  const local = apiClient(url);
  const first = await local.post("/api/team/people", {
    name: "ada",
    role: "admin",
    password: PASSWORD("ada"),
  });
  if (first.status !== 201) throw new Error(`first admin: ${first.status} ${first.text}`);
  admin = await signIn(url, "ada");
  const added = await admin.post("/api/team/people", { name: "bo", role: "buyer", password: PASSWORD("bo") });
  if (added.status !== 201) throw new Error(`adding bo: ${added.status} ${added.text}`);
}

/** A fresh 1440-wide context signed in as `name` on the sign-in page, at `path`. */
async function signedIn(name: string, path: string): Promise<OpenedPage> {
  const opened = await openPage(env.browser, WIDE);
  const { page } = opened;
  await page.goto(`${env.app.url}${path}`);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Password").fill(PASSWORD(name));
  await page.getByRole("button", { name: "Sign in" }).click();
  return opened;
}

/** The balance as the proxy reads it (no spend), asked by the admin. */
async function balance(): Promise<number> {
  const answer = await admin.get<{ credits: number }>("/api/v2/credits");
  expect(answer.status).toBe(200);
  return answer.body.credits;
}

const enrichTab = (page: Page) => page.getByRole("tabpanel", { name: "Enrich chosen people" });
const exportTab = (page: Page) => page.getByRole("tabpanel", { name: "Export a file" });
const confirmStep = (page: Page) => enrichTab(page).getByRole("region", { name: "Confirm the enrichment" });

/**
 * In the Builder: ticks `n` more rows of the sample (rows not selected yet; the sample is a new
 * random draw on every load), after clearing the selection when `fresh`; returns the selected ids,
 * oldest first.
 */
async function tickRows(page: Page, n: number, fresh = false, tree: GroupNode = GERMANY): Promise<string[]> {
  if (fresh) await page.evaluate((key) => localStorage.removeItem(key), SELECTIONS_KEY);
  const before = fresh ? [] : await selectedIds(page);
  await page.goto(urlWithAudience(env.app, tree));
  const free = page
    .getByRole("region", { name: /^Sample of \d+ people, masked$/ })
    .getByRole("checkbox", { name: /^Select (?!every row)/, checked: false });
  await until(
    () => free.count(),
    (count) => count >= n,
    { timeout: 20_000, what: `a sample with ${n} rows not selected yet` },
  );
  for (let i = 0; i < n; i += 1) await free.first().click();
  return until(
    () => selectedIds(page),
    (ids) => ids.length === before.length + n,
    { what: `${before.length + n} selected ids` },
  );
}

/** From the Builder's selection bar to the Enrich tab, then the review (the confirm step). */
async function reviewSelected(page: Page, n: number): Promise<Locator> {
  await page.getByRole("link", { name: `Buy the ${n} selected` }).click();
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
  await enrichTab(page).getByRole("button", { name: "Review the purchase" }).click();
  const confirm = confirmStep(page);
  await poll(() => confirm.getByTestId("enrich-review-sentence").isVisible()).toBe(true);
  return confirm;
}

/** What the proxy's review says of these ids (the app should say the same). */
async function proxyReview(ids: readonly string[]): Promise<EnrichReview> {
  const answer = await admin.post<EnrichReview>("/api/purchases/review", {
    kind: "enrich",
    personIds: ids,
    reveal: "email",
    columns: COLUMNS,
  });
  expect(answer.status).toBe(200);
  return answer.body;
}

const marks = (confirm: Locator) =>
  confirm.locator(".checkout-review-person").evaluateAll((items) =>
    items.map((li) => ({
      name: li.querySelector(".checkout-review-name")?.textContent ?? "",
      mark: li.querySelector(".checkout-review-mark")?.textContent ?? "",
    })),
  );

async function waitingApproval(): Promise<Approval> {
  const answer = await admin.get<{ approvals: Approval[] }>("/api/approvals");
  expect(answer.status).toBe(200);
  const waiting = answer.body.approvals.filter((a) => a.state === "waiting");
  expect(waiting).toHaveLength(1);
  return waiting[0]!;
}

async function setCaps(person: { monthlyCap: number | null; approvalThreshold: number | null }) {
  const answer = await admin.call("PUT", "/api/spending/caps", { people: [{ name: "bo", ...person }] });
  expect(answer.status, answer.text).toBe(200);
}

describe("Checkout reviews: already yours, suppressed, new; owned contacts in an export; approvals", () => {
  let bo: OpenedPage;
  let ids: string[] = [];

  it("bo buys 3, then reviews 5: 3 already yours, 1 suppressed, 1 new, and pays for the new one only", async () => {
    await makeTeam(env.app.url);
    bo = await signedIn("bo", "/");
    const { page } = bo;
    await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");

    // Three people bought first.
    const first = await tickRows(page, 3, true);
    const start = await balance();
    let confirm = await reviewSelected(page, 3);
    await poll(() => confirm.getByTestId("enrich-review-sentence").textContent()).toMatch(
      /^3 selected: 3 to buy: up to 6 credits/,
    );
    await confirm.getByRole("button", { name: /^Confirm: buy 3 new for up to 6 credits/ }).click();
    const rows = enrichTab(page).getByRole("region", { name: "Enriched rows", exact: true });
    await poll(() => rows.locator("tbody tr").count()).toBe(3);
    const afterThree = await balance();
    expect(afterThree).toBeLessThan(start);

    // Five selected: the three, one the team must not contact, one new.
    ids = await tickRows(page, 2);
    expect(ids.slice(0, 3)).toEqual(first);
    const list = await admin.post<{ added: number }>("/api/suppression", {
      name: "Do not contact (legal)",
      text: `${ids[3]}\n`,
    });
    expect(list.status, list.text).toBe(201);
    expect(list.body.added).toBe(1);
    const { names } = await lastSelection(page);

    confirm = await reviewSelected(page, 5);
    const sentence = confirm.getByTestId("enrich-review-sentence");
    await poll(() => sentence.textContent()).toMatch(
      /^5 selected: 3 already yours \(free\), 1 suppressed \(on a do-not-contact list, left out\), 1 to buy: up to 2 credits/,
    );
    const proxy = await proxyReview(ids);
    expect(proxy.alreadyYours.sort()).toEqual([...first].sort());
    expect(proxy.suppressed).toEqual([ids[3]]);
    expect(proxy.toBuy).toEqual([ids[4]]);
    const listed = await marks(confirm);
    expect(listed.map((p) => p.mark)).toEqual([
      "Already yours",
      "Already yours",
      "Already yours",
      "Suppressed",
      "New",
    ]);
    // By name where the sample showed one.
    expect(listed.map((p) => p.name)).toEqual(ids.map((id) => names[id] ?? id));
    expect(Object.keys(names).length).toBeGreaterThan(0);
    const button = confirm.getByRole("button", {
      name: /^Confirm: buy 1 new for up to 2 credits.*, get 3 free$/,
    });
    await poll(() => button.isEnabled()).toBe(true);
    expect(await balance()).toBe(afterThree);
    await shot(page, "review-01-enrich-3-yours-1-suppressed-1-new");

    await button.click();
    await poll(() => rows.locator("tbody tr").count()).toBe(4);
    const afterFive = await balance();
    expect(afterThree - afterFive).toBeGreaterThan(0);
    expect(afterThree - afterFive).toBeLessThanOrEqual(2);
    expect(await rows.textContent()).toContain(
      "with email addresses; 3 already yours, free; 1 suppressed, left out)",
    );
    const delivered = await rows.locator("tbody tr").allTextContents();
    expect(delivered.join(" ")).not.toContain(ids[3]!);
    await shot(page, "review-02-enrich-rows-new-one-paid");

    // The same five again: everything buyable is the team's.
    await page.goto(urlWithAudience(env.app, GERMANY));
    confirm = await reviewSelected(page, 5);
    await poll(() => sentence.textContent()).toMatch(/^5 selected: 4 already yours \(free\), 1 suppressed/);
    const free = confirm.getByRole("button", { name: "Get the 4 (free)" });
    await poll(() => free.isEnabled()).toBe(true);
    await shot(page, "review-03-enrich-all-yours-free");
    await free.click();
    await poll(() => rows.locator("tbody tr").count()).toBe(4);
    expect(await balance()).toBe(afterFive);
    await bo.log.settle();
    expectClean(bo.log, [/status of (401|422)/]);
  });

  it("the export estimate says how many are already the team's, suppressed and new, and what the choice does", async () => {
    const { page } = bo;
    await page.goto(urlWithAudience(env.app, GERMANY, "/checkout"));
    await page.getByRole("tab", { name: "Export a file" }).click();
    const tab = exportTab(page);
    await tab.getByRole("button", { name: "Estimate" }).click();
    const estimate = tab.getByTestId("estimate");
    await poll(() => estimate.isVisible()).toBe(true);
    const maxRows = Number(await tab.getByRole("spinbutton", { name: "Most rows" }).inputValue());
    const asked = await admin.post<ExportReview>("/api/purchases/review", {
      kind: "export",
      filter: GERMANY,
      maxRows,
      reveal: "email",
      columns: COLUMNS,
      owned: "leave-out",
    });
    expect(asked.status, asked.text).toBe(200);
    const figures = asked.body;
    expect(figures.owned).toBe(4);
    expect(figures.suppressed).toBe(1);
    const number = async (id: string) =>
      Number(((await tab.getByTestId(id).textContent()) ?? "").replace(/,/g, ""));
    expect(await number("estimate-audience")).toBe(figures.audience);
    expect(await number("estimate-suppressed")).toBe(1);
    expect(await number("estimate-owned")).toBe(4);
    expect(await number("estimate-rows")).toBe(figures.rows);
    const leaveOut = tab.getByRole("radio", {
      name: /^Leave out the 4 contacts you already own \(default\)/,
    });
    expect(await leaveOut.isChecked()).toBe(true);
    expect(await tab.getByTestId("estimate-sentence").textContent()).toContain("4 already yours (left out)");
    await shot(page, "review-04-export-estimate-owned-left-out");

    // The 4 the team owns added to the file for nothing: the same rows bought, 4 more in the file.
    await tab.getByRole("radio", { name: /^Add them to the file for free/ }).check();
    await poll(() => number("estimate-free")).toBe(4);
    expect(await number("estimate-rows")).toBe(figures.rows);
    const addFree = tab.getByRole("button", {
      name: `Confirm and export ${figures.rows.toLocaleString("en-US")} rows (+ 4 free)`,
    });
    await poll(() => addFree.isEnabled()).toBe(true);
    await shot(page, "review-05a-export-add-free");

    await tab.getByRole("radio", { name: /^Buy them again \(fresh data\)/ }).check();
    await poll(() => number("estimate-rows")).toBe(Math.min(maxRows, figures.audience - 1));
    await poll(() => tab.getByRole("button", { name: /^Confirm and export/ }).isVisible()).toBe(true);
    await shot(page, "review-05-export-estimate-buy-again");

    // Exactly the 5 selected: all already the team's or suppressed, nothing new to buy.
    await tab.getByRole("radio", { name: /^Leave out the 4 contacts/ }).check();
    await tab.getByRole("radio", { name: /^Only the 5 selected/ }).check();
    await tab.getByRole("button", { name: /^Estimate/ }).click();
    await poll(() => number("estimate-rows")).toBe(0);
    const none = tab.getByRole("region", { name: "Confirm the export" });
    await poll(() => none.textContent()).toContain("Nothing new to buy");
    expect(await none.getByRole("button", { name: /^Confirm and export/ }).isDisabled()).toBe(true);
    await shot(page, "review-05b-export-selection-nothing-new");

    // The whole audience, owned contacts left out: the file holds none of them (nor the suppressed
    // one), and exactly the estimate is charged.
    await tab.getByRole("radio", { name: /^The whole audience/ }).check();
    await tab.getByRole("button", { name: /^Estimate/ }).click();
    await poll(() => number("estimate-rows")).toBe(figures.rows);
    const before = await balance();
    const seen = bo.log.exchanges.length;
    const download = page.waitForEvent("download", { timeout: 60_000 });
    await tab
      .getByRole("button", { name: `Confirm and export ${figures.rows.toLocaleString("en-US")} rows` })
      .click();
    const csv = await readCsvDownload(await download);
    expect(csv.rows).toHaveLength(figures.rows);
    const delivered = new Set(csv.rows.map((row) => row["Contact ID"]));
    for (const id of ids) expect(delivered.has(id)).toBe(false);
    await poll(() => balance()).toBe(before - figures.credits);
    await bo.log.settle();
    const start = bo.log.exchanges
      .slice(seen)
      .find((e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/export"));
    expect(start?.requestHeaders["x-owned-contacts"]).toBe("leave-out");
    await shot(page, "review-05c-export-done-owned-left-out");
    expectClean(bo.log, [/status of (401|422)/]);
  });

  it("above bo's threshold: Sent for approval, kept across a reload; ada approves in another context; the rows come, charged once", async () => {
    const { page } = bo;
    await setCaps({ monthlyCap: null, approvalThreshold: 1 });
    // Germany is the team's now (the whole audience was exported): people from France.
    const chosen = await tickRows(page, 2, true, FRANCE);
    const before = await balance();
    const seen = bo.log.exchanges.length;
    const confirm = await reviewSelected(page, 2);
    await poll(() => confirm.getByTestId("enrich-review-sentence").textContent()).toMatch(
      /^2 selected: 2 to buy/,
    );
    // The review knows bo's threshold: Confirm says an admin is asked first.
    const ask = confirm.getByRole("button", { name: "Ask an admin to approve (up to 4 credits)" });
    await poll(() => ask.isEnabled()).toBe(true);
    expect(await confirm.getByTestId("policy-approval").textContent()).toContain(
      "above your approval threshold of 1",
    );
    await shot(page, "review-06a-ask-an-admin");
    await ask.click();
    const notice = enrichTab(page).locator('[data-spend="approval"]');
    await poll(() => notice.isVisible()).toBe(true);
    expect(await notice.getByRole("heading").textContent()).toBe("Sent for approval");
    await poll(() => notice.getByTestId("approval-state").textContent()).toContain(
      "Waiting for an admin to approve it",
    );
    const key = await page.evaluate(
      () =>
        (
          JSON.parse(localStorage.getItem("ab.checkout.pending.v1") ?? "{}") as {
            purchases?: { calls: { key: string }[] }[];
          }
        ).purchases?.[0]?.calls[0]?.key ?? null,
    );
    expect(key).not.toBeNull();
    await shot(page, "review-06-sent-for-approval");

    await page.reload();
    await poll(() => notice.isVisible()).toBe(true);
    await poll(() => notice.getByTestId("approval-state").textContent()).toContain("Waiting for an admin");
    expect(await balance()).toBe(before);
    const request = await waitingApproval();
    expect(request.requestedBy).toBe("bo");

    // ada approves in her own browser.
    const ada = await signedIn("ada", "/");
    try {
      await poll(() => ada.page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      const status = await ada.page.evaluate(async (id) => {
        const response = await fetch(`/api/approvals/${id}/approve`, {
          method: "POST",
          headers: { "x-csrf": "1" },
        });
        return response.status;
      }, request.id);
      expect(status).toBe(200);
    } finally {
      await ada.context.close();
    }

    const rows = enrichTab(page).getByRole("region", { name: "Enriched rows", exact: true });
    await poll(() => rows.locator("tbody tr").count()).toBe(2);
    const after = await balance();
    expect(before - after).toBeGreaterThan(0);
    expect(before - after).toBeLessThanOrEqual(4);
    await bo.log.settle();
    const sends = bo.log.exchanges
      .slice(seen)
      .filter((e) => e.method === "POST" && e.url.endsWith("/api/v2/contact/enrich"));
    // The first send (202) and the one after it ran: the same key, answered by a replay.
    expect(sends.map((e) => e.requestHeaders["idempotency-key"])).toEqual([key, key]);
    expect((await rows.textContent()) ?? "").toContain(chosen[0]!);
    await shot(page, "review-07-approved-rows");
    // Charged once, nothing sent again by itself.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await balance()).toBe(after);
    expectClean(bo.log, [/status of (401|422)/]);
  });

  it("a denied request says who and why; a monthly cap refuses in words; nothing spent", async () => {
    const { page } = bo;
    await tickRows(page, 1, true, FRANCE);
    const before = await balance();
    let confirm = await reviewSelected(page, 1);
    await confirm.getByRole("button", { name: /^Ask an admin to approve \(up to 2 credits\)/ }).click();
    await poll(() => enrichTab(page).locator('[data-spend="approval"]').isVisible()).toBe(true);
    const request = await waitingApproval();
    const denied = await admin.post(`/api/approvals/${request.id}/deny`, {
      reason: "Not this month: the budget is spent.",
    });
    expect(denied.status, denied.text).toBe(200);
    const alert = enrichTab(page).locator('[data-spend="denied"]');
    await poll(() => alert.isVisible()).toBe(true);
    expect(await alert.getByRole("heading").textContent()).toBe("Not bought: ada denied the enrichment");
    expect(await alert.textContent()).toContain("Why: Not this month: the budget is spent.");
    expect(await balance()).toBe(before);
    await shot(page, "review-08-denied");

    // A cap set after the review said it could be bought: the proxy refuses the purchase itself.
    await setCaps({ monthlyCap: null, approvalThreshold: null });
    await enrichTab(page).getByRole("button", { name: "Change the purchase" }).click();
    await enrichTab(page).getByRole("button", { name: "Review the purchase" }).click();
    confirm = confirmStep(page);
    const buy = confirm.getByRole("button", { name: /^Confirm: buy 1 new/ });
    await poll(() => buy.isEnabled()).toBe(true);
    await setCaps({ monthlyCap: 1, approvalThreshold: null });
    await buy.click();
    const refusal = enrichTab(page)
      .getByRole("alert")
      .filter({ hasText: "Not bought: it would pass a monthly spending cap" });
    await poll(() => refusal.isVisible()).toBe(true);
    expect((await refusal.textContent())?.match(/Nothing was sent/g)).toHaveLength(1);
    expect(await refusal.textContent()).not.toMatch(/CAP_REACHED|403/);
    expect(await balance()).toBe(before);
    await shot(page, "review-09-cap-reached-on-purchase");

    // Reviewed again under that cap: Confirm is off, with the reason and the cap as it stands, said
    // once (not again as "Your monthly cap of 1 credit is passed: … spent this month").
    await enrichTab(page).getByRole("button", { name: "Change the purchase" }).click();
    await enrichTab(page).getByRole("button", { name: "Review the purchase" }).click();
    await poll(() => confirm.getByTestId("enrich-review-sentence").isVisible()).toBe(true);
    await poll(() => confirm.getByRole("alert").textContent()).toMatch(/monthly cap is 1\b/);
    expect(await confirm.getByRole("alert").textContent()).toMatch(
      /^This purchase may cost up to 2 credits; your monthly cap is 1 and [\d,]+ are already spent this month, so 0 are left\. Nothing is spent\.$/,
    );
    expect(await buy.isDisabled()).toBe(true);
    expect(await balance()).toBe(before);
    await shot(page, "review-10-cap-refused-in-review");
    await bo.log.settle();
    expectClean(bo.log, [/status of (401|403|422)/]);
    await bo.context.close();
  });
});
