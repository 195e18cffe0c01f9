/**
 * The ordinary per-key rate limit: a rolling minute and a UTC day (public docs: 60 and 10,000).
 * In memory: a restart forgives, as a restarted service would.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the minute window frees a slot. */
  reset: number;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly minute = new Map<string, number[]>();
  private readonly day = new Map<string, { day: string; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly perDay: number,
  ) {}

  take(key: string, now = Date.now()): RateDecision {
    const windowStart = now - 60_000;
    const times = (this.minute.get(key) ?? []).filter((t) => t > windowStart);
    const today = new Date(now).toISOString().slice(0, 10);
    const daily = this.day.get(key);
    const dayCount = daily && daily.day === today ? daily.count : 0;

    const oldest = times[0] ?? now;
    const reset = Math.ceil((oldest + 60_000) / 1000);
    if (times.length >= this.perMinute || dayCount >= this.perDay) {
      this.minute.set(key, times);
      const untilMidnight = Date.parse(`${today}T00:00:00Z`) + 86_400_000 - now;
      const wait = dayCount >= this.perDay ? untilMidnight : oldest + 60_000 - now;
      return {
        allowed: false,
        limit: this.perMinute,
        remaining: 0,
        reset,
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
      };
    }
    times.push(now);
    this.minute.set(key, times);
    this.day.set(key, { day: today, count: dayCount + 1 });
    return {
      allowed: true,
      limit: this.perMinute,
      remaining: this.perMinute - times.length,
      reset: Math.ceil(((times[0] ?? now) + 60_000) / 1000),
      retryAfterSeconds: 0,
    };
  }
}
