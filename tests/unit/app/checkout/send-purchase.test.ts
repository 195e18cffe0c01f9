import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { failureMeaning, sendPurchase } from "../../../../src/app/lib/spend";
import type { PendingPurchase } from "../../../../src/app/lib/spend-journal";

function purchase(calls: number, id = `p-${Math.random()}`): PendingPurchase {
  return {
    v: 1,
    purchaseId: id,
    kind: "enrich",
    calls: Array.from({ length: calls }, (_, i) => ({ key: `key-call-${i}`, body: { i } })),
    startedAt: new Date().toISOString(),
    summary: "test",
  };
}

const error = (status: number, kind: ApiError["kind"], code?: string, body?: unknown) =>
  new ApiError({ status, kind, message: kind, code: code ?? null, body: body ?? null });

describe("sending a journaled purchase", () => {
  it("sends each call with its own key, in order", async () => {
    const seen: [unknown, string][] = [];
    const outcome = await sendPurchase(purchase(3), async (body, key) => {
      seen.push([body, key]);
      return key;
    });
    expect(outcome).toEqual({ ok: true, results: ["key-call-0", "key-call-1", "key-call-2"] });
    expect(seen.map(([, key]) => key)).toEqual(["key-call-0", "key-call-1", "key-call-2"]);
  });

  it("a dropped connection may have arrived: no answer, kept for Try again, with the answers so far", async () => {
    const outcome = await sendPurchase(purchase(3), async (_body, key) => {
      if (key === "key-call-1") throw new TypeError("Failed to fetch");
      return key;
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.meaning).toBe("no-answer");
    expect(outcome.error.kind).toBe("network");
    expect(outcome.results).toEqual(["key-call-0"]);
  });

  it("a 402 on the second call is definite: what came before is kept", async () => {
    const outcome = await sendPurchase(purchase(3), async (_body, key) => {
      if (key === "key-call-1") throw error(402, "insufficient-credits");
      return key;
    });
    expect(outcome).toMatchObject({ ok: false, meaning: "refused", results: ["key-call-0"] });
  });

  it("a refusal before sending ('not sent') after an earlier unanswered attempt is still 'no answer'", async () => {
    // The first attempt left and got no answer; the retry meets a signed-out session (401): that
    // says nothing about the first one, so it must not read as "nothing charged".
    const earlier = purchase(1);
    earlier.calls[0] = { ...earlier.calls[0]!, sentAt: new Date().toISOString() };
    const outcome = await sendPurchase(earlier, async () => {
      throw error(401, "unauthenticated");
    });
    expect(outcome).toMatchObject({ ok: false, meaning: "no-answer" });
    // Sent for the first time and refused before it left: not sent.
    const fresh = await sendPurchase(purchase(1), async () => {
      throw error(401, "unauthenticated");
    });
    expect(fresh).toMatchObject({ ok: false, meaning: "not-sent" });
    // Another proxy instance still carrying it out: the same key later gets its answer.
    expect(failureMeaning(error(409, "conflict", "SPEND_IN_PROGRESS"))).toBe("no-answer");
  });

  it("a second sender of the same purchase joins the first instead of sending again", async () => {
    let sends = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const send = async () => {
      sends += 1;
      await gate;
      return "answer";
    };
    const one = purchase(1, "same");
    const first = sendPurchase(one, send);
    const second = sendPurchase(one, send);
    release();
    expect(await first).toEqual(await second);
    expect(sends).toBe(1);
  });

  it("tells what a failure means for the money", () => {
    // Refused for good: over, nothing to send again.
    expect(failureMeaning(error(402, "insufficient-credits"))).toBe("refused");
    expect(failureMeaning(error(403, "forbidden"))).toBe("refused");
    expect(failureMeaning(error(422, "validation"))).toBe("refused");
    expect(failureMeaning(error(409, "conflict"))).toBe("refused");
    expect(failureMeaning(error(409, "conflict", "IDEMPOTENCY_KEY_REUSED"))).toBe("refused");
    expect(failureMeaning(error(502, "upstream", "UPSTREAM_ANSWER_CUT_OFF"))).toBe("refused");
    // No answer: it may have arrived; the same key is safe to send again.
    expect(failureMeaning(error(0, "network"))).toBe("no-answer");
    expect(failureMeaning(error(0, "timeout"))).toBe("no-answer");
    expect(failureMeaning(error(502, "upstream"))).toBe("no-answer");
    expect(failureMeaning(error(504, "timeout"))).toBe("no-answer");
    // A 2xx the app could not read: it was answered (and maybe charged); sending again replays it.
    expect(failureMeaning(error(200, "other"))).toBe("no-answer");
    // A 503 that is not the proxy's own sentence (a gateway's page) proves nothing.
    expect(failureMeaning(error(503, "upstream", undefined, "<html>busy</html>"))).toBe("no-answer");
    // The proxy says it sent nothing on.
    expect(failureMeaning(error(503, "upstream", "JOURNAL_UNAVAILABLE"))).toBe("not-sent");
    expect(failureMeaning(error(503, "upstream", undefined, { detail: "Spending is paused." }))).toBe(
      "not-sent",
    );
    expect(failureMeaning(error(401, "unauthenticated"))).toBe("not-sent");
    expect(failureMeaning(error(429, "rate-limited"))).toBe("not-sent");
    // The proxy says the outcome cannot be known, whatever the status.
    expect(failureMeaning(error(409, "conflict", "OUTCOME_UNKNOWN"))).toBe("unknown");
    expect(failureMeaning(error(502, "upstream", "OUTCOME_UNKNOWN"))).toBe("unknown");
    expect(failureMeaning(error(504, "timeout", "OUTCOME_UNKNOWN"))).toBe("unknown");
    expect(failureMeaning(error(502, "upstream", "UPSTREAM_FAILED"))).toBe("unknown");
  });
});
