// @vitest-environment jsdom
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { usePurchase } from "../../../../src/app/lib/spend";
import {
  beginPurchase,
  JOURNAL_KEY,
  markSending,
  pendingPurchase,
  resetJournalMemory,
} from "../../../../src/app/lib/spend-journal";
import { createQueryClient } from "../../../../src/app/query-client";

/**
 * The purchase hook over a fake sender that plays the proxy's part: a repeat of a key gets the
 * first answer back and is not charged again. `charges` counts what a real service would have
 * charged.
 */
function fakeProxy() {
  const answers = new Map<string, string>();
  const sent: { key: string; body: unknown }[] = [];
  let charges = 0;
  let failNext: Error | null = null;
  let dropAfterCharging = false;
  let onSend: () => void = () => {};
  return {
    sent,
    /** The server already took this key (a purchase whose answer was lost to a reload). */
    alreadyCharged(key: string) {
      charges += 1;
      answers.set(key, `answer-${charges}`);
    },
    onSend(callback: () => void) {
      onSend = callback;
    },
    get charges() {
      return charges;
    },
    failOnce(error: Error) {
      failNext = error;
    },
    dropOnce() {
      dropAfterCharging = true;
    },
    send: async (body: unknown, key: string): Promise<string> => {
      sent.push({ key, body });
      onSend();
      if (failNext) {
        const error = failNext;
        failNext = null;
        throw error;
      }
      let answer = answers.get(key);
      if (answer === undefined) {
        charges += 1;
        answer = `answer-${charges}`;
        answers.set(key, answer);
      }
      if (dropAfterCharging) {
        dropAfterCharging = false;
        throw new TypeError("Failed to fetch");
      }
      return answer;
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

const BODY = { personIds: ["pao_1"], reveal: "email" };

describe("usePurchase", () => {
  it("journals before sending, sends once, clears the journal on the answer", async () => {
    const proxy = fakeProxy();
    const settled: string[][] = [];
    const { result } = renderHook(
      () =>
        usePurchase({
          kind: "enrich",
          send: proxy.send,
          onSettled: (r) => settled.push(r),
        }),
      { wrapper },
    );
    let journalAtSend: string | null = null;
    proxy.onSend(() => {
      journalAtSend = window.localStorage.getItem(JOURNAL_KEY);
    });
    act(() => result.current.confirm([BODY], "one person"));
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(journalAtSend).not.toBeNull();
    expect(proxy.charges).toBe(1);
    expect(settled).toEqual([["answer-1"]]);
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });

  it("two confirms in one go send one purchase", async () => {
    const proxy = fakeProxy();
    const { result } = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    act(() => {
      result.current.confirm([BODY], "x");
      result.current.confirm([BODY], "x");
    });
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent).toHaveLength(1);
    expect(proxy.charges).toBe(1);
  });

  it("a connection dropped after the charge: interrupted, kept; Try again sends the same key; charged once", async () => {
    const proxy = fakeProxy();
    const { result } = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    proxy.dropOnce();
    act(() => result.current.confirm([BODY], "x"));
    await waitFor(() => expect(result.current.state.phase).toBe("interrupted"));
    expect(window.localStorage.getItem(JOURNAL_KEY)).not.toBeNull();
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent.map((s) => s.key)).toEqual([proxy.sent[0]!.key, proxy.sent[0]!.key]);
    expect(proxy.charges).toBe(1);
    const state = result.current.state;
    expect(state.phase === "done" && state.results).toEqual(["answer-1"]);
  });

  it("a reload after the send started: shown as no answer, nothing sent until Try again, which sends the same key; charged once", async () => {
    const proxy = fakeProxy();
    // What the page wrote before sending, and the server took, before the reload lost its answer.
    const begun = beginPurchase(window.localStorage, {
      kind: "export",
      bodies: [{ maxRows: 5 }],
      summary: "five rows",
    });
    markSending(window.localStorage, begun.purchase.purchaseId, 0);
    const key = begun.purchase.calls[0]!.key;
    proxy.alreadyCharged(key);
    resetJournalMemory();

    const { result } = renderHook(() => usePurchase({ kind: "export", send: proxy.send }), { wrapper });
    await waitFor(() => expect(result.current.state.phase).toBe("interrupted"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.sent).toHaveLength(0);
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent).toEqual([{ key, body: { maxRows: 5 } }]);
    expect(proxy.charges).toBe(1);
    const state = result.current.state;
    expect(state.phase === "done" && state.results).toEqual(["answer-1"]);
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });

  it("a reload before the send started: provably not sent, nothing charged, waits for Send it now (same key)", async () => {
    const proxy = fakeProxy();
    const begun = beginPurchase(window.localStorage, { kind: "enrich", bodies: [BODY], summary: "x" });
    resetJournalMemory();
    const { result } = renderHook(() => usePurchase({ kind: "enrich", send: proxy.send }), { wrapper });
    await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    const state = result.current.state;
    expect(state.phase === "not-sent" && state.error).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.sent).toHaveLength(0);
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent).toEqual([{ key: begun.purchase.calls[0]!.key, body: BODY }]);
  });

  it("by default a reload's unfinished spend waits for a click, then goes with the same key; charged once", async () => {
    const proxy = fakeProxy();
    const begun = beginPurchase(window.localStorage, { kind: "rotateKey", bodies: [{}], summary: "rotate" });
    const key = begun.purchase.calls[0]!.key;
    proxy.alreadyCharged(key);
    resetJournalMemory();

    const { result } = renderHook(() => usePurchase({ kind: "rotateKey", send: proxy.send }), { wrapper });
    await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    expect(proxy.sent).toHaveLength(0);
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent).toEqual([{ key, body: {} }]);
    expect(proxy.charges).toBe(1);
  });

  it("waiting for a click: a confirm while another spend of its kind is unfinished shows that one, sends nothing", async () => {
    const proxy = fakeProxy();
    beginPurchase(window.localStorage, { kind: "verify", bodies: [{ email: "a@x.com" }], summary: "a" });
    resetJournalMemory();
    const { result } = renderHook(() => usePurchase({ kind: "verify", send: proxy.send }), { wrapper });
    await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    act(() => result.current.forget());
    // Another tab journals one meanwhile; this page's confirm must not send it in its place.
    beginPurchase(window.localStorage, { kind: "verify", bodies: [{ email: "other@x.com" }], summary: "o" });
    resetJournalMemory();
    act(() => result.current.confirm([{ email: "b@x.com" }], "b"));
    await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    expect(proxy.sent).toHaveLength(0);
  });

  it("a spend still on its way when its screen is opened again is joined, not offered to forget", async () => {
    const proxy = fakeProxy();
    let release!: () => void;
    const slow = (body: unknown, key: string) =>
      new Promise<string>((resolve) => {
        release = () => resolve(proxy.send(body, key) as unknown as string);
      });
    const first = renderHook(() => usePurchase({ kind: "rotateKey", send: slow }), { wrapper });
    act(() => first.result.current.confirm([{}], "rotate"));
    await waitFor(() => expect(first.result.current.state.phase).toBe("sending"));
    first.unmount();
    const again = renderHook(() => usePurchase({ kind: "rotateKey", send: slow }), { wrapper });
    await waitFor(() => expect(again.result.current.state.phase).toBe("sending"));
    release();
    await waitFor(() => expect(again.result.current.state.phase).toBe("done"));
    expect(proxy.sent).toHaveLength(1);
  });

  it("a 402 is final: nothing is kept to resume, and the error carries the numbers", async () => {
    const proxy = fakeProxy();
    proxy.failOnce(
      new ApiError({
        kind: "insufficient-credits",
        status: 402,
        message: "no",
        required: 50_000,
        balance: 10_000,
      }),
    );
    const { result } = renderHook(() => usePurchase({ kind: "export", send: proxy.send }), { wrapper });
    act(() => result.current.confirm([{ maxRows: 50_000 }], "x"));
    await waitFor(() => expect(result.current.state.phase).toBe("failed"));
    const state = result.current.state;
    expect(state.phase === "failed" && state.error.required).toBe(50_000);
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });

  it("forgetting an interrupted purchase clears it; the next confirm is a new purchase", async () => {
    const proxy = fakeProxy();
    proxy.failOnce(new TypeError("Failed to fetch"));
    const { result } = renderHook(() => usePurchase({ kind: "preview", send: proxy.send }), { wrapper });
    act(() => result.current.confirm([{ limit: 5 }], "x"));
    await waitFor(() => expect(result.current.state.phase).toBe("interrupted"));
    act(() => result.current.forget());
    expect(result.current.state.phase).toBe("idle");
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
    act(() => result.current.confirm([{ limit: 5 }], "x"));
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent[1]!.key).not.toBe(proxy.sent[0]!.key);
  });

  it("the proxy says the outcome is unknown: kept and shown (even after a reload), never sent again; a new purchase only when asked, with a new key", async () => {
    const proxy = fakeProxy();
    proxy.failOnce(
      new ApiError({ kind: "conflict", status: 409, message: "unknown", code: "OUTCOME_UNKNOWN" }),
    );
    const { result, unmount } = renderHook(() => usePurchase({ kind: "export", send: proxy.send }), {
      wrapper,
    });
    act(() => result.current.confirm([{ maxRows: 5 }], "five rows"));
    await waitFor(() => expect(result.current.state.phase).toBe("unknown"));
    const firstKey = proxy.sent[0]!.key;
    // Try again cannot send it again: the same key would never go through.
    act(() => result.current.retry());
    // Nor can confirming the very same purchase.
    act(() => result.current.confirm([{ maxRows: 5 }], "five rows"));
    expect(result.current.state.phase).toBe("unknown");
    expect(proxy.sent).toHaveLength(1);
    unmount();

    // A reload: still unknown, still nothing sent.
    resetJournalMemory();
    const again = renderHook(() => usePurchase({ kind: "export", send: proxy.send }), { wrapper });
    await waitFor(() => expect(again.result.current.state.phase).toBe("unknown"));
    const state = again.result.current.state;
    expect(state.phase === "unknown" && state.error).toBeNull();
    expect(proxy.sent).toHaveLength(1);

    act(() => again.result.current.buyAgain());
    await waitFor(() => expect(again.result.current.state.phase).toBe("done"));
    expect(proxy.sent).toHaveLength(2);
    expect(proxy.sent[1]!.key).not.toBe(firstKey);
    expect(proxy.sent[1]!.body).toEqual({ maxRows: 5 });
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });

  it("an unknown outcome part-way: the rows answered are kept, and a new purchase buys only the rest", async () => {
    const settled: string[][] = [];
    const sent: { key: string; body: unknown }[] = [];
    let unknownOnce = true;
    const send = async (body: unknown, key: string) => {
      sent.push({ key, body });
      if ((body as { i: number }).i === 1 && unknownOnce) {
        unknownOnce = false;
        throw new ApiError({ kind: "upstream", status: 502, message: "unknown", code: "OUTCOME_UNKNOWN" });
      }
      return `rows-${(body as { i: number }).i}`;
    };
    const { result } = renderHook(
      () => usePurchase({ kind: "enrich", send, onSettled: (r) => settled.push(r) }),
      { wrapper },
    );
    act(() => result.current.confirm([{ i: 0 }, { i: 1 }, { i: 2 }], "three calls"));
    await waitFor(() => expect(result.current.state.phase).toBe("unknown"));
    expect(settled).toEqual([["rows-0"]]);
    act(() => result.current.buyAgain());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(sent.slice(2).map((s) => s.body)).toEqual([{ i: 1 }, { i: 2 }]);
    expect(new Set(sent.map((s) => s.key)).size).toBe(4);
    expect(settled.at(-1)).toEqual(["rows-1", "rows-2"]);
  });

  it("the proxy refuses to spend because it cannot record it: not sent, kept, sent again only on a click with the same key", async () => {
    const proxy = fakeProxy();
    proxy.failOnce(
      new ApiError({
        kind: "upstream",
        status: 503,
        message: "paused",
        code: "JOURNAL_UNAVAILABLE",
        body: { detail: "paused", code: "JOURNAL_UNAVAILABLE" },
      }),
    );
    const { result } = renderHook(() => usePurchase({ kind: "verify", send: proxy.send }), { wrapper });
    act(() => result.current.confirm([{ email: "a@x.com" }], "a"));
    await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    expect(pendingPurchase(window.localStorage, "verify")).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.sent).toHaveLength(1);
    // A reload now still says it never left (the proxy's word took the "sent" mark off).
    resetJournalMemory();
    expect(pendingPurchase(window.localStorage, "verify")?.calls[0]?.sentAt).toBeUndefined();
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.phase).toBe("done"));
    expect(proxy.sent[1]!.key).toBe(proxy.sent[0]!.key);
    expect(proxy.charges).toBe(1);
  });

  it("a key used for something else: refused plainly, the purchase is over", async () => {
    const proxy = fakeProxy();
    proxy.failOnce(
      new ApiError({ kind: "conflict", status: 409, message: "reused", code: "IDEMPOTENCY_KEY_REUSED" }),
    );
    const { result } = renderHook(() => usePurchase({ kind: "preview", send: proxy.send }), { wrapper });
    act(() => result.current.confirm([{ limit: 5 }], "x"));
    await waitFor(() => expect(result.current.state.phase).toBe("failed"));
    expect(window.localStorage.getItem(JOURNAL_KEY)).toBeNull();
  });

  it("a journal that cannot mark the send: nothing is sent, and it says not sent", async () => {
    const proxy = fakeProxy();
    const { result } = renderHook(() => usePurchase({ kind: "preview", send: proxy.send }), { wrapper });
    const setItem = Storage.prototype.setItem;
    let writes = 0;
    // The journal's first write (before sending) goes through; the mark just before sending fails.
    Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
      writes += 1;
      if (writes > 1) throw new DOMException("full", "QuotaExceededError");
      setItem.call(this, key, value);
    };
    try {
      act(() => result.current.confirm([{ limit: 5 }], "x"));
      await waitFor(() => expect(result.current.state.phase).toBe("not-sent"));
    } finally {
      Storage.prototype.setItem = setItem;
    }
    expect(proxy.sent).toHaveLength(0);
  });
});
