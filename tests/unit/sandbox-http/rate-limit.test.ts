import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type RateDecision, RateLimiter } from "../../../src/sandbox/http/rate-limit";

/** The limit as the public docs state it, written the plain way: every request of the minute kept. */
function referenceLimiter(perMinute: number, perDay: number) {
  const minute = new Map<string, number[]>();
  const day = new Map<string, { day: string; count: number }>();
  return (key: string, now: number): RateDecision => {
    const times = (minute.get(key) ?? []).filter((t) => t > now - 60_000);
    minute.set(key, times);
    const today = new Date(now).toISOString().slice(0, 10);
    const daily = day.get(key);
    const dayCount = daily?.day === today ? daily.count : 0;
    const oldest = times[0] ?? now;
    if (times.length >= perMinute || dayCount >= perDay) {
      const untilMidnight = Date.parse(`${today}T00:00:00Z`) + 86_400_000 - now;
      const wait = dayCount >= perDay ? untilMidnight : oldest + 60_000 - now;
      return {
        allowed: false,
        limit: perMinute,
        remaining: 0,
        reset: Math.ceil((oldest + 60_000) / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
      };
    }
    times.push(now);
    day.set(key, { day: today, count: dayCount + 1 });
    return {
      allowed: true,
      limit: perMinute,
      remaining: perMinute - times.length,
      reset: Math.ceil(((times[0] ?? now) + 60_000) / 1000),
      retryAfterSeconds: 0,
    };
  };
}

describe("the sandbox's rate limit", () => {
  it("decides every request as the plain rolling minute and UTC day would", () => {
    const start = Date.parse("2026-11-27T23:58:00Z");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.tuple(
            fc.constantFrom("a", "b"),
            // Gaps that land exactly on the minute's edge as well as anywhere in it.
            fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.constantFrom(0, 1, 59_999, 60_000, 60_001)),
          ),
          {
            maxLength: 300,
          },
        ),
        (perMinute, perDay, steps) => {
          const limiter = new RateLimiter(perMinute, perDay);
          const reference = referenceLimiter(perMinute, perDay);
          let now = start;
          for (const [key, gap] of steps) {
            now += gap;
            expect(limiter.take(key, now)).toEqual(reference(key, now));
          }
        },
      ),
    );
  });

  it("slides a minute that holds thousands of requests without losing count", () => {
    const limiter = new RateLimiter(5000, 1_000_000);
    const t0 = Date.parse("2026-11-28T10:00:00Z");
    // 5,000 requests in the first 50 s fill the minute; the next is refused until the first leaves.
    for (let i = 0; i < 5000; i++) expect(limiter.take("k", t0 + i * 10).allowed).toBe(true);
    const refused = limiter.take("k", t0 + 50_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 10 });
    // Exactly a minute after the first request, it has left: one slot, then refused again.
    expect(limiter.take("k", t0 + 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take("k", t0 + 60_001).allowed).toBe(false);
    // Two minutes later the window is empty again, whatever it held.
    expect(limiter.take("k", t0 + 200_000)).toMatchObject({ allowed: true, remaining: 4999 });
  });
});
