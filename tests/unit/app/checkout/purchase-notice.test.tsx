// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { PurchaseNotice } from "../../../../src/app/features/checkout/purchase-notice";
import type { PendingPurchase } from "../../../../src/app/lib/spend-journal";
import { SPEND_CODES } from "../../../../src/contract/errors";

afterEach(cleanup);

const purchase: PendingPurchase = {
  v: 1,
  purchaseId: "purchase-1",
  kind: "enrich",
  calls: [{ key: "key-00000001", body: {} }],
  startedAt: "2026-10-01T10:00:00Z",
  summary: "5 selected contacts",
};

describe("PurchaseNotice: a purchase already made under its key", () => {
  it("says it was bought and not sent again, and offers no retry of the old key", () => {
    const onForget = vi.fn();
    const onRetry = vi.fn();
    const error = new ApiError({
      kind: "conflict",
      status: 409,
      code: SPEND_CODES.alreadyBought,
      message:
        "This purchase was already made on 2026-10-01 (it is in the ledger), and its answer is no longer kept, so it is not sent again. To buy the same contacts again, start a new purchase.",
    });
    render(
      <PurchaseNotice
        state={{ phase: "failed", purchase, error, results: [] }}
        plan="PAYG"
        words={{ what: "the enrichment", check: "the balance on the Account page" }}
        onRetry={onRetry}
        onBuyAgain={vi.fn()}
        onForget={onForget}
        onResume={vi.fn()}
        onApprovalSeen={vi.fn()}
      />,
    );
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Already bought: not sent again");
    expect(alert.textContent).toContain("already made on 2026-10-01");
    expect(alert.textContent).toContain("Nothing was sent or charged now");
    // The way on is the form's own "Change the …" (PurchaseStatus): a new review, a new key.
    expect(screen.queryAllByRole("button")).toEqual([]);
    expect(onForget).not.toHaveBeenCalled();
    expect(onRetry).not.toHaveBeenCalled();
  });
});
