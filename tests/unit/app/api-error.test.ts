import { HTTPError, TimeoutError } from "ky";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  apiErrorFromAnswer,
  apiErrorFromResponse,
  describeLocation,
  parseRetryAfter,
  toApiError,
} from "../../../src/app/api/api-error";
import { newIdempotencyKey, spendOptions } from "../../../src/app/api/client";
import { formatDateTime } from "../../../src/app/lib/format";
import { ERROR_CODES } from "../../../src/contract/inferred";

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** ky's HTTPError for a given answer, as `api.get(...)` would throw it. */
function httpError(response: Response): HTTPError {
  const request = new Request("http://127.0.0.1/api/v2/credits");
  return new HTTPError(response, request, {} as ConstructorParameters<typeof HTTPError>[2]);
}

describe("ApiError from an HTTP answer", () => {
  it("422: keeps every issue with its loc and names the first one", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(422, {
        detail: [
          {
            loc: ["body", "filter", "children", 0, "value"],
            msg: "Input should be a valid integer",
            type: "int_type",
            input: "ten",
          },
          { loc: ["body", "maxRows"], msg: "Field required", type: "missing" },
        ],
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error.kind).toBe("validation");
    expect(error.status).toBe(422);
    expect(error.issues).toHaveLength(2);
    expect(error.issues[0]?.loc).toEqual(["body", "filter", "children", 0, "value"]);
    expect(error.issues[1]?.type).toBe("missing");
    expect(error.message).toBe(
      "Some of what was sent is not valid: rule 1, its value: Input should be a valid integer (and 1 more).",
    );
  });

  it("422: the service's 'Value error, ' prefix is not shown to people", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(422, {
        detail: [
          {
            loc: ["body", "groupField"],
            msg: "Value error, EMAIL_ADDRESS_PER is masked and cannot be grouped",
            type: "value_error",
          },
        ],
      }),
    );
    expect(error.message).toContain("EMAIL_ADDRESS_PER is masked and cannot be grouped");
    expect(error.message).not.toContain("Value error");
  });

  it("422 with a body that is not a validation record still reads as validation", async () => {
    const error = await apiErrorFromResponse(jsonResponse(422, { detail: "Unprocessable" }));
    expect(error.kind).toBe("validation");
    expect(error.issues).toEqual([]);
    expect(error.message).toBe("Unprocessable");
  });

  it("402: required and balance, in a sentence with grouped thousands", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(402, {
        detail: "Not enough credits",
        code: ERROR_CODES.insufficientCredits,
        required: 12_500,
        balance: 300,
      }),
    );
    expect(error.kind).toBe("insufficient-credits");
    expect(error.required).toBe(12_500);
    expect(error.balance).toBe(300);
    expect(error.code).toBe("INSUFFICIENT_CREDITS");
    expect(error.message).toBe("Not enough credits: this needs 12,500 and the balance is 300.");
  });

  it("429 FREE_PREVIEW_CAP_REACHED is the exhausted daily budget, with its reset time", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(
        429,
        { detail: "cap", code: ERROR_CODES.freePreviewCap, resetAt: "2026-03-02T00:00:00.000Z" },
        { "x-freepreview-remaining": "0", "x-request-id": "req-1" },
      ),
    );
    expect(error.kind).toBe("budget-exhausted");
    expect(error.resetAt).toBe("2026-03-02T00:00:00.000Z");
    expect(error.code).toBe("FREE_PREVIEW_CAP_REACHED");
    expect(error.requestId).toBe("req-1");
    expect(error.message).toBe(
      `Today's free sample budget is used up. It resets at ${formatDateTime("2026-03-02T00:00:00Z", { timeZone: "UTC" })} UTC.`,
    );
    expect(error.transient).toBe(false);
  });

  it("429 RATE_LIMITED is a rate limit, with Retry-After in seconds", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(429, { detail: "Too many", code: ERROR_CODES.rateLimited }, { "retry-after": "7" }),
    );
    expect(error.kind).toBe("rate-limited");
    expect(error.retryAfter).toBe(7);
    expect(error.resetAt).toBeNull();
    expect(error.message).toBe("Too many requests right now. Try again in 7 seconds.");
  });

  it("429 without a code (the sign-in limiter) keeps the server's sentence", async () => {
    const error = await apiErrorFromResponse(
      jsonResponse(
        429,
        { detail: "Too many failed sign-ins. Wait a few minutes, then try again." },
        {
          "retry-after": "300",
        },
      ),
    );
    expect(error.kind).toBe("rate-limited");
    expect(error.retryAfter).toBe(300);
    expect(error.message).toBe("Too many failed sign-ins. Wait a few minutes, then try again.");
  });

  it.each([
    [401, "unauthenticated", "Please sign in first."],
    [403, "forbidden", "This API key has no access to this operation."],
    [404, "not-found", "Export not found"],
    [410, "not-found", "v1 is retired"],
    [409, "conflict", "This Idempotency-Key was already used with different details."],
    [400, "validation", "The export has completed and cannot be cancelled"],
    [502, "upstream", "The data service could not be reached."],
    [500, "upstream", "Something went wrong in the proxy."],
    [504, "timeout", "The data service did not answer in time."],
    [428, "other", "This action spends credits, so it needs an Idempotency-Key header."],
  ] as const)("%i answers are %s and keep their detail", async (status, kind, detail) => {
    const error = await apiErrorFromResponse(jsonResponse(status, { detail }));
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.message).toBe(detail);
    expect(error.body).toEqual({ detail });
  });

  it("an answer without a readable body still gets the default sentence of its kind", async () => {
    const html = new Response("<html>Bad gateway</html>", {
      status: 502,
      headers: { "content-type": "text/html" },
    });
    const error = await apiErrorFromResponse(html);
    expect(error.kind).toBe("upstream");
    expect(error.body).toBe("<html>Bad gateway</html>");
    expect(error.message).toBe("The data service had a problem answering. Try again in a moment.");
    expect(error.transient).toBe(true);

    const empty = await apiErrorFromResponse(new Response(null, { status: 403 }));
    expect(empty.kind).toBe("forbidden");
    expect(empty.body).toBeNull();
    expect(empty.message).toBe("This API key is not allowed to do that.");
  });

  it("a 402 without required/balance falls back to its detail", () => {
    const error = apiErrorFromAnswer(402, { detail: "Payment required" });
    expect(error.kind).toBe("insufficient-credits");
    expect(error.required).toBeNull();
    expect(error.message).toBe("Payment required");
  });
});

