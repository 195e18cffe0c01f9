import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeTreeForUrl } from "../../src/app/lib/working-tree";
import type { GroupNode } from "../../src/contract/filter";
import {
  browserAndAppForFile,
  cspViolations,
  type OpenedPage,
  openPage,
  type PageLog,
  poll,
  screenshot,
  settledCount,
  until,
} from "../support/browser";
import { browser as apiClient } from "../support/proxy-server";
import { PASSWORD, signIn } from "../support/team";
import { selectSampleRows } from "./checkout-support";

/**
 * Saved audiences shared on the server, in Chromium, by three people of one team (an admin adds
 * them on the Team page: ada admin, bo buyer, cy analyst): the analyst saves a shared
 * audience; the buyer opens it from the list and from its short link in another browser context,
 * edits and saves it; the analyst sees the new version and restores the old one; the buyer, still on
 * the older version, meets the conflict choice instead of overwriting silently. Also: a short link
 * to someone's private audience says so in plain words, and audiences saved in a browser before
 * this change move to the server once. Screenshots: test-artifacts/shared-audiences/*.png.
 */

const SHOTS = "shared-audiences";
const NAME = "Directors in North America";

/** The Builder's three-level audience (as the builder tests build it). */
const AUDIENCE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [
    { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["United States", "Canada"] },
    {
      type: "group",
      op: "OR",
      negate: false,
      children: [
        { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "Director" },
        { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP" },
        {
          type: "group",
          op: "AND",
          negate: true,
          children: [
            { type: "condition", column: "EMPLOYEE_COUNT_RANGE_ORG", operator: "eq", value: "51-200" },
          ],
        },
      ],
    },
  ],
};

const env = browserAndAppForFile();

function expectClean(log: PageLog) {
  // Answers on purpose, which Chromium logs as console errors: the 401 of /api/session before
  // sign-in, the 409 of the conflict, the 404 of the private link.
  expect(
    log
      .problems()
      .filter(
        (line) => !/Failed to load resource: the server responded with a status of (401|409|404) /.test(line),
      ),
  ).toEqual([]);
  expect(cspViolations(log)).toEqual([]);
}

/**
 * The team: the local admin adds ada (admin) through the API; ada signs in in Chromium and adds bo
 * (buyer) and cy (analyst) on the Team page, as an admin would.
 */
async function makeTeam(url: string) {
  const local = apiClient(url);
  const first = await local.post("/api/team/people", {
    name: "ada",
    role: "admin",
    password: PASSWORD("ada"),
  });
  if (first.status !== 201) throw new Error(`first admin: ${first.status} ${first.text}`);
  const admin = await signedIn("ada", "/team");
  try {
    const { page } = admin;
    const form = page.getByRole("form", { name: "Add a person" });
    for (const [name, role] of [
      ["bo", "buyer"],
      ["cy", "analyst"],
    ] as const) {
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Role").selectOption(role);
      await form.getByLabel("First password").fill(PASSWORD(name));
      await form.getByRole("button", { name: "Add to the team" }).click();
      const wanted = role === "buyer" ? "Buyer" : "Analyst";
      await until(
        () => page.locator(`tr[data-person="${name}"] .team-role`).textContent(),
        (text) => text === wanted,
        { timeout: 15_000, what: `${name} listed as ${wanted} on the Team page` },
      );
    }
    const problems = admin.log.problems().filter((line) => !/status of 401/.test(line));
    if (problems.length > 0 || cspViolations(admin.log).length > 0)
      throw new Error(`the Team page logged: ${[...problems, ...cspViolations(admin.log)].join("; ")}`);
  } finally {
    await admin.context.close();
  }
}

/** A fresh context signed in as `name` through the sign-in page, at `path`. */
async function signedIn(name: string, path = "/", width = 1360): Promise<OpenedPage> {
  const opened = await openPage(env.browser, { width, height: 900 });
  const { page } = opened;
  await page.goto(`${env.app.url}${path}`);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Password").fill(PASSWORD(name));
  await page.getByRole("button", { name: "Sign in" }).click();
  return opened;
}

