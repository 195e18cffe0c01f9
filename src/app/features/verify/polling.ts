/**
 * How often running jobs are asked about. The seed suggests 5 to 10 seconds: every 5 s while a
 * job moves, backing off by half each time an answer brings nothing new, never beyond 10 s, and
 * not at all once nothing runs. The rate limit (60 a minute for the whole team) is why it is not
 * faster.
 */
export const POLL_MIN_MS = 5_000;
export const POLL_MAX_MS = 10_000;
export const POLL_BACKOFF = 1.5;

/** The wait after `unchangedPolls` answers in a row that changed nothing. */
export function pollDelay(unchangedPolls: number): number {
  const steps = Math.max(0, Math.floor(unchangedPolls));
  return Math.min(POLL_MAX_MS, Math.round(POLL_MIN_MS * POLL_BACKOFF ** steps));
}

/** React Query's `refetchInterval`: a delay while something runs, `false` (stop) otherwise. */
export function pollInterval(running: boolean, unchangedPolls: number): number | false {
  return running ? pollDelay(unchangedPolls) : false;
}

/**
 * Counts the answers in a row that brought nothing new. React Query keeps an unchanged answer's
 * data object as it was (structural sharing), so "the same object after a new fetch" means
 * "nothing changed". Each fetch is counted once, however often React Query asks.
 */
export class ChangeTracker {
  private seenAt: number | null = null;
  private data: unknown;
  private unchanged = 0;

  observe(dataUpdatedAt: number, data: unknown): number {
    if (dataUpdatedAt === this.seenAt) return this.unchanged;
    if (this.seenAt !== null && data === this.data) this.unchanged += 1;
    else this.unchanged = 0;
    this.seenAt = dataUpdatedAt;
    this.data = data;
    return this.unchanged;
  }
}
