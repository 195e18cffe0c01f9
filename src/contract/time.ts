/** The next midnight UTC after `now`: when the daily View budget resets (the service's day is UTC). */
export function nextUtcMidnight(now: number | Date = Date.now()): Date {
  const at = new Date(now);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
