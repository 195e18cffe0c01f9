import type { KeyRecord } from "./state/store";

/** The daily free-sample budget of a key: rows left today (UTC), the count reset at midnight. */
export function viewRowsLeft(key: KeyRecord, budget: number, now = new Date()): number {
  const today = now.toISOString().slice(0, 10);
  if (key.viewDay !== today) {
    key.viewDay = today;
    key.viewUsed = 0;
  }
  return Math.max(0, budget - key.viewUsed);
}

export function nextUtcMidnight(now = new Date()): string {
  return new Date(Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000).toISOString();
}
