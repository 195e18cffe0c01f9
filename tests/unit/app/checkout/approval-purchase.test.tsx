// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { approvalRequestedIn, usePurchase } from "../../../../src/app/lib/spend";
import { pendingPurchase, resetJournalMemory } from "../../../../src/app/lib/spend-journal";
import { createQueryClient } from "../../../../src/app/query-client";
import type { Approval } from "../../../../src/contract/spending";

/**
 * The purchase hook when the proxy answers 202 "approval requested": kept (with its keys) and never
 * sent again by itself; only `resume` (once it ran) sends the same keys; a denial ends it.
 */

const approval = (state: Approval["state"]): Approval => ({
  id: "apr_9",
  requestedBy: "bo",
  requestedAt: "2026-11-25T16:00:00Z",
  operation: "enrich",
  summary: "Enrich 1 contact",
  creditsEstimated: 2,
  audienceName: null,
  state,
  decidedBy: state === "waiting" ? null : "ada",
  decidedAt: state === "waiting" ? null : "2026-11-25T16:01:00Z",
  outcome: state === "denied" ? "Denied: no." : null,
});

const accepted = (body: unknown) =>
  new ApiError({ kind: "other", status: 202, message: "unexpected shape", body });

function fakeProxy() {
  const sent: string[] = [];
  let ran = false;
  return {
    sent,
    run() {
      ran = true;
    },
    send: async (_body: unknown, key: string): Promise<string> => {
      sent.push(key);
      if (!ran)
        throw accepted({ detail: "x", code: "APPROVAL_REQUESTED", approvalRequested: approval("waiting") });
      return "rows";
    },
  };
}

function wrapper({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>;
}

beforeEach(() => {
  window.localStorage.clear();
  resetJournalMemory();
});
afterEach(cleanup);

describe("a purchase that became an approval request", () => {
  it("reads the 202's request; anything else is not one", () => {
    expect(approvalRequestedIn(accepted({ approvalRequested: approval("waiting") }))?.id).toBe("apr_9");
    expect(approvalRequestedIn(accepted({ exportId: "x" }))).toBeNull();
    expect(
      approvalRequestedIn(
        new ApiError({
          kind: "forbidden",
          status: 403,
          message: "x",
          body: { approvalRequested: approval("waiting") },
        }),
      ),
    ).toBeNull();
  });

  it("waits with its keys; a second Confirm or a reload sends nothing; resume sends the same key once", async () => {
    const proxy = fakeProxy();
    const first = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    act(() => first.result.current.confirm([{ personIds: ["pao_1"] }], "one person"));
    await waitFor(() => expect(first.result.current.state.phase).toBe("approval"));
    expect(pendingPurchase(window.localStorage, "enrich")?.approvalId).toBe("apr_9");
    act(() => first.result.current.confirm([{ personIds: ["pao_1"] }], "one person"));
    act(() => first.result.current.retry());
    expect(proxy.sent).toHaveLength(1);
    first.unmount();

    const again = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    await waitFor(() => expect(again.result.current.state.phase).toBe("approval"));
    expect(proxy.sent).toHaveLength(1);
    act(() => again.result.current.reset());
    expect(again.result.current.state.phase).toBe("approval");

    proxy.run();
    act(() => again.result.current.resume());
    await waitFor(() => expect(again.result.current.state.phase).toBe("done"));
    expect(proxy.sent).toEqual([proxy.sent[0], proxy.sent[0]]);
    expect(pendingPurchase(window.localStorage, "enrich")).toBeNull();
  });

  it("denied: over, nothing kept, nothing sent again", async () => {
    const proxy = fakeProxy();
    const { result } = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    act(() => result.current.confirm([{ personIds: ["pao_1"] }], "one person"));
    await waitFor(() => expect(result.current.state.phase).toBe("approval"));
    act(() => result.current.approvalSeen(approval("waiting")));
    expect(result.current.state.phase).toBe("approval");
    act(() => result.current.approvalSeen(approval("denied")));
    expect(result.current.state.phase).toBe("denied");
    expect(pendingPurchase(window.localStorage, "enrich")).toBeNull();
    act(() => result.current.resume());
    expect(proxy.sent).toHaveLength(1);
  });
});
