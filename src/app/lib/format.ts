/**
 * How the app writes numbers, money, dates and sizes: one policy for every screen. The browser's own
 * locale and time zone (`LOCALE` is undefined), so a person in Berlin reads `14:05` and one in
 * Boston `2:05 PM`; tests pin a locale or time zone through the options.
 */
const LOCALE: string | undefined = undefined;

export interface FormatOptions {
  /** A BCP 47 locale; the browser's when absent. */
  locale?: string;
  /** An IANA time zone; the browser's when absent. */
  timeZone?: string;
}

const integerFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 2 });
const dollarFormat = new Intl.NumberFormat(LOCALE, { style: "currency", currency: "USD" });

/** Grouped thousands: `10,000` (or `10.000`, `10 000`); up to two decimals. */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? integerFormat.format(value) : decimalFormat.format(value);
}

/** A number and its noun, one or many: `formatCount(1, "row", "rows")` -> `1 row`; `2,500 rows`. */
export function formatCount(value: number, one: string, many: string): string {
  return `${formatNumber(value)} ${value === 1 ? one : many}`;
}

/** `10000` -> `10,000 credits`; `1` -> `1 credit`. */
export function formatCredits(value: number): string {
  return formatCount(value, "credit", "credits");
}

/** `27` -> `$27.00`. */
export function formatDollars(amount: number): string {
  return dollarFormat.format(amount);
}

/** `1.2 MB`, `830 kB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${formatNumber(bytes)} ${bytes === 1 ? "byte" : "bytes"}`;
  if (bytes < 1_000_000) return `${formatNumber(Math.round(bytes / 1000))} kB`;
  return `${formatNumber(Math.round(bytes / 100_000) / 10)} MB`;
}

function toDate(at: string | number | Date): Date | null {
  const date = at instanceof Date ? at : new Date(at);
  return Number.isNaN(date.getTime()) ? null : date;
}

function zoneOf(options: FormatOptions) {
  return options.timeZone ? { timeZone: options.timeZone } : {};
}

/** A time of day: `14:05` or `2:05 PM` (with `seconds`, `14:05:09`); the text itself when not a date. */
export function formatTime(
  at: string | number | Date,
  options: FormatOptions & { seconds?: boolean } = {},
): string {
  const date = toDate(at);
  if (!date) return String(at);
  return date.toLocaleTimeString(options.locale ?? LOCALE, {
    hour: "2-digit",
    minute: "2-digit",
    ...(options.seconds ? { second: "2-digit" } : {}),
    ...zoneOf(options),
  });
}

/** A day and time: `Nov 21, 2026, 2:05 PM` or `21 Nov 2026, 14:05`; the text itself when not a date. */
export function formatDateTime(
  at: string | number | Date,
  options: FormatOptions & { seconds?: boolean } = {},
): string {
  const date = toDate(at);
  if (!date) return String(at);
  return date.toLocaleString(options.locale ?? LOCALE, {
    dateStyle: "medium",
    timeStyle: options.seconds ? "medium" : "short",
    ...zoneOf(options),
  });
}

/** The time alone on the same day, the day and time otherwise. */
export function formatWhen(at: string | number | Date, now: Date = new Date()): string {
  const date = toDate(at);
  if (!date) return String(at);
  return date.toDateString() === now.toDateString()
    ? formatTime(date, { seconds: true })
    : formatDateTime(date);
}

const relativeFormat = new Intl.RelativeTimeFormat(LOCALE, { numeric: "auto" });
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
  return formatDateTime(then);
}

/** `2026-11-21-1405`, for file names (not for reading: the same in every locale). */
export function fileStamp(date: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}`;
}

const PLAN_NAMES: Readonly<Record<string, string>> = { PAYG: "Pay as you go", AYCE: "All you can eat" };

/** `PAYG` -> "Pay as you go", `AYCE` -> "All you can eat": a plan as people say it. */
export function planName(plan: string): string {
  return PLAN_NAMES[plan] ?? plan;
}
