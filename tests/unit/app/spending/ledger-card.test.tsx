// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { thisMonth } from "../../../../src/app/api/spending";
import { LedgerCard } from "../../../../src/app/features/spending/ledger-card";
import { createQueryClient } from "../../../../src/app/query-client";
import type { LedgerEntry } from "../../../../src/contract/ledger";
import { fakeApi, json, type Seen } from "./fake-api";

const entry = (over: Partial<LedgerEntry>): LedgerEntry => ({
  id: "e1",
  at: "2026-11-25T10:00:00Z",
  person: "bo",
  operation: "enrich",
  audienceName: "German CTOs",
  filter: null,
  rows: 5,
  rowsFree: 3,
  detail: null,
  creditsEstimated: 4,
  creditsCharged: 4,
  outcome: "charged",
  keyLast4: "ab12",
  ...over,
});

const ENTRIES = [
  entry({}),
  entry({
    id: "e2",
    operation: "preview",
    rows: 10,
    rowsFree: 0,
    creditsEstimated: 20,
    creditsCharged: null,
    outcome: "unknown",
  }),
  entry({
    id: "e3",
    operation: "exportStart",
    person: "ada",
    rows: 500,
    rowsFree: 0,
    creditsEstimated: 900,
    creditsCharged: null,
    outcome: "pending",
    audienceName: null,
    filter: {
      type: "group",
      op: "AND",
      children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
    },
  }),
];

let seen: Seen[] = [];
beforeEach(() => {
  seen = fakeApi(({ method, path, search }) => {
    if (method === "GET" && path === "/api/ledger") {
      const person = search.get("person");
      const entries = person ? ENTRIES.filter((e) => e.person === person) : ENTRIES;
      return json({
        entries,
        totals: {
          entries: entries.length,
          rows: entries.reduce((n, e) => n + e.rows, 0),
          rowsFree: entries.reduce((n, e) => n + e.rowsFree, 0),
          creditsCharged: entries.reduce((n, e) => n + (e.creditsCharged ?? 0), 0),
          unknown: entries.filter((e) => e.outcome === "unknown").length,
        },
      });
    }
    if (method === "GET" && path === "/api/ledger.csv")
      return new Response("when,who\r\n", {
        headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="ledger.csv"' },
      });
    return json({ detail: "Not found" }, 404);
  });
  vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: () => "blob:x", revokeObjectURL: () => {} }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderCard(people: string[] | null) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <LedgerCard people={people} />
    </QueryClientProvider>,
  );
}

describe("the ledger", () => {
  it("shows each purchase in words: what, rows already the team's, estimated and charged, the outcome", async () => {
    renderCard(["ada", "bo"]);
    const table = await screen.findByRole("table");
    const rows = within(table).getAllByRole("row").slice(1);
    const text = rows.map((row) =>
      within(row)
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    );
    expect(text[0]?.slice(1)).toEqual([
      "bo",
      "Enrich",
      "German CTOs",
      "5 (3 already yours)",
      "4 credits",
      "4 credits",
      "Charged",
    ]);
    expect(text[1]?.slice(2)).toEqual([
      "Sample with contact details",
      "German CTOs",
      "10",
      "20 credits",
      "Not known",
      "Not known — check the balance",
    ]);
    expect(text[2]?.slice(2)).toEqual([
      "Export",
      // What it was bought from, in plain English, under the (absent) audience name.
      'No saved audienceCountry is "Germany"',
      "500",
      "900 credits",
      "Not known",
      "Pending — charged when it completes",
    ]);
    const totals = screen.getByTestId("ledger-totals");
    expect(totals.textContent).toBe(
      "Charged4 creditsPurchases3Rows515 (3 already yours)Not known1 — check the balance (not counted in the charged total)",
    );
    // This month by default, for everyone the admin may read.
    expect(seen[0]?.search.get("month")).toBe(thisMonth());
    expect(seen[0]?.search.has("person")).toBe(false);
    // No internal names anywhere.
    expect(document.body.textContent).not.toMatch(/exportStart|preview\b|RBID|keyLast4/);
  });

  it("filters by person and month, and the CSV follows the same filters", async () => {
    const user = userEvent.setup();
    renderCard(["ada", "bo"]);
    await screen.findByRole("table");
    await user.selectOptions(screen.getByLabelText("Person"), "ada");
    await vi.waitFor(() => expect(screen.getAllByRole("row")).toHaveLength(2));
    expect(seen.at(-1)?.search.get("person")).toBe("ada");
    const month = screen.getByLabelText("Month");
    await user.clear(month);
    await vi.waitFor(() => expect(seen.at(-1)?.search.has("month")).toBe(false));
    await user.click(screen.getByRole("button", { name: "Download CSV" }));
    await vi.waitFor(() => expect(seen.at(-1)?.path).toBe("/api/ledger.csv"));
    expect(Object.fromEntries(seen.at(-1)!.search)).toEqual({ person: "ada" });
  });

  it("offers no person filter to someone who reads only their own, and says when there is nothing", async () => {
    seen = fakeApi(() =>
      json({ entries: [], totals: { entries: 0, rows: 0, rowsFree: 0, creditsCharged: 0, unknown: 0 } }),
    );
    renderCard(null);
    expect(await screen.findByText(/^No purchases by you in /)).toBeTruthy();
    expect(screen.queryByLabelText("Person")).toBeNull();
  });

  it("says in words when the ledger cannot be read", async () => {
    fakeApi(() => json({ detail: "The ledger is for signed-in people." }, 403));
    renderCard(null);
    expect((await screen.findByRole("alert")).textContent).toMatch(
      /^The ledger could not be loaded: The ledger is for signed-in people\./,
    );
  });
});
