// @vitest-environment jsdom
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AudienceLabelContext } from "../../../../src/app/features/checkout/audience-label";
import { EnrichPanel } from "../../../../src/app/features/checkout/enrich-panel";
import { ExportPanel } from "../../../../src/app/features/checkout/export-panel";
import { activeExport, lastEnrich } from "../../../../src/app/features/checkout/saved-results";
import { checkedSelection } from "../../../../src/app/lib/selection-check";
import { JOURNAL_KEY, pendingPurchase, resetJournalMemory } from "../../../../src/app/lib/spend-journal";
import { canonicalKey } from "../../../../src/contract/canonical";
import type { GroupNode } from "../../../../src/contract/filter";
import type { Approval, EnrichReview, ExportReview, PolicyVerdict } from "../../../../src/contract/spending";
import { installFakeFetch, json, renderWithClient, type SentRequest } from "../audience/harness";

/**
 * The Checkout's review screens against the proxy's contract, with fetch faked at the boundary:
 * what the review says before the click, what Confirm says and allows, and the approval flow
 * (202, polled, the same key sent once again when it ran).
 */

const IDS = ["pao_a", "pao_b", "pao_c", "pao_d", "pao_e"];
const NAMES = { pao_a: "Ada Lovelace", pao_b: "Bo Diddley", pao_c: "Cy Twombly", pao_d: "Di Fortune" };
/** The five selected, all still in the audience, with the names the sample showed. */
const SELECTED = checkedSelection(IDS, IDS, NAMES);
const OK: PolicyVerdict = { verdict: "ok", reason: null, caps: [], approvalThreshold: null };

function enrichReviewOf(policy: PolicyVerdict = OK, owned = ["pao_a", "pao_b", "pao_c"]): EnrichReview {
  const suppressed = ["pao_d"].filter((id) => !owned.includes(id));
  const toBuy = IDS.filter((id) => !owned.includes(id) && !suppressed.includes(id));
  return {
    kind: "enrich",
    selected: 5,
    alreadyYours: owned,
    suppressed,
    toBuy,
    credits: toBuy.length * 2,
    policy,
  };
}

const approval = (state: Approval["state"], extra: Partial<Approval> = {}): Approval => ({
  id: "apr_1",
  requestedBy: "bo",
  requestedAt: "2026-11-25T16:00:00Z",
  operation: "enrich",
  summary: "Enrich 5 contacts, emails revealed",
  creditsEstimated: 60,
  audienceName: null,
  state,
  decidedBy: state === "waiting" ? null : "ada",
  decidedAt: state === "waiting" ? null : "2026-11-25T16:01:00Z",
  outcome: null,
  ...extra,
});

interface Proxy {
  review?: (body: Record<string, unknown>) => Response;
  enrich?: (request: SentRequest, n: number) => Response;
  approvals?: (n: number) => Response;
  exportStart?: (request: SentRequest) => Response;
}

function fakeProxy(proxy: Proxy) {
  const counts = { enrich: 0, approvals: 0 };
  const sent = installFakeFetch((request) => {
    const path = request.path;
    if (path === "/api/session")
      return json({ mode: "sandbox", plan: "PAYG", user: "bo", role: "buyer", keyLast4: "abcd" });
    if (path === "/api/v2/credits") return json({ credits: 1000, plan: "PAYG" });
    if (path === "/api/purchases/review" && proxy.review)
      return proxy.review(request.body as Record<string, unknown>);
    if (path === "/api/v2/contact/enrich" && proxy.enrich) return proxy.enrich(request, ++counts.enrich);
    if (path === "/api/approvals" && proxy.approvals) return proxy.approvals(++counts.approvals);
    if (path === "/api/v2/contact/export" && proxy.exportStart) return proxy.exportStart(request);
    if (path === "/api/v2/contact/exports") return json({ exports: [] });
    return json({ detail: `not faked: ${path}` }, { status: 404 });
  });
  return { sent, counts, to: (path: string) => sent.filter((r) => r.path === path) };
}

