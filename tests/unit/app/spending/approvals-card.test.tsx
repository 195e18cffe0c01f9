// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApprovalsCard } from "../../../../src/app/features/spending/approvals-card";
import { createQueryClient } from "../../../../src/app/query-client";
import type { Approval } from "../../../../src/contract/spending";
import { fakeApi, json } from "./fake-api";

const approval = (over: Partial<Approval>): Approval => ({
  id: "ap1",
  requestedBy: "bo",
  requestedAt: "2026-11-25T10:00:00Z",
  operation: "enrich",
  summary: "Enrich 12 contacts, emails revealed",
  creditsEstimated: 24,
  audienceName: "German CTOs",
  state: "waiting",
  decidedBy: null,
  decidedAt: null,
  outcome: null,
  ...over,
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderCard(admin: boolean, me: string) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ApprovalsCard admin={admin} me={me} />
    </QueryClientProvider>,
  );
}

describe("approvals", () => {
  it("an admin approves a waiting request; a cap reached meanwhile is said in words and nothing is bought", async () => {
    const list = [approval({}), approval({ id: "ap2", requestedBy: "ada", summary: "Export 300 rows" })];
    const seen = fakeApi(({ method, path }) => {
      if (method === "GET" && path === "/api/approvals") return json({ approvals: list });
      if (method === "POST" && path === "/api/approvals/ap1/approve")
        return json(
          {
            detail: "bo has 6 credits left this month of a 50-credit cap; this needs up to 24.",
            code: "CAP_REACHED",
          },
          403,
        );
      return json({ detail: "Not found" }, 404);
    });
    const user = userEvent.setup();
    renderCard(true, "ada");
    const waiting = await screen.findByRole("list", { name: "Waiting for approval" });
    const [bos, mine] = within(waiting).getAllByTestId("approval");
    expect(bos!.textContent).toMatch(/Enrich 12 contacts, emails revealed/);
    expect(bos!.textContent).toMatch(/Enrich · up to 24 credits · audience German CTOs · asked by bo/);
    // An admin does not decide their own request.
    expect(within(mine!).queryByRole("button", { name: /Approve/ })).toBeNull();
    expect(mine!.textContent).toMatch(/Another admin decides your own requests\./);

    await user.click(within(bos!).getByRole("button", { name: "Approve the request of bo" }));
    expect((await within(bos!).findByRole("alert")).textContent).toBe(
      "Not approved: bo has 6 credits left this month of a 50-credit cap; this needs up to 24.",
    );
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(1);
  });

  it("an admin denies with a reason, which is sent; the request shows as denied once read again", async () => {
    let list = [approval({})];
    const seen = fakeApi(({ method, path, body }) => {
      if (method === "GET" && path === "/api/approvals") return json({ approvals: list });
      if (method === "POST" && path === "/api/approvals/ap1/deny") {
        const reason = (body as { reason?: string }).reason ?? null;
        list = [
          approval({ state: "denied", decidedBy: "ada", decidedAt: "2026-11-25T11:00:00Z", outcome: reason }),
        ];
        return json(list[0]);
      }
      return json({ detail: "Not found" }, 404);
    });
    const user = userEvent.setup();
    renderCard(true, "ada");
    await user.click(await screen.findByRole("button", { name: "Deny… the request of bo" }));
    await user.type(screen.getByLabelText("Why (optional; bo reads it)"), "  Over budget this quarter  ");
    await user.click(screen.getByRole("button", { name: "Deny the request of bo" }));
    await vi.waitFor(() =>
      expect(screen.getByRole("list", { name: "Decided requests" }).textContent).toMatch(
        /Denied by ada.*Over budget this quarter/,
      ),
    );
    expect(seen.find((s) => s.method === "POST")?.body).toEqual({ reason: "Over budget this quarter" });
    expect(screen.getByText("Nothing is waiting.")).toBeTruthy();
  });

  it("someone else follows their own requests and their states, with no decision buttons", async () => {
    fakeApi(() =>
      json({
        approvals: [
          approval({}),
          approval({
            id: "ap3",
            state: "ran",
            decidedBy: "ada",
            outcome: "Bought 12 rows: charged 24 credits.",
          }),
        ],
      }),
    );
    renderCard(false, "bo");
    expect(await screen.findByRole("heading", { name: "Your approval requests" })).toBeTruthy();
    const states = (await screen.findAllByTestId("approval-state")).map((s) => s.textContent);
    expect(states).toEqual(["Waiting for an admin", "Approved and bought by ada"]);
    expect(screen.getByTestId("approval-outcome").textContent).toBe("Bought 12 rows: charged 24 credits.");
    expect(screen.queryByRole("button", { name: /Approve|Deny/ })).toBeNull();
  });
});