describe("ApiError from any failure", () => {
  it("maps ky's HTTPError by reading its response", async () => {
    const error = await toApiError(httpError(jsonResponse(401, { detail: "Please sign in first." })));
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toBe("Please sign in first.");
  });

  it("maps ky's TimeoutError to timeout, and a fetch TypeError to network (status 0)", async () => {
    const timeout = await toApiError(new TimeoutError(new Request("http://127.0.0.1/api/session")));
    expect(timeout.kind).toBe("timeout");
    expect(timeout.status).toBe(0);
    expect(timeout.transient).toBe(true);

    const network = await toApiError(new TypeError("Failed to fetch"));
    expect(network.kind).toBe("network");
    expect(network.status).toBe(0);
    expect(network.message).toMatch(/could not be reached/);
  });

  it("passes an ApiError through and wraps anything else as other", async () => {
    const original = apiErrorFromAnswer(409, { detail: "again" });
    expect(await toApiError(original)).toBe(original);
    const other = await toApiError(new Error("boom"));
    expect(other.kind).toBe("other");
    expect(other.message).toBe("boom");
  });
});

describe("helpers", () => {
  it("parseRetryAfter reads seconds and HTTP dates", () => {
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("12")).toBe(12);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon")).toBeNull();
  });

  it("describeLocation drops where the input came from", () => {
    expect(describeLocation(["body", "filter", "children", 2])).toBe("rule 3");
    expect(describeLocation(["body", "filter", "children", 1, "children", 0, "domain"])).toBe(
      "rule 2.1, its company domain",
    );
    expect(describeLocation(["body", "filter"])).toBe("the filter");
    expect(describeLocation(["query", "metadata"])).toBe("metadata");
    expect(describeLocation(["body"])).toBe("the request");
  });

  it("spendOptions adds an Idempotency-Key, the caller's when given", () => {
    const given = new Headers(spendOptions("checkout-key-123").headers as HeadersInit);
    expect(given.get("idempotency-key")).toBe("checkout-key-123");
    const fresh = new Headers(spendOptions().headers as HeadersInit);
    expect(fresh.get("idempotency-key")).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
    const merged = new Headers(
      spendOptions("k-12345678", { headers: { "x-extra": "1" } }).headers as HeadersInit,
    );
    expect(merged.get("x-extra")).toBe("1");
  });
});
