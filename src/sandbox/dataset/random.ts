import { hash32 } from "./embed";

/**
 * Seeded pseudo-random numbers for the parts of the dataset built in JS (companies). One stream
 * per purpose, so that changing how one thing is drawn does not reshuffle everything else.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: string) {
    this.a = hash32(`${seed}:${stream}:a`);
    this.b = hash32(`${seed}:${stream}:b`);
    this.c = hash32(`${seed}:${stream}:c`);
    this.d = hash32(`${seed}:${stream}:d`) | 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** sfc32: small, fast, and good enough for choosing words. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** Index drawn with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
}

/**
 * Splits `total` into integer parts proportional to `weights` (largest remainder), so that the
 * parts add up exactly. Used for contacts per company and for lookup-table slots.
 */
export function apportion(weights: readonly number[], total: number): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (sum <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w / sum) * total);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((s, p) => s + p, 0);
  const order = exact
    .map((e, i) => [e - Math.floor(e), i] as const)
    .sort((x, y) => y[0] - x[0] || x[1] - y[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    parts[i] = (parts[i] ?? 0) + 1;
    left--;
  }
  return parts;
}
