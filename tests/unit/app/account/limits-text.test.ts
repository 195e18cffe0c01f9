import { describe, expect, it } from "vitest";
import type { RateLimitSeen } from "../../../../src/app/api/credits";
import {
  budgetTotal,
  dollarValue,
  rateLimitText,
  rateResetText,
  viewBudgetText,
  viewResetText,
} from "../../../../src/app/features/account/limits-text";
import { formatTime } from "../../../../src/app/lib/format";
import { nextUtcMidnight } from "../../../../src/contract/time";

const UTC = { locale: "en-GB", timeZone: "UTC" };
const NOW = Date.UTC(2026, 2, 14, 13, 2, 11);

describe("the balance in dollars (PAYG)", () => {
  it("prices credits at $0.0027", () => {
    expect(dollarValue(10_000)).toBe("$27.00");
    expect(dollarValue(1)).toBe("$0.00");
    expect(dollarValue(0)).toBe("$0.00");
    expect(dollarValue(1_234_567)).toBe("$3,333.33");
  });
});

describe("the View budget", () => {
  it("says what is left of the day's 100,000 (or more, when more was seen)", () => {
    expect(viewBudgetText(99_975)).toBe("99,975 of 100,000 sample rows left today");
    expect(viewBudgetText(0)).toBe("0 of 100,000 sample rows left today");
    expect(budgetTotal(250_000)).toBe(250_000);
    expect(viewBudgetText(250_000)).toBe("250,000 of 250,000 sample rows left today");
  });

  it("resets at the next midnight UTC, shown in the person's time", () => {
    expect(nextUtcMidnight(NOW).toISOString()).toBe("2026-03-15T00:00:00.000Z");
    expect(nextUtcMidnight(Date.UTC(2026, 11, 31, 23, 59, 59)).toISOString()).toBe(
      "2027-01-01T00:00:00.000Z",
    );
    expect(nextUtcMidnight(Date.UTC(2026, 2, 15)).toISOString()).toBe("2026-03-16T00:00:00.000Z");
    expect(viewResetText("2026-03-15T00:00:00.000Z", UTC)).toBe("Resets at 00:00 your time (midnight UTC).");
    expect(viewResetText("2026-03-15T00:00:00.000Z", { locale: "en-GB", timeZone: "Europe/Berlin" })).toBe(
      "Resets at 01:00 your time (midnight UTC).",
    );
  });

  it("formats a time of day with or without seconds", () => {
    expect(formatTime(NOW, UTC)).toBe("13:02");
    expect(formatTime(NOW, { ...UTC, seconds: true })).toBe("13:02:11");
    expect(formatTime(NOW, { locale: "en-US", timeZone: "UTC" })).toBe("01:02 PM");
  });
});

describe("the rate limit", () => {
  const rate = (remaining: number, limit = 60): RateLimitSeen => ({
    limit,
    remaining,
    resetAt: NOW + 42_000,
    seenAt: NOW,
  });

  it("says how many requests are left this minute", () => {
    expect(rateLimitText(rate(58))).toBe("58 of 60 requests left this minute");
    expect(rateLimitText(rate(1, 1))).toBe("1 of 1 request left this minute");
    expect(rateLimitText(rate(9_999, 10_000))).toBe("9,999 of 10,000 requests left this minute");
  });

  it("says when more free up, and when the numbers were read", () => {
    expect(rateResetText(rate(58), NOW + 1000, UTC)).toBe("More free up at 13:02:53 (checked at 13:02:11).");
    expect(rateResetText(rate(58), NOW + 60_000, UTC)).toBe(
      "More have freed up since (checked at 13:02:11).",
    );
    expect(rateResetText(rate(60), NOW, UTC)).toBe("None used in the last minute (checked at 13:02:11).");
  });
});
