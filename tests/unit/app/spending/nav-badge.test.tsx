// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Router } from "wouter";
import { memoryLocation } from "wouter/memory-location";
import type { Session } from "../../../../src/app/api/session";
import { Header } from "../../../../src/app/layout/header";
import { createQueryClient } from "../../../../src/app/query-client";
import type { Approval } from "../../../../src/contract/spending";
import { fakeApi, json, type Seen } from "./fake-api";

const session = (role: Session["role"]): Session => ({
  mode: "sandbox",
  plan: "PAYG",
  user: "ada",
  role,
  keyLast4: "demo",
});
const approval = (id: string, state: Approval["state"]): Approval => ({
  id,
  requestedBy: "bo",
  requestedAt: "2026-11-25T10:00:00Z",
  operation: "enrich",
  summary: "Enrich 12 contacts",
  creditsEstimated: 12,
  audienceName: null,
  state,
  decidedBy: null,
  decidedAt: null,
  outcome: null,
});

let seen: Seen[] = [];
function renderHeader(role: Session["role"], path: string) {
  seen = fakeApi(({ path: asked }) =>
    asked === "/api/approvals"
      ? json({ approvals: [approval("a", "waiting"), approval("b", "waiting"), approval("c", "ran")] })
      : json({ credits: 10, plan: "PAYG" }),
  );
  const { hook } = memoryLocation({ path });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Router hook={hook}>
        <Header session={session(role)} />
      </Router>
    </QueryClientProvider>,
  );
  return within(screen.getByRole("navigation", { name: "Main" }));
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Spending in the navigation", () => {
  it("shows an admin how many requests wait for approval, beside Spending", async () => {
    const nav = renderHeader("admin", "/");
    const link = await nav.findByRole("link", { name: /^Spending\s*,\s*2 waiting for approval$/ });
    expect(within(link).getByTestId("approvals-badge").getAttribute("data-count")).toBe("2");
  });

  it("asks nothing about approvals for someone who is not an admin", async () => {
    const nav = renderHeader("buyer", "/");
    expect(nav.getByRole("link", { name: "Spending" })).toBeTruthy();
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0));
    expect(seen.some((s) => s.path === "/api/approvals")).toBe(false);
    expect(nav.queryByTestId("approvals-badge")).toBeNull();
  });

  it("lists the do-not-contact lists under Spending (a tab), which is marked as the current page there", () => {
    const nav = renderHeader("buyer", "/suppression");
    expect(nav.queryByRole("link", { name: /contact/i })).toBeNull();
    expect(nav.getByRole("link", { name: "Spending" }).getAttribute("aria-current")).toBe("page");
  });
});
