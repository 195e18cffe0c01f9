import { describe, expect, it } from "vitest";
import { ApiError, apiErrorFromAnswer } from "../../../src/app/api/api-error";
import { SESSION_QUERY_KEY } from "../../../src/app/api/session";
import { formatCount, formatCredits, formatNumber } from "../../../src/app/lib/format";
import { createQueryClient } from "../../../src/app/query-client";

type RetryFn = (failureCount: number, error: unknown) => boolean;

describe("the app's QueryClient", () => {
  const client = createQueryClient();
  const retry = client.getDefaultOptions().queries?.retry as RetryFn;

  it("retries reads only after transient failures, at most three tries in all", () => {
    const network = new ApiError({ kind: "network", status: 0, message: "down" });
    expect(retry(0, network)).toBe(true);
    expect(retry(1, network)).toBe(true);
    expect(retry(2, network)).toBe(false);
    expect(retry(0, apiErrorFromAnswer(502, { detail: "upstream" }))).toBe(true);
    expect(retry(0, apiErrorFromAnswer(504, { detail: "slow" }))).toBe(true);
  });

  it("never retries a 4xx, nor an error that is not an ApiError", () => {
    for (const status of [400, 401, 402, 403, 404, 409, 422, 429])
      expect(retry(0, apiErrorFromAnswer(status, { detail: "no" }))).toBe(false);
    expect(retry(0, new Error("render bug"))).toBe(false);
  });

  it("never retries mutations", () => {
    expect(client.getDefaultOptions().mutations?.retry).toBe(false);
  });

  it("a 401 on any other read makes the session be asked again (which shows the sign-in page)", async () => {
    const fresh = createQueryClient();
    fresh.setQueryData(SESSION_QUERY_KEY, {
      mode: "sandbox",
      plan: "PAYG",
      user: "ada",
      role: "admin",
      keyLast4: "demo",
    });
    const unauthenticated = apiErrorFromAnswer(401, { detail: "Please sign in first." });
    await fresh
      .fetchQuery({
        queryKey: ["credits"],
        queryFn: () => Promise.reject(unauthenticated),
        retry: false,
      })
      .catch(() => {});
    expect(fresh.getQueryState(SESSION_QUERY_KEY)?.isInvalidated).toBe(true);
  });
});

describe("number formatting", () => {
  it("groups thousands and names credits", () => {
    expect(formatNumber(1234567)).toBe("1,234,567");
    expect(formatNumber(2.5)).toBe("2.5");
    expect(formatCredits(10_000)).toBe("10,000 credits");
    expect(formatCredits(1)).toBe("1 credit");
    expect(formatCredits(0)).toBe("0 credits");
    expect(formatCount(1, "row", "rows")).toBe("1 row");
    expect(formatCount(2500, "row", "rows")).toBe("2,500 rows");
  });
});
