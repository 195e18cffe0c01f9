import { useEffect, useState } from "react";
import { nextUtcMidnight } from "../../../contract/time";

/** The reset time from a `resetAt` the service sent, or the next midnight UTC. */
export function resetTime(resetAt: string | null | undefined, now: number = Date.now()): Date {
  if (resetAt) {
    const at = new Date(resetAt);
    if (!Number.isNaN(at.getTime())) return at;
  }
  return nextUtcMidnight(now);
}

/** `3 h 05 min 09 s`, `4 min 10 s`, `12 s`: a countdown that reads well and is exact. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  if (hours > 0) return `${hours} h ${pad(minutes)} min ${pad(seconds)} s`;
  if (minutes > 0) return `${minutes} min ${pad(seconds)} s`;
  return `${seconds} s`;
}

/** The current time, updated every `intervalMs` while `active`. */
export function useNow(intervalMs = 1000, active = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return now;
}
