// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CapsCard } from "../../../../src/app/features/spending/caps-card";
import { createQueryClient } from "../../../../src/app/query-client";
import type { Caps } from "../../../../src/contract/spending";
import { fakeApi, json } from "./fake-api";

const CAPS: Caps = {
  teamMonthlyCap: 1000,
  people: [
    { name: "bo", monthlyCap: 50, approvalThreshold: null },
    { name: "cy", monthlyCap: null, approvalThreshold: 20 },
  ],
};
const SUMMARY = {
  month: "2026-11",
  team: { spent: 40, cap: 1000 },
  people: [{ name: "bo", spent: 40, cap: 50, approvalThreshold: null, unknown: 0 }],
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderCard(admin: boolean) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <CapsCard admin={admin} summary={SUMMARY} />
    </QueryClientProvider>,
  );
}

describe("caps and approval thresholds", () => {
  it("an admin changes them: blank means none, a bad number is said before anything is sent", async () => {
    let caps = CAPS;
    const seen = fakeApi(({ method, path, body }) => {
      if (path !== "/api/spending/caps") return json({ detail: "Not found" }, 404);
      if (method === "PUT") caps = body as Caps;
      return json(caps);
    });
    const user = userEvent.setup();
    renderCard(true);
    const boCap = await screen.findByLabelText("Monthly cap of bo");
    expect((boCap as HTMLInputElement).value).toBe("50");
    expect((screen.getByLabelText("Approval threshold of bo") as HTMLInputElement).placeholder).toBe(
      "No approval needed",
    );
    await user.clear(boCap);
    await user.type(boCap, "fifty");
    await user.click(screen.getByRole("button", { name: "Save caps" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Whole credits (0 to 1,000,000,000), or leave it blank.",
    );
    expect(seen.some((s) => s.method === "PUT")).toBe(false);

    await user.clear(boCap);
    await user.type(boCap, "1,500");
    await user.clear(screen.getByLabelText("Approval threshold of cy"));
    await user.clear(screen.getByLabelText("The team's monthly cap (credits)"));
    await user.click(screen.getByRole("button", { name: "Save caps" }));
    expect(
      await screen.findByText("Saved. The proxy applies the new caps to the next purchase."),
    ).toBeTruthy();
    expect(seen.find((s) => s.method === "PUT")?.body).toEqual({
      teamMonthlyCap: null,
      people: [
        { name: "bo", monthlyCap: 1500, approvalThreshold: null },
        { name: "cy", monthlyCap: null, approvalThreshold: null },
      ],
    });
  });

  it("a refusal is said in words", async () => {
    fakeApi(({ method }) =>
      method === "PUT"
        ? json({ detail: "Managing the team's spending needs an admin.", code: "ROLE_REQUIRED" }, 403)
        : json(CAPS),
    );
    const user = userEvent.setup();
    renderCard(true);
    await user.type(await screen.findByLabelText("Monthly cap of cy"), "10");
    await user.click(screen.getByRole("button", { name: "Save caps" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "The caps were not saved: only an admin can change them.",
    );
  });

  it("someone else reads them, with the month's spend, and cannot change them", async () => {
    fakeApi(() => json(CAPS));
    renderCard(false);
    const rows = (await screen.findAllByRole("row")).slice(1).map((r) => r.textContent);
    // cy's spend is not in this person's summary (others read only their own): a dash, not "0 credits".
    expect(rows).toEqual(["bo40 credits50 creditsNo approval needed", "cy—The team's pool20 credits"]);
    expect(screen.queryByRole("textbox")).toBeNull();
  });
});
