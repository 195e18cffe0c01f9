import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { isDefiniteFailure, sendPurchase } from "../../../../src/app/lib/spend";
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

const error = (status: number, kind: ApiError["kind"]) => new ApiError({ status, kind, message: kind });

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

  it("a dropped connection is not definite: keep it for Try again, with the answers so far", async () => {
    const outcome = await sendPurchase(purchase(3), async (_body, key) => {
      if (key === "key-call-1") throw new TypeError("Failed to fetch");
      return key;
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.definite).toBe(false);
    expect(outcome.error.kind).toBe("network");
    expect(outcome.results).toEqual(["key-call-0"]);
  });

  it("a 402 on the second call is definite: what came before is kept", async () => {
    const outcome = await sendPurchase(purchase(3), async (_body, key) => {
      if (key === "key-call-1") throw error(402, "insufficient-credits");
      return key;
    });
    expect(outcome).toMatchObject({ ok: false, definite: true, results: ["key-call-0"] });
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

  it("tells definite refusals from answers that may change", () => {
    expect(isDefiniteFailure(error(402, "insufficient-credits"))).toBe(true);
    expect(isDefiniteFailure(error(403, "forbidden"))).toBe(true);
    expect(isDefiniteFailure(error(422, "validation"))).toBe(true);
    expect(isDefiniteFailure(error(409, "conflict"))).toBe(true);
    expect(isDefiniteFailure(error(0, "network"))).toBe(false);
    expect(isDefiniteFailure(error(0, "timeout"))).toBe(false);
    expect(isDefiniteFailure(error(502, "upstream"))).toBe(false);
    expect(isDefiniteFailure(error(504, "timeout"))).toBe(false);
    expect(isDefiniteFailure(error(429, "rate-limited"))).toBe(false);
    expect(isDefiniteFailure(error(401, "unauthenticated"))).toBe(false);
    // A 2xx the app could not read: it was answered (and maybe charged); sending again replays it.
    expect(isDefiniteFailure(error(200, "other"))).toBe(false);
  });
});
