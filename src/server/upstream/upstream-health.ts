import type { Outcome } from "./faults";

/** At most one probe this often, and only while asked (the app asks about once a second). */
export const PROBE_EVERY_MS = 1000;
/** A probe is given up on after this long, and `/api/health` answers within it. */
export const PROBE_TIMEOUT_MS = 2000;

/**
 * Whether the upstream answers, for `GET /api/health`: the app asks while a read of it failed for
 * want of an answer, and reads again as soon as this says "up" (app/api/recovery.ts).
 *
 * Judged from every call's outcome, which costs nothing; the newest call wins, so a hung call that
 * times out late does not undo a later answer. Once a call failed, though, nothing else calls the
 * service (the app waits for this answer), so while it is down a probe (one free read) is sent when
 * asked, once per PROBE_EVERY_MS at most whoever asks, and only if the rate shaper has a slot free
 * now (UpstreamClient.probe): never while it holds calls back after a 429.
 */
export class UpstreamHealth {
  private up = true;
  /** When the call whose outcome set `up` was sent (performance.now()). */
  private judgedFrom = Number.NEGATIVE_INFINITY;
  private probeStarted = Number.NEGATIVE_INFINITY;
  private probing = 0;
  private onProbeEnd: (() => void)[] = [];

  constructor(private readonly probe: () => Promise<unknown>) {}

  /** An answer below 500 means the service is there; no answer, a cut one or a 5xx, that it is not. */
  seen(outcome: Outcome, sentAt: number = performance.now()): void {
    // Waiting too long in our own queue says nothing of the service.
    if (outcome.kind === "queue-timeout" || sentAt < this.judgedFrom) return;
    this.judgedFrom = sentAt;
    this.up = (outcome.kind === "answer" || outcome.kind === "stream") && outcome.status < 500;
  }

  /**
   * Up, or down once a probe ended while this asked and none is left under way. Whoever asks
   * within a second of the last probe waits for the next one (a comeback is then seen within a
   * second, not a second after the asker's own pause). A probe that hangs does not hold the answer
   * back: the next one goes out a second after it, and the first to answer decides; after
   * PROBE_TIMEOUT_MS the answer is "down".
   */
  async check(): Promise<boolean> {
    const until = performance.now() + PROBE_TIMEOUT_MS;
    let probeEnded = false;
    for (;;) {
      if (this.up) return true;
      const now = performance.now();
      if (now - this.probeStarted >= PROBE_EVERY_MS) this.startProbe(now);
      if (now >= until || (probeEnded && this.probing === 0)) return false;
      probeEnded = await this.probeEndOr(Math.min(this.probeStarted + PROBE_EVERY_MS, until) - now);
    }
  }

  private startProbe(now: number) {
    this.probeStarted = now;
    this.probing++;
    // Its outcome reaches `seen` through the client.
    void this.probe()
      .catch(() => {})
      .finally(() => {
        this.probing--;
        for (const wake of this.onProbeEnd.splice(0)) wake();
      });
  }

  /** True when a probe ends, false after `ms`. */
  private probeEndOr(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, ms));
      this.onProbeEnd.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
