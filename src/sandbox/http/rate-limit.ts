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

/**
 * The times of one key's requests in the rolling minute, oldest first. Requests arrive in time
 * order, so the window slides by moving its head: each request costs the same however many the
 * minute holds (the sandbox runs with limits in the hundreds of thousands in tests and load runs).
 */
class MinuteWindow {
  private times: number[] = [];
  private head = 0;

  /** Forgets what fell out of the window that ends at `now`; returns how many remain. */
  slide(windowStart: number): number {
    while (this.head < this.times.length && this.times[this.head]! <= windowStart) this.head++;
    // Compacted once the dropped part is the larger half, so memory stays bounded by the minute.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }

  push(time: number): void {
    // A clock stepped back must not unsort the window: the request counts as of the latest time.
    const last = this.times[this.times.length - 1];
    this.times.push(last !== undefined && time < last ? last : time);
  }
}

export class RateLimiter {
  private readonly minute = new Map<string, MinuteWindow>();
  private readonly day = new Map<string, { day: string; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly perDay: number,
  ) {}

  take(key: string, now = Date.now()): RateDecision {
    let window = this.minute.get(key);
    if (!window) {
      window = new MinuteWindow();
      this.minute.set(key, window);
    }
    const inMinute = window.slide(now - 60_000);
    const today = new Date(now).toISOString().slice(0, 10);
    const daily = this.day.get(key);
    const dayCount = daily && daily.day === today ? daily.count : 0;

    const oldest = window.oldest() ?? now;
    const reset = Math.ceil((oldest + 60_000) / 1000);
    if (inMinute >= this.perMinute || dayCount >= this.perDay) {
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
    window.push(now);
    this.day.set(key, { day: today, count: dayCount + 1 });
    return {
      allowed: true,
      limit: this.perMinute,
      remaining: this.perMinute - (inMinute + 1),
      reset: Math.ceil(((window.oldest() ?? now) + 60_000) / 1000),
      retryAfterSeconds: 0,
    };
  }
}
