import type { Outcome } from "./faults";

/** At most one probe this often, and only while asked (the app asks about once a second). */
export const PROBE_EVERY_MS = 1000;
/** A probe is given up on after this long: `/api/health` answers within it. */
export const PROBE_TIMEOUT_MS = 2000;

/**
 * Whether the upstream answers, for `GET /api/health`: the app asks while a read of it failed for
 * want of an answer, and reads again as soon as this says "up" (app/api/recovery.ts).
 *
 * Judged from every call's outcome, which costs nothing. Once a call failed, though, nothing else
 * calls the service (the app waits for this answer), so while it is down a probe (one free read) is
 * sent when asked, once per PROBE_EVERY_MS at most, whoever asks, and only if the rate shaper has a
 * slot free now (UpstreamClient.probe): never while it holds calls back after a 429.
 */
export class UpstreamHealth {
  private up = true;
  private probeStarted = Number.NEGATIVE_INFINITY;
  private probing: Promise<void> | null = null;

  constructor(private readonly probe: () => Promise<unknown>) {}

  /** An answer below 500 means the service is there; no answer, a cut one or a 5xx, that it is not. */
  seen(outcome: Outcome): void {
    // Waiting too long in our own queue says nothing of the service.
    if (outcome.kind === "queue-timeout") return;
    this.up = (outcome.kind === "answer" || outcome.kind === "stream") && outcome.status < 500;
  }

  async check(): Promise<boolean> {
    if (this.up) return true;
    const now = Date.now();
    // A new probe once a second even while one hangs: the service may be back for new connections.
    if (now - this.probeStarted >= PROBE_EVERY_MS) {
      this.probeStarted = now;
      const probe: Promise<void> = this.probe()
        .then(
          () => {},
          () => {},
        )
        .finally(() => {
          if (this.probing === probe) this.probing = null;
        });
      this.probing = probe;
    }
    // The probe's outcome reaches `seen` through the client.
    if (this.probing) await this.probing;
    return this.up;
  }
}
