// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { thisMonth } from "../../../../src/app/api/spending";
import { SpendCard, spentText } from "../../../../src/app/features/account/spend-card";
import { createQueryClient } from "../../../../src/app/query-client";
import { fakeApi, json } from "../spending/fake-api";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("this month's spend on the Account page", () => {
  it("says spend against a cap as 'N of M credits', and a person without a cap draws on the team's pool", () => {
    expect(spentText(40, 50)).toBe("40 of 50 credits");
    expect(spentText(1200, null)).toBe("1,200 credits (no cap of their own)");
  });

  it("lists each person against their cap, with a bar, and outcomes not known", async () => {
    const seen = fakeApi(() =>
      json({
        month: thisMonth(),
        team: { spent: 52, cap: 1000 },
        people: [
          { name: "bo", spent: 40, cap: 50, approvalThreshold: 20, unknown: 1 },
          { name: "ada", spent: 12, cap: null, approvalThreshold: null, unknown: 0 },
        ],
      }),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <SpendCard />
      </QueryClientProvider>,
    );
    expect((await screen.findByTestId("team-spend")).textContent).toBe("The team52 of 1,000 credits");
    const rows = within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      "bo40 of 50 credits1 purchase with an outcome not known — check the balance20 credits",
      "ada12 credits (no cap of their own)No approval needed",
    ]);
    const bar = screen.getByRole("meter", { name: "Spending of bo this month" });
    expect(bar.getAttribute("value")).toBe("40");
    expect(bar.getAttribute("max")).toBe("50");
    expect(screen.queryByRole("meter", { name: "Spending of ada this month" })).toBeNull();
    expect(seen[0]?.path).toBe("/api/spending/summary");
    expect(seen[0]?.search.get("month")).toBe(thisMonth());
  });
});