const enriched = (n: number) =>
  json({
    rows: IDS.slice(0, n).map((id) => ({ RBID_PAO: id, FULL_NAME_PER: id })),
    matched: n,
    notFound: [],
    creditsCharged: 2,
    creditsRemaining: 998,
  });

async function openReview() {
  fireEvent.click(await screen.findByRole("button", { name: "Review the purchase" }));
  return screen.findByTestId("enrich-review");
}

beforeEach(() => {
  window.localStorage.clear();
  resetJournalMemory();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  lastEnrich.set(null);
  activeExport.set(null);
});

describe("Enrich: the review before the confirm click", () => {
  it("says who is already yours, suppressed or new, by name, and what Confirm costs", async () => {
    const proxy = fakeProxy({ review: () => json(enrichReviewOf()) });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    const review = await openReview();
    expect(within(review).getByTestId("enrich-review-sentence").textContent).toMatch(
      /^5 selected: 3 already yours \(free\), 1 suppressed \(on a do-not-contact list, left out\), 1 to buy: up to 2 credits/,
    );
    const people = within(review)
      .getAllByRole("listitem")
      .map((li) => li.textContent);
    expect(people).toEqual([
      "Ada LovelaceAlready yours",
      "Bo DiddleyAlready yours",
      "Cy TwomblyAlready yours",
      "Di FortuneSuppressed",
      "pao_eNew",
    ]);
    const confirm = await screen.findByRole("button", {
      name: /^Confirm: buy 1 new for up to 2 credits.*get 3 free$/,
    });
    await waitFor(() => expect((confirm as HTMLButtonElement).disabled).toBe(false));
    const asked = proxy.to("/api/purchases/review")[0]?.body as Record<string, unknown>;
    expect(asked).toMatchObject({ kind: "enrich", personIds: IDS, reveal: "email" });
    expect(Array.isArray(asked.columns)).toBe(true);
    expect(document.body.textContent).not.toMatch(/RBID_PAO|alreadyYours|toBuy/);
  });

  it("names the saved audience it is bought from, for the team's ledger (X-Audience-Name)", async () => {
    const proxy = fakeProxy({
      review: () => json({ ...enrichReviewOf(OK, []), suppressed: [], toBuy: IDS, credits: 10 }),
      enrich: () => enriched(5),
    });
    renderWithClient(
      <AudienceLabelContext.Provider value="Köln leads, version 2">
        <EnrichPanel selection={SELECTED} />
      </AudienceLabelContext.Provider>,
    );
    await openReview();
    const confirm = await screen.findByRole("button", { name: /^Confirm/ });
    await waitFor(() => expect((confirm as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(confirm);
    await waitFor(() => expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1));
    const header = proxy.to("/api/v2/contact/enrich")[0]?.headers.get("x-audience-name");
    expect(decodeURIComponent(header ?? "")).toBe("Köln leads, version 2");
  });

  it("everything already the team's: Get the 5 (free)", async () => {
    fakeProxy({ review: () => json({ ...enrichReviewOf(OK, IDS), suppressed: [], toBuy: [], credits: 0 }) });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    expect(await screen.findByRole("button", { name: "Get the 5 (free)" })).toBeTruthy();
  });

  it("everyone suppressed: nothing to get, Confirm off with why", async () => {
    fakeProxy({
      review: () => json({ ...enrichReviewOf(OK, []), suppressed: IDS, toBuy: [], credits: 0 }),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const button = await screen.findByRole("button", { name: "Nothing to get" });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole("alert").textContent).toContain(
      "every one of them is on one of your team's do-not-contact lists",
    );
  });

  it("asks again when the reveal changes (the review is keyed on it)", async () => {
    const proxy = fakeProxy({ review: () => json(enrichReviewOf()) });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    fireEvent.click(screen.getByRole("button", { name: "Back" }));
    fireEvent.click(await screen.findByRole("radio", { name: /^Email and mobile/ }));
    await openReview();
    await waitFor(() => expect(proxy.to("/api/purchases/review")).toHaveLength(2));
    expect(proxy.to("/api/purchases/review")[1]?.body).toMatchObject({ reveal: "both" });
  });

  it("follows the selection while the confirm step is open (asked again for the new people)", async () => {
    const proxy = fakeProxy({ review: () => json(enrichReviewOf()) });
    const view = renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    view.rerender(<EnrichPanel selection={checkedSelection(IDS.slice(0, 4), IDS, NAMES)} />);
    await waitFor(() => expect(proxy.to("/api/purchases/review")).toHaveLength(2));
    expect(proxy.to("/api/purchases/review")[1]?.body).toMatchObject({ personIds: IDS.slice(0, 4) });
    expect(screen.getByRole("region", { name: "Confirm the enrichment" }).textContent).toContain(
      "the 4 people selected in the sample",
    );
  });

  it("a cap refuses it: Confirm is off, with the reason said once (not again as the caps)", async () => {
    const reason =
      "This purchase may cost up to 12 credits; your monthly cap is 50 and 40 are already spent this month, so 10 are left.";
    fakeProxy({
      review: () =>
        json(
          enrichReviewOf({
            verdict: "refused",
            reason,
            caps: [{ scope: "person", cap: 50, spent: 40, left: 10 }],
            approvalThreshold: null,
          }),
        ),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const alert = await screen.findByText(/This purchase may cost up to 12 credits/);
    expect(alert.textContent).toBe(`${reason} Nothing is spent.`);
    expect((screen.getByRole("button", { name: /^Confirm: buy 1 new/ }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it("above the threshold: the button asks an admin, and says up to what", async () => {
    fakeProxy({
      review: () =>
        json({
          ...enrichReviewOf({ verdict: "approval", reason: null, caps: [], approvalThreshold: 20 }, []),
          suppressed: [],
          toBuy: IDS,
          credits: 60,
        }),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    expect(
      (
        (await screen.findByRole("button", {
          name: "Ask an admin to approve (up to 60 credits)",
        })) as HTMLButtonElement
      ).disabled,
    ).toBe(false);
    expect(screen.getByTestId("policy-approval").textContent).toContain("approval limit of 20 credits");
  });

  it("a 403 CAP_REACHED on the purchase is said in words: nothing spent", async () => {
    fakeProxy({
      review: () => json(enrichReviewOf()),
      enrich: () =>
        json(
          {
            detail: "This would pass the team's monthly cap: 3 credits are left this month.",
            code: "CAP_REACHED",
          },
          { status: 403 },
        ),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const confirm = await screen.findByRole("button", { name: /^Confirm: buy 1 new/ });
    await waitFor(() => expect((confirm as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(confirm);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Not bought: it would pass a monthly spending cap");
    expect(alert.textContent).toContain(
      "3 credits are left this month. Nothing was sent and nothing was spent.",
    );
    expect(alert.textContent).not.toMatch(/CAP_REACHED|403/);
    expect(alert.textContent?.match(/Nothing was sent/g)).toHaveLength(1);
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });
});

describe("the approval flow", () => {
  it("approved but not carried out: says why, and buys only on the requester's click, same key", async () => {
    const notDone =
      "Approved, but not carried out: the data service was busy. Nothing was charged; sending the same request again (same key) runs it.";
    const proxy = fakeProxy({
      review: () =>
        json(enrichReviewOf({ verdict: "approval", reason: null, caps: [], approvalThreshold: 1 })),
      enrich: (_request, n) =>
        n === 1 ? json({ approvalRequested: approval("waiting") }, { status: 202 }) : enriched(5),
      approvals: () => json({ approvals: [approval("approved", { outcome: notDone })] }),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const ask = await screen.findByRole("button", { name: /^Ask an admin to approve/ });
    await waitFor(() => expect((ask as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(ask);
    const buy = await screen.findByRole("button", { name: /^Buy it now \(approved, up to 60 credits\)/ });
    expect(screen.getByTestId("approval-state").textContent).toContain("the data service was busy");
    expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1);
    fireEvent.click(buy);
    await waitFor(() => expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(2));
    const [first, second] = proxy.to("/api/v2/contact/enrich");
    expect(second?.headers.get("idempotency-key")).toBe(first?.headers.get("idempotency-key"));
    expect(await screen.findByText("Enriched rows")).toBeTruthy();
  });

  it("202: Sent for approval, polled; once it ran, the same key once more gets the rows", async () => {
    let state: Approval["state"] = "waiting";
    const proxy = fakeProxy({
      review: () =>
        json(enrichReviewOf({ verdict: "approval", reason: null, caps: [], approvalThreshold: 1 })),
      enrich: (_request, n) =>
        n === 1 ? json({ approvalRequested: approval("waiting") }, { status: 202 }) : enriched(5),
      approvals: () => json({ approvals: [approval(state)] }),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const ask = await screen.findByRole("button", { name: /^Ask an admin to approve/ });
    await waitFor(() => expect((ask as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(ask);
    expect(await screen.findByRole("heading", { name: "Sent for approval" })).toBeTruthy();
    expect(screen.getByTestId("approval-state").textContent).toContain("Waiting for an admin to approve it");
    expect(pendingPurchase(window.localStorage, "enrich")?.approvalId).toBe("apr_1");
    await waitFor(() => expect(proxy.counts.approvals).toBeGreaterThanOrEqual(1));
    expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1);

    state = "ran";
    await waitFor(() => expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(2), { timeout: 8000 });
    const [first, second] = proxy.to("/api/v2/contact/enrich");
    expect(second?.headers.get("idempotency-key")).toBe(first?.headers.get("idempotency-key"));
    expect(second?.body).toEqual(first?.body);
    expect(await screen.findByText("Enriched rows")).toBeTruthy();
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
    // Nothing more is sent by itself.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(2);
  }, 20_000);

  it("denied: who denied it and why; nothing sent again, the purchase is over", async () => {
    const proxy = fakeProxy({
      review: () =>
        json(enrichReviewOf({ verdict: "approval", reason: null, caps: [], approvalThreshold: 1 })),
      enrich: () => json({ approvalRequested: approval("waiting") }, { status: 202 }),
      approvals: () => json({ approvals: [approval("denied", { outcome: "Not this month." })] }),
    });
    renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const ask = await screen.findByRole("button", { name: /^Ask an admin to approve/ });
    await waitFor(() => expect((ask as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(ask);
    const denied = await screen.findByRole(
      "heading",
      { name: "Not bought: ada denied the enrichment" },
      { timeout: 5000 },
    );
    expect(denied.parentElement?.textContent).toContain("Why: Not this month.");
    expect(denied.parentElement?.textContent).toContain("nothing was spent");
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
    expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1);
  });

  it("a reload while waiting keeps waiting with the same key, and sends nothing", async () => {
    const proxy = fakeProxy({
      review: () =>
        json(enrichReviewOf({ verdict: "approval", reason: null, caps: [], approvalThreshold: 1 })),
      enrich: () => json({ approvalRequested: approval("waiting") }, { status: 202 }),
      approvals: () => json({ approvals: [approval("waiting")] }),
    });
    const first = renderWithClient(<EnrichPanel selection={SELECTED} />);
    await openReview();
    const ask = await screen.findByRole("button", { name: /^Ask an admin to approve/ });
    await waitFor(() => expect((ask as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(ask);
    await screen.findByRole("heading", { name: "Sent for approval" });
    const key = pendingPurchase(window.localStorage, "enrich")?.calls[0]?.key;
    first.unmount();

    renderWithClient(<EnrichPanel selection={SELECTED} />);
    expect(await screen.findByRole("heading", { name: "Sent for approval" })).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId("approval-state").textContent).toContain("Waiting for an admin"),
    );
    expect(screen.queryByRole("button", { name: "Review the purchase" })).toBeNull();
    expect(pendingPurchase(window.localStorage, "enrich")?.calls[0]?.key).toBe(key);
    expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1);
  });
});

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};

/** The export of Germany (1,000 people), with `selection` ticked in its sample. */
function exportPanel(selection = checkedSelection([])) {
  return (
    <ExportPanel filter={GERMANY} valid description="Country is Germany" count={1000} selection={selection} />
  );
}

function exportReviewOf(owned: ExportReview["owned_choice"]): ExportReview {
  return {
    kind: "export",
    audience: 1000,
    suppressed: 20,
    owned: 30,
    owned_choice: owned,
    rows: owned === "buy-again" ? 980 : 950,
    withEmail: 800,
    withMobile: 100,
    credits: owned === "buy-again" ? 2080 : 2050,
    freeRows: owned === "add-free" ? 30 : 0,
    balance: 10_000,
    sufficient: true,
    notes: ["Email addresses on your lists apply only to contacts your team already has."],
    policy: {
      verdict: "ok",
      reason: null,
      caps: [{ scope: "team", cap: 5000, spent: 100, left: 4900 }],
      approvalThreshold: null,
    },
  };
}

describe("Export: the estimate with owned contacts", () => {
  it("shows audience, suppressed, owned, new and cost; the owned choice goes in X-Owned-Contacts", async () => {
    const proxy = fakeProxy({
      review: (body) => json(exportReviewOf(body.owned as ExportReview["owned_choice"])),
      exportStart: () =>
        json({ exportId: "exp_1", status: "QUEUED", rows: 950, credits: 2050 }, { status: 202 }),
    });
    renderWithClient(exportPanel());
    fireEvent.click(await screen.findByRole("button", { name: "Estimate" }));
    const estimate = await screen.findByTestId("estimate");
    expect(within(estimate).getByTestId("estimate-audience").textContent).toBe("1,000");
    expect(within(estimate).getByTestId("estimate-suppressed").textContent).toBe("20");
    expect(within(estimate).getByTestId("estimate-owned").textContent).toBe("30");
    expect(within(estimate).getByTestId("estimate-rows").textContent).toBe("950");
    expect(within(estimate).getByTestId("estimate-notes").textContent).toContain(
      "Email addresses on your lists",
    );
    expect(
      (
        screen.getByRole("radio", {
          name: /^Leave out the 30 contacts you already own \(default\)/,
        }) as HTMLInputElement
      ).checked,
    ).toBe(true);
    expect(screen.getByTestId("policy-caps").textContent).toContain(
      "100 of the team's 5,000 credits this month are spent",
    );

    fireEvent.click(screen.getByRole("radio", { name: /^Add them to the file for free/ }));
    await waitFor(() => expect(screen.getByTestId("estimate-free").textContent).toBe("30"));
    expect(proxy.to("/api/purchases/review").at(-1)?.body).toMatchObject({
      kind: "export",
      owned: "add-free",
    });
    const confirm = await screen.findByRole("button", { name: "Confirm and export 950 rows (+ 30 free)" });
    fireEvent.click(confirm);
    await waitFor(() => expect(proxy.to("/api/v2/contact/export")).toHaveLength(1));
    const start = proxy.to("/api/v2/contact/export")[0]!;
    expect(start.headers.get("x-owned-contacts")).toBe("add-free");
    expect(start.body).not.toHaveProperty("ownedContacts");
    expect(start.body).not.toHaveProperty("owned");
    expect(start.body).toMatchObject({ maxRows: 1000, reveal: "email" });
  });
});

describe("Export: an approval request", () => {
  it("above the threshold: Ask an admin; 202 Sent for approval; once it ran, the same key starts following the export", async () => {
    let state: Approval["state"] = "waiting";
    let starts = 0;
    const proxy = fakeProxy({
      review: (body) =>
        json({
          ...exportReviewOf(body.owned as ExportReview["owned_choice"]),
          policy: { verdict: "approval", reason: null, caps: [], approvalThreshold: 500 },
        }),
      exportStart: () => {
        starts += 1;
        return starts === 1
          ? json(
              { approvalRequested: { ...approval("waiting"), id: "apr_2", operation: "exportStart" } },
              { status: 202 },
            )
          : json({ exportId: "exp_9", status: "QUEUED", rows: 950, credits: 2050 }, { status: 202 });
      },
      approvals: () => json({ approvals: [{ ...approval(state), id: "apr_2", operation: "exportStart" }] }),
    });
    renderWithClient(exportPanel());
    fireEvent.click(await screen.findByRole("button", { name: "Estimate" }));
    fireEvent.click(
      await screen.findByRole("button", { name: "Ask an admin to approve (up to 2,050 credits)" }),
    );
    expect(await screen.findByRole("heading", { name: "Sent for approval" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Estimate again" })).toBeNull();
    state = "ran";
    await waitFor(() => expect(proxy.to("/api/v2/contact/export")).toHaveLength(2), { timeout: 8000 });
    const [first, second] = proxy.to("/api/v2/contact/export");
    expect(second?.headers.get("idempotency-key")).toBe(first?.headers.get("idempotency-key"));
    expect(second?.headers.get("x-owned-contacts")).toBe("leave-out");
    await waitFor(() => expect(activeExport.get()?.exportId).toBe("exp_9"));
  }, 20_000);
});

describe("Export: only this audience's export is shown as its own", () => {
  const followedGermany = () =>
    activeExport.set({
      v: 1,
      exportId: "exp_de",
      name: null,
      rows: 950,
      credits: 2050,
      summary: "950 rows of the audience: Country is Germany",
      columns: ["RBID_PAO"],
      startedAt: new Date().toISOString(),
      downloaded: false,
      lastStatus: "PROCESSING",
      audienceKey: canonicalKey(GERMANY),
      audience: "Country is Germany",
    });

  it("under another audience: said in a line with the way to it, and the form for this one", async () => {
    fakeProxy({});
    followedGermany();
    const france: GroupNode = {
      ...GERMANY,
      children: [{ ...GERMANY.children[0]!, value: "France" } as never],
    };
    renderWithClient(
      <ExportPanel
        filter={france}
        valid
        description="Country is France"
        count={900}
        selection={checkedSelection([])}
      />,
    );
    const note = await screen.findByText(/^Your last export was of another audience/);
    expect(note.textContent).toBe(
      "Your last export was of another audience (Country is Germany), just now. Show it",
    );
    expect(screen.getByRole("button", { name: "Estimate" })).toBeTruthy();
    fireEvent.click(within(note).getByRole("button", { name: "Show it" }));
    expect(await screen.findByText(/950 rows of the audience: Country is Germany/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Estimate" })).toBeNull();
  });

  it("under its own audience: its progress, at once", async () => {
    fakeProxy({});
    followedGermany();
    renderWithClient(exportPanel());
    expect(await screen.findByText(/950 rows of the audience: Country is Germany/)).toBeTruthy();
    expect(screen.queryByText(/another audience/)).toBeNull();
  });
});

describe("The selection rule: people who left the audience are marked and never bought", () => {
  // Four of the five left the audience after an edit; only pao_e is still in it.
  const LEFT_FOUR = checkedSelection(IDS, ["pao_e"], NAMES);
  const LEFT_WORDS = "4 of 5 selected people left the audience after your edits; 1 will be bought.";
  const onlyE: EnrichReview = {
    kind: "enrich",
    selected: 1,
    alreadyYours: [],
    suppressed: [],
    toBuy: ["pao_e"],
    credits: 2,
    policy: OK,
  };

  it("Enrich reviews and buys only the one still in it, and lists the four as no longer in it", async () => {
    const proxy = fakeProxy({ review: () => json(onlyE), enrich: () => enriched(1) });
    renderWithClient(<EnrichPanel selection={LEFT_FOUR} />);
    const choice = screen.getByRole("radio", {
      name: /^The 1 still in this audience, of the 5 selected in the sample/,
    });
    expect((choice as HTMLInputElement).checked).toBe(true);
    expect(choice.closest("label")?.textContent).toContain(LEFT_WORDS);
    const review = await openReview();
    expect(within(review).getByTestId("enrich-review-left").textContent).toBe(LEFT_WORDS);
    expect(
      within(review)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual([
      "pao_eNew",
      "Ada LovelaceNo longer in this audience",
      "Bo DiddleyNo longer in this audience",
      "Cy TwomblyNo longer in this audience",
      "Di FortuneNo longer in this audience",
    ]);
    expect(proxy.to("/api/purchases/review")[0]?.body).toMatchObject({ personIds: ["pao_e"] });
    const region = screen.getByRole("region", { name: "Confirm the enrichment" });
    expect(region.textContent).toContain(
      "the 1 person selected in the sample still in this audience (4 who left it are not bought)",
    );
    const confirm = await screen.findByRole("button", { name: /^Confirm: buy 1 new for up to 2 credits/ });
    await waitFor(() => expect((confirm as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(confirm);
    await waitFor(() => expect(proxy.to("/api/v2/contact/enrich")).toHaveLength(1));
    expect(proxy.to("/api/v2/contact/enrich")[0]?.body).toMatchObject({ personIds: ["pao_e"] });
    expect(proxy.to("/api/v2/contact/enrich")[0]?.headers.get("idempotency-key")).toBeTruthy();
  });

  it("Export estimates exactly the same one: the audience AND her id, at most 1 row", async () => {
    const proxy = fakeProxy({
      review: (body) => json(exportReviewOf(body.owned as ExportReview["owned_choice"])),
    });
    renderWithClient(exportPanel(LEFT_FOUR));
    const choice = screen.getByRole("radio", { name: /^Only the 1 selected still in this audience/ });
    expect(choice.closest("label")?.textContent).toContain(LEFT_WORDS);
    fireEvent.click(choice);
    await waitFor(() =>
      expect((screen.getByRole("spinbutton", { name: "Most rows" }) as HTMLInputElement).value).toBe("1"),
    );
    fireEvent.click(screen.getByRole("button", { name: "Estimate" }));
    await waitFor(() => expect(proxy.to("/api/purchases/review")).toHaveLength(1));
    const asked = proxy.to("/api/purchases/review")[0]?.body as { filter: GroupNode; maxRows: number };
    expect(asked.maxRows).toBe(1);
    expect(asked.filter.children.at(-1)).toEqual({
      type: "condition",
      column: "RBID_PAO",
      operator: "in",
      valueList: ["pao_e"],
    });
    expect(JSON.stringify(asked.filter)).toContain('"value":"Germany"');
  });

  it("nothing of the selection is bought before the check has answered, or when everyone left", async () => {
    const proxy = fakeProxy({ review: () => json(onlyE) });
    const checking = {
      ...checkedSelection(IDS, [], NAMES),
      state: "checking" as const,
      kept: [],
      left: [],
      problem: "Checking who of the people you selected is still in this audience…",
    };
    const view = renderWithClient(<EnrichPanel selection={checking} />);
    const review = screen.getByRole("button", { name: "Review the purchase" }) as HTMLButtonElement;
    expect(review.disabled).toBe(true);
    expect(
      screen.getByRole("radio", { name: /^The 5 selected in the sample/ }).closest("label")?.textContent,
    ).toContain(checking.problem);

    view.rerender(<EnrichPanel selection={checkedSelection(IDS, [], NAMES)} />);
    fireEvent.click(screen.getByRole("button", { name: "Review the purchase" }));
    await waitFor(() =>
      expect(screen.getByRole("alert").textContent).toContain(
        "5 of 5 selected people left the audience after your edits; no one will be bought.",
      ),
    );
    expect(screen.queryByRole("region", { name: "Confirm the enrichment" })).toBeNull();
    cleanup();

    renderWithClient(exportPanel(checking));
    fireEvent.click(screen.getByRole("radio", { name: /^Only the 5 selected/ }));
    await waitFor(() =>
      expect((screen.getByRole("button", { name: "Estimate" }) as HTMLButtonElement).disabled).toBe(true),
    );
    expect(proxy.to("/api/purchases/review")).toHaveLength(0);
  });
});
