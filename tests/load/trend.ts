import { median } from "../bench/stats";

/**
 * Is resident memory still growing? Judged on the samples under load after the warm-up (caches,
 * JIT and DuckDB's buffers fill in the first minute), by two checks that must both hold:
 *  - the least-squares slope is below `maxSlopeMbPerMin` (1 MB/min by default: a leak of a few
 *    hundred bytes per request at the soak's rate; slower drifts are within the noise of garbage
 *    collection over ten minutes, see the slope's standard error printed beside it);
 *  - the median of the last third is not above the middle third's by more than `maxStepMb`
 *    (4 MB): catches growth that continues at the end of the run even when an early plateau keeps
 *    the overall slope low.
 */
export interface Sample {
  seconds: number;
  mb: number;
}

export interface Trend {
  samples: number;
  slopeMbPerMin: number;
  /** Standard error of the slope (MB/min). */
  slopeErrorMbPerMin: number;
  /** The slope's effect over the measured span (MB). */
  driftMb: number;
  spanMinutes: number;
  thirds: [number, number, number];
  /** Highest sample of each third: a leak lifts these too; memory kept by the allocator does not. */
  peaks: [number, number, number];
  /** Median of the last third minus median of the middle third (MB). */
  stepMb: number;
  firstMb: number;
  lastMb: number;
  minMb: number;
  maxMb: number;
  growing: boolean;
}

export const CRITERIA = { maxSlopeMbPerMin: 1, maxStepMb: 4 };

/** Ordinary least squares of MB on minutes. */
export function leastSquares(samples: readonly Sample[]): {
  slope: number;
  intercept: number;
  slopeError: number;
} {
  const n = samples.length;
  const xs = samples.map((s) => s.seconds / 60);
  const ys = samples.map((s) => s.mb);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ys[i]! - (intercept + slope * xs[i]!)) ** 2;
  const slopeError = n > 2 && sxx > 0 ? Math.sqrt(sse / (n - 2) / sxx) : Number.NaN;
  return { slope, intercept, slopeError };
}

export function trend(samples: readonly Sample[], criteria = CRITERIA): Trend {
  if (samples.length < 6) throw new Error(`too few samples to judge a trend: ${samples.length}`);
  const { slope, slopeError } = leastSquares(samples);
  const third = Math.floor(samples.length / 3);
  const parts = [samples.slice(0, third), samples.slice(third, 2 * third), samples.slice(2 * third)];
  const thirds = parts.map((p) => median(p.map((s) => s.mb))) as [number, number, number];
  const peaks = parts.map((p) => Math.max(...p.map((s) => s.mb))) as [number, number, number];
  const spanMinutes = (samples.at(-1)!.seconds - samples[0]!.seconds) / 60;
  const mbs = samples.map((s) => s.mb);
  const stepMb = thirds[2] - thirds[1];
  return {
    samples: samples.length,
    slopeMbPerMin: slope,
    slopeErrorMbPerMin: slopeError,
    driftMb: slope * spanMinutes,
    spanMinutes,
    thirds,
    peaks,
    stepMb,
    firstMb: mbs[0]!,
    lastMb: mbs.at(-1)!,
    minMb: Math.min(...mbs),
    maxMb: Math.max(...mbs),
    growing: slope >= criteria.maxSlopeMbPerMin || stepMb > criteria.maxStepMb,
  };
}

export type Verdict = "no growth trend" | "no lasting growth" | "GROWTH TREND";

/**
 * The verdict on one process. Under load: `trend(...).growing`. When that finds growth, the idle
 * check decides whether it lasts: resident memory at rest after the run against at rest after the
 * warm-up (the same traffic had run before both). Kept objects (a leak) stay when the traffic stops;
 * heap and allocator capacity taken under load is handed back (or reused by the next burst), so
 * growth that is gone at rest is reported as such ("no lasting growth"), not as a trend.
 */
export function verdict(t: Trend, idleBeforeMb: number, idleAfterMb: number, criteria = CRITERIA): Verdict {
  if (!t.growing) return "no growth trend";
  return idleAfterMb - idleBeforeMb <= criteria.maxStepMb ? "no lasting growth" : "GROWTH TREND";
}

const BARS = "▁▂▃▄▅▆▇█";

/** A one-line chart of a series, averaged into `width` buckets, scaled to its own min..max. */
export function sparkline(values: readonly number[], width = 60): string {
  if (values.length === 0) return "";
  const buckets: number[] = [];
  const size = values.length / Math.min(width, values.length);
  for (let start = 0; Math.round(start) < values.length; start += size) {
    const part = values.slice(Math.round(start), Math.max(Math.round(start) + 1, Math.round(start + size)));
    buckets.push(part.reduce((a, b) => a + b, 0) / part.length);
  }
  const lo = Math.min(...buckets);
  const hi = Math.max(...buckets);
  return buckets
    .map(
      (v) =>
        BARS[hi === lo ? 0 : Math.min(BARS.length - 1, Math.floor(((v - lo) / (hi - lo)) * BARS.length))],
    )
    .join("");
}
