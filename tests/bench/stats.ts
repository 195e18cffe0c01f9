/** Order statistics for benchmark samples (milliseconds). */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (samples: readonly number[]) => quantile(samples, 0.5);
export const p95 = (samples: readonly number[]) => quantile(samples, 0.95);

export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

export const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(2) : "-");

/** Prints rows as an aligned Markdown table (pasteable into the README). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(cells[0]!),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...cells.slice(1).map(line),
  ].join("\n");
}
