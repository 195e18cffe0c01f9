import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatAmount,
  formatPrice,
  insufficientText,
  revealPhrase,
} from "../../../../src/app/features/checkout/pricing";
import { REVEALS } from "../../../../src/contract/inferred";
import { contactCost, DOLLARS_PER_CREDIT, maxContactCost } from "../../../../src/contract/pricing";

describe("prices and amounts", () => {
  it("shows credits and, on PAYG, the approximate dollars", () => {
    expect(formatAmount(1250, "PAYG")).toBe("1,250 credits (≈ $3.38)");
    expect(formatAmount(1, "PAYG")).toBe("1 credit (< $0.01)");
    expect(formatAmount(10_000, "PAYG")).toBe("10,000 credits (≈ $27.00)");
    expect(formatAmount(0, "PAYG")).toBe("0 credits (≈ $0.00)");
  });

  it("on AYCE (or while the plan is unknown) says credits only", () => {
    expect(formatAmount(0, "AYCE")).toBe("0 credits");
    expect(formatAmount(12, null)).toBe("12 credits");
    expect(formatAmount(12, "AYCE")).not.toContain("$");
  });

  it("rounds dollars to cents, and never shows a tiny amount as $0.00", () => {
    expect(formatPrice(3.375)).toBe("$3.38");
    expect(formatPrice(0.004)).toBe("< $0.01");
    expect(formatPrice(1234.5)).toBe("$1,234.50");
    expect(DOLLARS_PER_CREDIT).toBe(0.0027);
  });

  it("the most a row can cost follows the reveal", () => {
    expect(maxContactCost(1, "none", "PAYG")).toBe(1);
    expect(maxContactCost(1, "email", "PAYG")).toBe(2);
    expect(maxContactCost(1, "mobile", "PAYG")).toBe(4);
    expect(maxContactCost(1, "both", "PAYG")).toBe(5);
    expect(maxContactCost(1000, "both", "PAYG")).toBe(5000);
    expect(maxContactCost(1000, "both", "AYCE")).toBe(0);
  });

  it("the ceiling is never below what the sandbox charges for the same rows", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.constantFrom(...REVEALS),
        (rows, emails, mobiles, reveal) => {
          const figures = { rows, withEmail: Math.min(rows, emails), withMobile: Math.min(rows, mobiles) };
          const charged = contactCost("PAYG", reveal, figures);
          expect(maxContactCost(rows, reveal, "PAYG")).toBeGreaterThanOrEqual(charged);
          // Every email and mobile present: the ceiling is exactly the charge.
          expect(contactCost("PAYG", reveal, { rows, withEmail: rows, withMobile: rows })).toBe(
            maxContactCost(rows, reveal, "PAYG"),
          );
        },
      ),
    );
  });

  it("explains 402 with both numbers", () => {
    expect(insufficientText(137_280, 9_099, "PAYG")).toBe(
      "This needs 137,280 credits (≈ $370.66); your balance is 9,099 credits (≈ $24.57).",
    );
    expect(insufficientText(5, 2, null)).toBe("This needs 5 credits; your balance is 2 credits.");
  });

  it("repeats the reveal in words", () => {
    expect(revealPhrase("both")).toBe("with email addresses and mobile numbers");
    expect(revealPhrase("none")).toBe("without email addresses or mobile numbers");
  });
});
