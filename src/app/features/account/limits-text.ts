import { VIEW_BUDGET_DEFAULT } from "../../../contract/inferred";
import { DOLLARS_PER_CREDIT } from "../../../contract/pricing";
import type { RateLimitSeen } from "../../api/credits";
import { type FormatOptions, formatDollars, formatNumber, formatTime } from "../../lib/format";

/** `10000` -> `$27.00`: what a PAYG balance is worth at the public price. */
export function dollarValue(credits: number): string {
  return formatDollars(credits * DOLLARS_PER_CREDIT);
}

/** The day's budget size: the service's 100,000, or more if a larger remainder was seen. */
export function budgetTotal(remaining: number): number {
  return Math.max(VIEW_BUDGET_DEFAULT, remaining);
}

/** `99,975 of 100,000 sample rows left today`. */
export function viewBudgetText(remaining: number): string {
  return `${formatNumber(remaining)} of ${formatNumber(budgetTotal(remaining))} sample rows left today`;
}

/** `Resets at 01:00 your time (midnight UTC).` */
export function viewResetText(resetAt: string | number | Date, clock: FormatOptions = {}): string {
  return `Resets at ${formatTime(new Date(resetAt), clock)} your time (midnight UTC).`;
}

/** `58 of 60 requests left this minute`. */
export function rateLimitText(rate: RateLimitSeen): string {
  return `${formatNumber(rate.remaining)} of ${formatNumber(rate.limit)} ${rate.limit === 1 ? "request" : "requests"} left this minute`;
}

/**
 * When the counted calls free up again (a rolling minute: the oldest call stops counting at Reset),
 * and when the numbers were read, so a stale reading says so.
 */
export function rateResetText(
  rate: RateLimitSeen,
  now: number = Date.now(),
  clock: FormatOptions = {},
): string {
  const checked = `checked at ${formatTime(rate.seenAt, { ...clock, seconds: true })}`;
  if (rate.remaining >= rate.limit) return `None used in the last minute (${checked}).`;
  if (now < rate.resetAt)
    return `More free up at ${formatTime(rate.resetAt, { ...clock, seconds: true })} (${checked}).`;
  return `More have freed up since (${checked}).`;
}
