/**
 * The soak's judgement of resident memory (the soak itself runs ten minutes and is not in CI; its
 * arithmetic is, here).
 */
import { describe, expect, it } from "vitest";
import { leastSquares, type Sample, sparkline, trend, verdict } from "./trend";

/** Samples every 2 s for `minutes`, from a function of the minute, with a GC-like sawtooth. */
const series = (minutes: number, mb: (minute: number) => number, sawtooth = 0): Sample[] =>
  Array.from({ length: minutes * 30 }, (_, i) => ({
    seconds: i * 2,
    mb: mb(i / 30) + (sawtooth ? ((i % 7) / 6 - 0.5) * sawtooth : 0),
  }));

describe("leastSquares", () => {
  it("finds the slope in MB per minute, with no error on a straight line", () => {
    const fit = leastSquares(series(9, (m) => 200 + 2 * m));
    expect(fit.slope).toBeCloseTo(2, 6);
    expect(fit.intercept).toBeCloseTo(200, 6);
    expect(fit.slopeError).toBeCloseTo(0, 6);
  });
});

describe("trend", () => {
  it("a flat series with garbage-collection noise has no growth trend", () => {
    const t = trend(series(9, () => 250, 8));
    expect(Math.abs(t.slopeMbPerMin)).toBeLessThan(0.2);
    expect(t.growing).toBe(false);
  });

  it("a leak of 1.5 MB/min is a growth trend, and its drift is the slope times the span", () => {
    const t = trend(series(9, (m) => 250 + 1.5 * m, 8));
    expect(t.slopeMbPerMin).toBeCloseTo(1.5, 1);
    expect(t.driftMb).toBeCloseTo(t.slopeMbPerMin * t.spanMinutes, 6);
    expect(t.growing).toBe(true);
  });

  it("a rise that levelled off early is not a trend; one still rising at the end is", () => {
    const levelled = trend(series(9, (m) => 250 + 6 * Math.min(m, 1.5), 4));
    expect(levelled.stepMb).toBeLessThan(1);
    expect(levelled.growing).toBe(false);
    // Flat, then 6 MB more from minute 6.5 on: a small overall slope, but the last third is higher.
    const late = trend(series(9, (m) => (m < 6.5 ? 250 : 256), 1));
    expect(late.slopeMbPerMin).toBeLessThan(1);
    expect(late.stepMb).toBeGreaterThan(4);
    expect(late.growing).toBe(true);
  });
});

describe("verdict", () => {
  const flat = trend(series(9, () => 250, 8));
  const rising = trend(series(9, (m) => 250 + 2.5 * m, 8));

  it("no trend under load: no growth trend, whatever the rests say", () => {
    expect(verdict(flat, 240, 260)).toBe("no growth trend");
  });

  it("growth under load that is gone at rest does not last; growth still there at rest is a trend", () => {
    expect(verdict(rising, 245, 247)).toBe("no lasting growth");
    expect(verdict(rising, 245, 265)).toBe("GROWTH TREND");
  });
});

describe("sparkline", () => {
  it("scales to the series' own range, one bar per bucket", () => {
    expect(sparkline([1, 2, 3, 4, 5, 6, 7, 8], 8)).toBe("▁▂▃▄▅▆▇█");
    expect(sparkline([5, 5, 5], 10)).toBe("▁▁▁");
    expect(
      sparkline(
        Array.from({ length: 300 }, (_, i) => i),
        60,
      ),
    ).toHaveLength(60);
  });
});
