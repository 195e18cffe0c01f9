import { nextUtcMidnight } from "../../contract/time";
/**
 * The day's View budget as the proxy last saw it. Every View answer passes through the proxy with
 * `X-FreePreview-Remaining`, so the proxy can tell the Account page what is left without spending a
 * single row to ask (a View of 0 rows does not exist: the smallest sample costs budget).
 *
 * One record per proxy: the proxy holds one key at a time, and a rotated key is the same account, so
 * the budget carries over (the contract says so). Kept in memory: after a restart the value is
 * simply not known until the next View. Forgotten at the next UTC midnight, when the budget resets.
 */
export interface ViewBudgetSeen {
  /** Rows left in today's free sample budget. */
  remaining: number;
  /** When the proxy saw it (ISO 8601). */
  seenAt: string;
  /** When the budget resets: the UTC midnight after `seenAt` (ISO 8601). */
  resetAt: string;
}

export const REMAINING_HEADER = "x-freepreview-remaining";

export class LimitsSeen {
  private view: { remaining: number; seenAt: number } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** Learns from one View answer (any status: the cap's 429 says 0). Ignores a missing or odd header. */
  learnView(headers: Headers) {
    const value = headers.get(REMAINING_HEADER);
    if (value === null || !/^\d{1,12}$/.test(value.trim())) return;
    this.view = { remaining: Number(value.trim()), seenAt: this.now() };
  }

  /** The budget as last seen today, or null when nothing was seen since the last UTC midnight. */
  viewBudget(): ViewBudgetSeen | null {
    if (!this.view) return null;
    const resetAt = nextUtcMidnight(this.view.seenAt).getTime();
    if (this.now() >= resetAt) {
      this.view = null;
      return null;
    }
    return {
      remaining: this.view.remaining,
      seenAt: new Date(this.view.seenAt).toISOString(),
      resetAt: new Date(resetAt).toISOString(),
    };
  }
}
