/** Dates of saved audiences: relative on screen ("5 minutes ago"), absolute on hover. */
const relativeFormat = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });
const absoluteFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

const STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
  ["week", 4.35],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** `just now`, `5 minutes ago`, `yesterday`, `3 weeks ago`... */
export function formatRelative(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "at an unknown time";
  let amount = (then - now.getTime()) / 1000;
  if (Math.abs(amount) < 45) return "just now";
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return relativeFormat.format(Math.round(amount), unit);
    amount /= size;
  }
  return absoluteFormat.format(then);
}

/** `Mar 4, 2026, 9:15 AM` (the browser's time zone). */
export function formatAbsolute(iso: string): string {
  const then = Date.parse(iso);
  return Number.isNaN(then) ? "Unknown date" : absoluteFormat.format(then);
}
