// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import type { WaitingState } from "../../../../src/app/lib/spend";
import type { PendingPurchase } from "../../../../src/app/lib/spend-journal";
import { SpendNotice } from "../../../../src/app/ui/spend-notice";

afterEach(cleanup);

const purchase: PendingPurchase = {
  v: 1,
  purchaseId: "purchase-1",
  kind: "export",
  calls: [{ key: "key-00000001", body: {} }],
  startedAt: "2026-11-21T10:00:00Z",
  summary: "100 rows of the audience",
};
const words = { what: "the export", check: "the balance on the Account page and the export history below" };

function show(state: WaitingState<unknown>) {
  const calls = { retry: vi.fn(), again: vi.fn(), forget: vi.fn() };
  render(
    <SpendNotice
      state={state}
      words={words}
      onRetry={calls.retry}
      onBuyAgain={calls.again}
      onForget={calls.forget}
    />,
  );
  return { calls, text: () => screen.getByRole("alert").textContent ?? "" };
}

describe("the notice of a spend that waits for a click", () => {
  it("not sent: says nothing was charged, and Send it now is the click", () => {
    const { calls, text } = show({ phase: "not-sent", purchase, error: null, results: [] });
    expect(text()).toContain("Not sent, nothing charged");
    expect(text()).toContain("never reached the data service");
    fireEvent.click(screen.getByRole("button", { name: "Send it now" }));
    expect(calls.retry).toHaveBeenCalledTimes(1);
  });

  it("not sent because the proxy paused spending: plain words, no codes", () => {
    const error = new ApiError({
      kind: "upstream",
      status: 503,
      message: "x",
      code: "JOURNAL_UNAVAILABLE",
      body: { detail: "x", code: "JOURNAL_UNAVAILABLE" },
    });
    const { text } = show({ phase: "not-sent", purchase, error, results: [] });
    expect(text()).toContain("paused spending");
    expect(text()).not.toMatch(/JOURNAL|Idempotency|503/);
  });

  it("no answer: may have gone through; Try again is the same request", () => {
    const error = new ApiError({ kind: "network", status: 0, message: "x" });
    const { calls, text } = show({ phase: "interrupted", purchase, error, results: [] });
    expect(text()).toContain("may or may not have gone through");
    expect(text()).toContain("not sent again by itself");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(calls.retry).toHaveBeenCalledTimes(1);
  });

  it("unknown: names what to check, and buys again only after a confirmation that it may charge twice", () => {
    const error = new ApiError({ kind: "conflict", status: 409, message: "x", code: "OUTCOME_UNKNOWN" });
    const { calls, text } = show({ phase: "unknown", purchase, error, results: [] });
    expect(text()).toContain("We don't know whether the export went through");
    expect(text()).toContain("the balance on the Account page and the export history below");
    expect(text()).not.toMatch(/OUTCOME_UNKNOWN|409|Idempotency/);
    expect(screen.queryByRole("button", { name: /Try again|Send it now/ })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Buy it again…" }));
    expect(calls.again).not.toHaveBeenCalled();
    expect(text()).toContain("charged a second time");
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(calls.again).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Buy it again…" }));
    fireEvent.click(screen.getByRole("button", { name: "Yes, buy it again" }));
    expect(calls.again).toHaveBeenCalledTimes(1);
  });
});
