// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { getCredits, NO_BALANCE_OPERATION, parseRateLimit } from "../../../../src/app/api/credits";
import { forgetGenerations } from "../../../../src/app/api/generations";
import { installFakeFetch, json } from "../audience/harness";

/** A fake proxy answering each balance path with a status (200: a balance). */
function answering(statuses: Record<string, number>, body: object = { credits: 10_000, plan: "PAYG" }) {
  return installFakeFetch(({ path }) => {
    const status = statuses[path] ?? 404;
    const headers = {
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "58",
      "x-ratelimit-reset": "1767225600",
    };
    return status === 200
      ? json(body, { headers })
      : json({ detail: `status ${status}` }, { status, headers });
  });
}

const paths = (sent: { path: string }[]) => sent.map((r) => r.path);

beforeEach(() => forgetGenerations());
afterEach(() => vi.unstubAllGlobals());

describe("getCredits: v2 first, v1 only when v2 is absent", () => {
  it("reads v2's credits with its plan and rate limit", async () => {
    const sent = answering({ "/api/v2/credits": 200 });
    const credits = await getCredits();
    expect(credits).toEqual({
      credits: 10_000,
      plan: "PAYG",
      source: "v2/credits",
      rateLimit: { limit: 60, remaining: 58, resetAt: 1_767_225_600_000, seenAt: expect.any(Number) },
    });
    expect(paths(sent)).toEqual(["/api/v2/credits"]);
    expect(sent[0]!.headers.get("x-csrf")).toBe("1");
  });

  it("moves on over 404 and 405: the published v2 balance, then v1", async () => {
    const sent = answering({
      "/api/v2/credits": 404,
      "/api/v2/account/balance": 405,
      "/api/v1/credits": 200,
    });
    expect((await getCredits()).source).toBe("v1/credits");
    expect(paths(sent)).toEqual(["/api/v2/credits", "/api/v2/account/balance", "/api/v1/credits"]);
  });

  it("takes the published v2 balance without a plan (plan null) and never asks v1", async () => {
    const sent = answering({ "/api/v2/credits": 404, "/api/v2/account/balance": 200 }, { credits: 12 });
    expect(await getCredits()).toMatchObject({ credits: 12, plan: null, source: "v2/account/balance" });
    expect(paths(sent)).not.toContain("/api/v1/credits");
  });

  it("a v1 410 after v2's 404s: v2 is the generation, and it has no balance here", async () => {
    answering({ "/api/v1/credits": 410 });
    const error = (await getCredits().catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe(NO_BALANCE_OPERATION);
    expect(error.message).toMatch(/no balance operation/);
  });

  it.each([
    [403, "forbidden"],
    [429, "rate-limited"],
    [500, "upstream"],
    [502, "upstream"],
  ])("does not fall back on a %i (the operation is there; it failed)", async (status, kind) => {
    const sent = answering({ "/api/v2/credits": status });
    const error = (await getCredits().catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe(kind);
    expect(paths(sent)).toEqual(["/api/v2/credits"]);
  });

  it("asks the path that answered last first, and starts again from v2 when it is gone", async () => {
    const statuses: Record<string, number> = { "/api/v2/credits": 404, "/api/v1/credits": 200 };
    const sent = answering(statuses);
    await getCredits();
    sent.length = 0;
    expect((await getCredits()).source).toBe("v1/credits");
    expect(paths(sent)).toEqual(["/api/v1/credits"]);

    statuses["/api/v1/credits"] = 410;
    statuses["/api/v2/credits"] = 200;
    sent.length = 0;
    expect((await getCredits()).source).toBe("v2/credits");
    expect(paths(sent)).toEqual(["/api/v1/credits", "/api/v2/credits"]);
  });

  it("an answer without the expected shape is an error, not a fallback", async () => {
    const sent = installFakeFetch(() => json({ balance: "lots" }));
    const error = (await getCredits().catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe("other");
    expect(sent).toHaveLength(1);
  });
});

describe("parseRateLimit", () => {
  const headers = (values: Record<string, string>) => new Headers(values);
  const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

  it("reads limit, remaining and a unix-seconds reset", () => {
    expect(
      parseRateLimit(
        headers({
          "x-ratelimit-limit": "60",
          "x-ratelimit-remaining": "3",
          "x-ratelimit-reset": String(NOW / 1000 + 42),
        }),
        NOW,
      ),
    ).toEqual({ limit: 60, remaining: 3, resetAt: NOW + 42_000, seenAt: NOW });
  });

  it("reads a small reset as seconds from now, and a missing one as a minute", () => {
    const rate = (reset?: string) =>
      parseRateLimit(
        headers({
          "x-ratelimit-limit": "60",
          "x-ratelimit-remaining": "3",
          ...(reset ? { "x-ratelimit-reset": reset } : {}),
        }),
        NOW,
      );
    expect(rate("17")?.resetAt).toBe(NOW + 17_000);
    expect(rate()?.resetAt).toBe(NOW + 60_000);
  });

  it("is null without a readable limit or remainder; never more left than the limit", () => {
    expect(parseRateLimit(headers({}), NOW)).toBeNull();
    expect(parseRateLimit(headers({ "x-ratelimit-limit": "60" }), NOW)).toBeNull();
    expect(
      parseRateLimit(headers({ "x-ratelimit-limit": "sixty", "x-ratelimit-remaining": "3" }), NOW),
    ).toBeNull();
    expect(
      parseRateLimit(headers({ "x-ratelimit-limit": "0", "x-ratelimit-remaining": "0" }), NOW),
    ).toBeNull();
    expect(
      parseRateLimit(headers({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "-1" }), NOW),
    ).toBeNull();
    expect(
      parseRateLimit(headers({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "99" }), NOW)?.remaining,
    ).toBe(60);
  });
});