const savedPanel = (page: Page) => page.getByRole("complementary", { name: "Saved audiences" });
const openBar = (page: Page) => page.getByRole("region", { name: "Open audience" });
const openName = (page: Page) => openBar(page).locator(".open-audience-name").textContent();
const summary = (page: Page) =>
  page.getByRole("region", { name: "In plain English" }).locator("p").textContent();
const row = (page: Page, name = NAME) =>
  savedPanel(page).locator(".saved-item", {
    has: page.getByRole("button", { name: `Open ${name}`, exact: true }),
  });
const rowFacts = async (page: Page, name = NAME) => ({
  owner: await row(page, name).locator(".saved-item-owner").textContent(),
  sharing: await row(page, name).locator(".saved-badge").textContent(),
  version: await row(page, name).locator(".saved-item-version").textContent(),
  updated: ((await row(page, name).locator(".saved-item-updated dd").textContent()) ?? "").replace(
    /\s*\(.*\)$/,
    "",
  ),
});

async function builderReady(page: Page) {
  await poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
  return settledCount(page, undefined, 15_000);
}

async function menu(page: Page, name: string, item: string | RegExp) {
  await savedPanel(page)
    .getByRole("button", { name: `Actions for “${name}”` })
    .click();
  const opened = page.getByRole("menu");
  await poll(() => opened.count()).toBe(1);
  await opened.getByRole("menuitem", { name: item }).click();
  await poll(() => opened.count()).toBe(0);
}

/** Toggles NOT on group 2.3 (one edit the count sees). */
async function edit(page: Page) {
  await page.getByRole("button", { name: "Actions for group 2.3" }).click();
  await page
    .getByRole("menu")
    .getByRole("menuitem", { name: /Toggle NOT/ })
    .click();
  await poll(() => page.getByRole("menu").count()).toBe(0);
}

async function closeAll(...contexts: (BrowserContext | undefined)[]) {
  for (const context of contexts) await context?.close();
}

