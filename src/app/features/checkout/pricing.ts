import { type Plan, PRICE, type Reveal } from "../../../contract/inferred";
import { DOLLARS_PER_CREDIT, revealsEmail, revealsMobile } from "../../../contract/pricing";
import { formatCredits, formatDollars } from "../../lib/format";

/**
 * What things cost, in words. Credits are what the service charges; on PAYG every amount also says
 * roughly what it is in dollars, so nobody has to do the sum before they pay.
 */

/** `3.375` -> `$3.38`; amounts under a cent say so instead of rounding to `$0.00`. */
export function formatPrice(amount: number): string {
  if (amount !== 0 && Math.abs(amount) < 0.01) return `< ${formatDollars(0.01)}`;
  return formatDollars(amount);
}

/** A number of credits in dollars at DOLLARS_PER_CREDIT. */
export function creditsInDollars(credits: number): number {
  return credits * DOLLARS_PER_CREDIT;
}

/**
 * Every amount the checkout shows: `1,250 credits (≈ $3.38)` on PAYG, `0 credits` on AYCE (no
 * dollars: nothing is paid per row there), credits alone while the plan is not known yet.
 */
export function formatAmount(credits: number, plan: Plan | null | undefined): string {
  if (plan !== "PAYG") return formatCredits(credits);
  const dollars = formatPrice(creditsInDollars(credits));
  // "< $0.01" already says it is approximate.
  return `${formatCredits(credits)} (${dollars.startsWith("<") ? dollars : `≈ ${dollars}`})`;
}

/** The reveal choice as the people who pay read it. */
export const REVEAL_LABELS: Record<Reveal, string> = {
  none: "Neither",
  email: "Email",
  mobile: "Mobile",
  both: "Email and mobile",
};

/** "with their email addresses" etc., for sentences that repeat the choice before confirming. */
export function revealPhrase(reveal: Reveal): string {
  switch (reveal) {
    case "email":
      return "with email addresses";
    case "mobile":
      return "with mobile numbers";
    case "both":
      return "with email addresses and mobile numbers";
    case "none":
      return "without email addresses or mobile numbers";
  }
}

/** What a reveal choice costs per row on this plan, for the choice's hint. */
export function revealPriceHint(reveal: Reveal, plan: Plan | null | undefined): string {
  if (plan === "AYCE") return "Included in your plan";
  const parts = [`${PRICE.perRow} credit per row`];
  if (revealsEmail(reveal)) parts.push(`+${PRICE.perRevealedEmail} per email found`);
  if (revealsMobile(reveal)) parts.push(`+${PRICE.perRevealedMobile} per mobile found`);
  return parts.join(" ");
}

/** The 402 sentence, with both numbers. */
export function insufficientText(required: number, balance: number, plan: Plan | null | undefined): string {
  return `This needs ${formatAmount(required, plan)}; your balance is ${formatAmount(balance, plan)}.`;
}
