import { nextUtcMidnight } from "../contract/time";
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

/** When today's budget resets, as the service writes it (ISO 8601). */
export function resetAtIso(now = new Date()): string {
  return nextUtcMidnight(now).toISOString();
}