describe("saved audiences shared by a team", () => {
  beforeAll(() => makeTeam(env.app.url));

  it("analyst saves and shares; buyer opens from the list and the short link, edits and saves; analyst restores; a conflict is a choice", async () => {
    let analyst: OpenedPage | undefined;
    let buyer: OpenedPage | undefined;
    let buyerLink: OpenedPage | undefined;
    try {
      // The analyst builds (from a link) and saves it, shared with the team.
      analyst = await signedIn("cy", `/?a=${encodeTreeForUrl(AUDIENCE)}`);
      const a = analyst.page;
      const firstCount = await builderReady(a);
      const originalSummary = await summary(a);
      expect(await openBar(a).textContent()).toContain("Not saved yet.");
      await savedPanel(a).getByRole("button", { name: "Save as new…" }).click();
      await savedPanel(a).getByLabel("Name this audience").fill(NAME);
      await savedPanel(a)
        .getByLabel(/Share with the team/)
        .check();
      await savedPanel(a).getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => openName(a)).toBe(NAME);
      expect(await openBar(a).getAttribute("data-unsaved")).toBe("false");
      await poll(() => rowFacts(a)).toEqual({
        owner: "cy",
        sharing: "Shared",
        version: "1",
        updated: "cy, just now",
      });
      expect(await row(a).locator(".saved-item-facts").textContent()).toContain(`${firstCount} people`);
      await screenshot(a, SHOTS, "01-analyst-saved-shared", { fromTop: true });

      // Its short link, as Copy link gives it.
      await menu(a, NAME, "Copy link");
      const notice = await until(
        () => savedPanel(a).locator(".saved-live").textContent(),
        (text) => /\/a\/[A-Za-z0-9_-]+/.test(text ?? ""),
        { what: "the short link in the notice" },
      );
      const link = /(https?:\/\/\S+\/a\/[A-Za-z0-9_-]+)/.exec(notice ?? "")![1]!;
      expect(link.startsWith(`${env.app.url}/a/`)).toBe(true);

      // The buyer opens it from the list.
      buyer = await signedIn("bo");
      const b = buyer.page;
      await poll(() => b.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      await poll(() => rowFacts(b)).toEqual({
        owner: "cy",
        sharing: "Shared",
        version: "1",
        updated: "cy, just now",
      });
      await savedPanel(b)
        .getByRole("button", { name: `Open ${NAME}`, exact: true })
        .click();
      await poll(() => openName(b)).toBe(NAME);
      await poll(() => summary(b)).toBe(originalSummary);
      expect(await settledCount(b, undefined, 15_000)).toBe(firstCount);
      // Someone else's shared audience: the buyer may edit it, not delete it or change who sees it.
      await savedPanel(b)
        .getByRole("button", { name: `Actions for “${NAME}”` })
        .click();
      const items = await b.getByRole("menu").getByRole("menuitem").allTextContents();
      expect(items).toEqual(["Open", "Copy link", "Rename…", "Version history", "Export JSON"]);
      await b.keyboard.press("Escape");
      await screenshot(b, SHOTS, "02-buyer-list-owners-versions", { fromTop: true });

      // The buyer, in another browser context, opens the short link: it signs in, then opens the
      // audience in the Builder; edits and saves it in place.
      buyerLink = await signedIn("bo", new URL(link).pathname);
      const l = buyerLink.page;
      await poll(() => openName(l)).toBe(NAME);
      expect(await builderReady(l)).toBe(firstCount);
      expect(await summary(l)).toBe(originalSummary);
      await edit(l);
      const editedCount = await settledCount(l, firstCount, 15_000);
      await poll(() => openBar(l).getAttribute("data-unsaved")).toBe("true");
      expect(await openBar(l).locator(".open-audience-unsaved").textContent()).toBe("Unsaved changes");
      await screenshot(l, SHOTS, "03-buyer-unsaved-changes", { fromTop: true });
      await openBar(l).getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => openBar(l).getAttribute("data-unsaved")).toBe("false");
      await poll(() => openBar(l).locator(".open-audience-status").textContent()).toBe(
        `Saved “${NAME}” as version 2.`,
      );
      const editedSummary = await summary(l);
      // Checkout names the open audience.
      await l.getByRole("link", { name: "Checkout" }).click();
      await poll(() => l.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
      await poll(() => l.locator(".checkout-open-audience").textContent()).toContain(
        `Buying from the saved audience ${NAME} (version 2)`,
      );
      await screenshot(l, SHOTS, "04-buyer-checkout-names-audience", { fromTop: true });

      // The analyst sees the new version (on coming back to the page), and restores the old one.
      await a.reload();
      await builderReady(a);
      await poll(() => rowFacts(a)).toEqual({
        owner: "cy",
        sharing: "Shared",
        version: "2",
        updated: "bo, just now",
      });
      await menu(a, NAME, "Version history");
      const history = savedPanel(a).getByRole("region", { name: `Versions of “${NAME}”` });
      await poll(() => history.getByRole("listitem").count()).toBe(2);
      const lines = await history.getByRole("listitem").allTextContents();
      expect(lines[0]).toMatch(new RegExp(`^Version 2 \\(latest\\)bo, just now · ${editedCount} people`));
      expect(lines[1]).toMatch(new RegExp(`^Version 1cy, just now · ${firstCount} people`));
      await screenshot(a, SHOTS, "05-analyst-version-history", { fromTop: true });
      await history.getByRole("button", { name: `Restore version 1 of “${NAME}”` }).click();
      await poll(() => rowFacts(a)).toEqual({
        owner: "cy",
        sharing: "Shared",
        version: "3",
        updated: "cy, just now",
      });
      await poll(() => summary(a)).toBe(originalSummary);
      expect(await openName(a)).toBe(NAME);
      expect(await openBar(a).getAttribute("data-unsaved")).toBe("false");
      await poll(() => history.getByRole("listitem").first().textContent()).toMatch(
        /^Version 3 \(latest\), restored from version 1cy, just now/,
      );
      await screenshot(a, SHOTS, "06-analyst-restored", { fromTop: true });

      // The buyer's first context still has version 1 open: its edit and Save meet the conflict.
      expect(editedSummary).not.toBe(originalSummary);
      await edit(b);
      await poll(() => openBar(b).getAttribute("data-unsaved")).toBe("true");
      await openBar(b).getByRole("button", { name: "Save", exact: true }).click();
      const choice = b.getByRole("alertdialog", { name: "Someone saved a newer version" });
      await poll(() => choice.count()).toBe(1);
      expect(await choice.textContent()).toMatch(
        new RegExp(
          `cy saved version 3 of “${NAME}” just now \\(${firstCount} people\\), after the version 1 you opened\\.`,
        ),
      );
      expect(await choice.getByRole("button").allTextContents()).toEqual([
        "Overwrite with mine",
        "Save mine as a new audience",
        "Open theirs (discard my changes)",
      ]);
      await screenshot(b, SHOTS, "07-buyer-conflict-choice", { fromTop: true });
      // Nothing was overwritten by the refused Save.
      const api = await signIn(env.app.url, "cy");
      const list = (await api.get<{ audiences: { id: string; version: number }[] }>("/api/audiences")).body;
      const saved = list.audiences.find((x) => link.endsWith(`/a/${x.id}`))!;
      expect(saved.version).toBe(3);
      // Open theirs: the buyer's Builder shows version 3; then an edit saves as version 4.
      await choice.getByRole("button", { name: "Open theirs (discard my changes)" }).click();
      await poll(() => summary(b)).toBe(originalSummary);
      expect(await openBar(b).getAttribute("data-unsaved")).toBe("false");
      await edit(b);
      await openBar(b).getByRole("button", { name: "Save", exact: true }).click();
      await poll(() => openBar(b).locator(".open-audience-status").textContent()).toBe(
        `Saved “${NAME}” as version 4.`,
      );

      for (const opened of [analyst, buyer, buyerLink]) {
        await opened.log.settle();
        expectClean(opened.log);
      }
    } finally {
      await closeAll(analyst?.context, buyer?.context, buyerLink?.context);
    }
  }, 180_000);

  it("the open audience comes back after signing in again and in a new window, and a purchase from it carries its name into the ledger", async () => {
    const REOPENED = "Directors in Germany, reopened";
    const directors: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      children: [
        { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
        { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "Director" },
      ],
    };
    const cy = await signIn(env.app.url, "cy");
    expect(
      (await cy.post("/api/audiences", { name: REOPENED, filter: directors, shared: true })).status,
    ).toBe(201);
    let first: OpenedPage | undefined;
    let second: OpenedPage | undefined;
    let admin: OpenedPage | undefined;
    try {
      // The buyer opens the team's audience from the list, at 1440 wide.
      first = await signedIn("bo", "/", 1440);
      const a = first.page;
      await builderReady(a);
      await savedPanel(a)
        .getByRole("button", { name: `Open ${REOPENED}`, exact: true })
        .click();
      await poll(() => openName(a)).toBe(REOPENED);
      const opened = await summary(a);
      // Signs out and in again in the same window: the audience is open again, not "Not saved yet".
      await a.getByRole("button", { name: "Sign out" }).click();
      await poll(() => a.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in");
      await a.getByLabel("Name").fill("bo");
      await a.getByLabel("Password").fill(PASSWORD("bo"));
      await a.getByRole("button", { name: "Sign in" }).click();
      await builderReady(a);
      await poll(() => openName(a)).toBe(REOPENED);
      expect(await summary(a)).toBe(opened);
      expect(await openBar(a).getAttribute("data-unsaved")).toBe("false");
      await screenshot(a, SHOTS, "08-reopened-after-sign-in-1440", { fromTop: true });

      // A new window with nothing in it (another device, at 768 wide): the audience and its tree.
      second = await signedIn("bo", "/", 768);
      const b = second.page;
      await poll(() => openName(b)).toBe(REOPENED);
      await poll(() => summary(b)).toBe(opened);
      await builderReady(b);
      await screenshot(b, SHOTS, "09-reopened-new-window-768", { fromTop: true });

      // Bought from there: Checkout names it, and so does the ledger's row. (Ticked once the sample
      // is this audience's: rows of the empty tree's, still shown dimmed, would be refused as gone.)
      await poll(() =>
        b.getByRole("region", { name: /^Sample of \d+ people, masked$/ }).getAttribute("data-dimmed"),
      ).toBe("false");
      await selectSampleRows(b, 2);
      await b.getByRole("link", { name: "Buy the 2 selected" }).click();
      await poll(() => b.getByRole("heading", { level: 1 }).textContent()).toBe("Checkout");
      await poll(() => b.locator(".checkout-open-audience").textContent()).toContain(
        `Buying from the saved audience ${REOPENED} (version 1)`,
      );
      const enrich = b.getByRole("tabpanel", { name: "Enrich chosen people" });
      await enrich.getByRole("button", { name: "Review the purchase" }).click();
      const confirm = enrich.getByRole("region", { name: "Confirm the enrichment" });
      await confirm.getByRole("button", { name: /^Confirm: buy 2 new/ }).click();
      await poll(() =>
        enrich.getByRole("region", { name: "Enriched rows", exact: true }).locator("tbody tr").count(),
      ).toBe(2);

      admin = await signedIn("ada", "/spending", 1440);
      const ledger = admin.page.getByRole("region", { name: "Ledger entries" });
      await poll(() => ledger.locator("tbody tr").first().textContent()).toContain(REOPENED);
      expect(await ledger.locator("tbody tr").first().textContent()).toMatch(/bo/);
      await ledger.scrollIntoViewIfNeeded();
      await screenshot(admin.page, SHOTS, "10-ledger-row-names-the-audience", { fromTop: true });
      for (const opened of [first, second, admin]) {
        await opened.log.settle();
        expectClean(opened.log);
      }
    } finally {
      await closeAll(first?.context, second?.context, admin?.context);
    }
  }, 180_000);

  it("a short link to someone's private audience says, in plain words, that it does not exist or is private", async () => {
    const cy = await signIn(env.app.url, "cy");
    const made = await cy.post<{ id: string }>("/api/audiences", {
      name: "Cy's own",
      filter: AUDIENCE,
      shared: false,
    });
    expect(made.status).toBe(201);
    const opened = await signedIn("bo", `/a/${made.body.id}`);
    try {
      const { page: p } = opened;
      await poll(() => p.getByRole("heading", { level: 1 }).textContent()).toBe("Audience not found");
      expect(await p.locator(".audience-link-missing").textContent()).toMatch(
        /^There is no saved audience at this link, or it is private to the person who saved it/,
      );
      await screenshot(p, SHOTS, "08-private-link", { fromTop: true });
      await opened.log.settle();
      expectClean(opened.log);
    } finally {
      await opened.context.close();
    }
  }, 60_000);

  it("an audience too large for a link opens from its short link, and the notice offers that link", async () => {
    // 1,500 made-up company domains: far beyond what a link may carry once compressed.
    const domains = Array.from({ length: 1500 }, (_, i) => `c${(i * 7919).toString(36)}x${i}.example`);
    const big: GroupNode = {
      type: "group",
      op: "AND",
      negate: false,
      children: [
        { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["United States"] },
        { type: "condition", column: "DOMAIN_ORG", operator: "in", valueList: domains },
      ],
    };
    expect(encodeTreeForUrl(big).length).toBeGreaterThan(8_000);
    const cy = await signIn(env.app.url, "cy");
    const made = await cy.post<{ id: string }>("/api/audiences", {
      name: "Big list",
      filter: big,
      shared: true,
    });
    expect(made.status, made.text).toBe(201);
    const opened = await signedIn("bo", `/a/${made.body.id}`);
    try {
      const { page: p } = opened;
      await poll(() => openName(p)).toBe("Big list");
      await poll(() => p.getByRole("heading", { level: 1 }).textContent()).toBe("Builder");
      // Not in the URL (too large), yet the Builder holds it, and the notice gives its short link.
      const notice = p.locator(".builder-notice", { hasText: "too large for a link" });
      await poll(() => notice.textContent()).toContain(
        `its short link opens the saved “Big list”: ${env.app.url}/a/${made.body.id}`,
      );
      expect(new URL(p.url()).searchParams.has("a")).toBe(false);
      expect(await notice.getByRole("button", { name: "Copy short link" }).count()).toBe(1);
      await screenshot(p, SHOTS, "10-too-large-short-link", { fromTop: true });
      // A reload keeps it (the crash buffer), still open.
      await p.reload();
      await poll(() => openName(p)).toBe("Big list");
      expect(await openBar(p).getAttribute("data-unsaved")).toBe("false");
      await opened.log.settle();
      expectClean(opened.log);
    } finally {
      await opened.context.close();
    }
  }, 60_000);

  it("moves audiences saved in this browser before the change to the server once, private", async () => {
    const opened = await openPage(env.browser, { width: 1360, height: 900 });
    const { page: p, context } = opened;
    try {
      // What an earlier version left in this browser (seeded before the app's first script runs,
      // and only until the move has marked it).
      const old = [
        {
          id: "local-e2e-1",
          name: "Saved before the team",
          tree: AUDIENCE,
          lastCount: 123,
          createdAt: "2026-11-20T10:00:00.000Z",
          updatedAt: "2026-11-20T10:00:00.000Z",
        },
        { id: "local-e2e-2", name: "Unreadable", tree: { type: "nonsense" }, lastCount: null },
      ];
      await context.addInitScript((value) => {
        if (localStorage.getItem("ab.savedAudiences.v1.moved") === null)
          localStorage.setItem("ab.savedAudiences.v1", value);
      }, JSON.stringify(old));
      await p.goto(`${env.app.url}/`);
      await p.getByLabel("Name").fill("ada");
      await p.getByLabel("Password").fill(PASSWORD("ada"));
      await p.getByRole("button", { name: "Sign in" }).click();
      await poll(() => p.getByTestId("saved-moved").textContent()).toBe(
        "Moved 1 audience saved in this browser to your team's list (private).",
      );
      // What stayed in this browser stays in view, with a way to get it out.
      const left = p.getByTestId("saved-left-behind");
      await poll(() => left.locator("p").first().textContent()).toBe(
        "One audience saved in this browser cannot be read by this version. It is kept in this browser only: download it as JSON.",
      );
      expect(await left.getByRole("button", { name: "Download as JSON" }).isVisible()).toBe(true);
      await poll(() => rowFacts(p, "Saved before the team")).toMatchObject({
        owner: "ada",
        sharing: "Private",
        version: "1",
      });
      await screenshot(p, SHOTS, "09-moved-from-browser", { fromTop: true });
      expect(await p.evaluate(() => localStorage.getItem("ab.savedAudiences.v1.backup"))).toBe(
        JSON.stringify(old),
      );
      // Once: a reload moves nothing again.
      await p.reload();
      await poll(() => row(p, "Saved before the team").count()).toBe(1);
      expect(await p.getByTestId("saved-moved").count()).toBe(0);
      // ...but what stayed behind is still shown.
      await poll(() => p.getByTestId("saved-left-behind").count()).toBe(1);
      const posts = opened.log.exchanges.filter(
        (e) => e.method === "POST" && new URL(e.url).pathname === "/api/audiences",
      );
      expect(posts).toHaveLength(1);

      // An entry the server refused (422) during an earlier move stays in this browser with the
      // server's reason: shown on every load, and it can be opened in the Builder.
      await p.evaluate((tree) => {
        const kept = JSON.parse(localStorage.getItem("ab.savedAudiences.v1") ?? "[]") as unknown[];
        localStorage.setItem(
          "ab.savedAudiences.v1",
          JSON.stringify([{ id: "local-e2e-3", name: "Refused one", tree, lastCount: 7 }, ...kept]),
        );
        const marker = JSON.parse(localStorage.getItem("ab.savedAudiences.v1.moved") ?? "{}");
        localStorage.setItem(
          "ab.savedAudiences.v1.moved",
          JSON.stringify({
            ...marker,
            refused: [{ id: "local-e2e-3", reason: "The server refused it: the name is too long." }],
          }),
        );
      }, AUDIENCE);
      await p.reload();
      const stayed = p.getByTestId("saved-left-behind");
      await poll(() => stayed.locator("p").first().textContent()).toBe(
        "1 audience from this browser could not be moved: The server refused it: the name is too long. One more saved in this browser cannot be read by this version. They are kept in this browser only: download them as JSON, or open one in the Builder and save it.",
      );
      await stayed
        .getByRole("button", { name: "Open “Refused one” from this browser in the Builder" })
        .click();
      await poll(() => p.getByText(/Opened “Refused one” from this browser\./).count()).toBe(1);
      await screenshot(p, SHOTS, "11-left-in-this-browser", { fromTop: true });
      await opened.log.settle();
      expectClean(opened.log);
    } finally {
      await context.close();
    }
  }, 60_000);
});
