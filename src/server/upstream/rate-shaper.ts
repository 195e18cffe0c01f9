/**
 * Keeps the whole team under the upstream's per-key rate limit by queueing calls instead of
 * letting the upstream refuse them. A rolling window like the service's: a slot is taken when a
 * call leaves and counted from the moment its answer arrives (later than the upstream counted it,
 * so we err on the safe side). What a person waits on goes before background work. The limit is
 * learned from the upstream's `X-RateLimit-*` headers, which also reveal other users of the key.
 */
export type Priority = "interactive" | "background";

export class QueueTimeout extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("rate-limit queue timeout");
  }
}

export interface Permit {
  /** Gives the slot back, learning from the answer's headers and status when there was one. */
  release(answer?: { headers: Headers; status: number } | null): void;
}

interface Waiter {
  resolve: (permit: Permit) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class RateShaper {
  private limit: number;
  private inFlight = 0;
  /** When answers arrived, oldest first, within the window. */
  private recent: number[] = [];
  private blockedUntil = 0;
  private readonly queues: Record<Priority, Waiter[]> = { interactive: [], background: [] };
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: {
      perWindow: number;
      windowMs: number;
      queueTimeoutMs: number;
      now?: () => number;
    },
  ) {
    this.limit = options.perWindow;
  }

  get queueLength(): number {
    return this.queues.interactive.length + this.queues.background.length;
  }

  get currentLimit(): number {
    return this.limit;
  }

  acquire(priority: Priority): Promise<Permit> {
    return new Promise<Permit>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const queue = this.queues[priority];
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(new QueueTimeout(Math.max(1, Math.ceil(this.waitMs() / 1000))));
        }, this.options.queueTimeoutMs),
      };
      this.queues[priority].push(waiter);
      this.pump();
    });
  }

  /**
   * A slot only if one is free now and nobody is waiting, else null: for a call that must never
   * wait, go before a person's call or add to a rate limit's back-off (the health probe).
   */
  tryAcquire(): Permit | null {
    if (this.queueLength > 0 || this.waitMs() > 0) return null;
    return this.grant();
  }

  /** Learns from an answer: the limit, what is left of it (others may share the key), and a 429. */
  learn(headers: Headers, status: number) {
    const now = this.now();
    // The upstream's word wins, but never above what we were told to use (others may share the key).
    const limit = Number(headers.get("x-ratelimit-limit"));
    if (Number.isInteger(limit) && limit > 0) this.limit = Math.min(limit, this.options.perWindow);
    const remaining = Number(headers.get("x-ratelimit-remaining") ?? Number.NaN);
    const reset = Number(headers.get("x-ratelimit-reset") ?? Number.NaN);
    if (Number.isInteger(remaining) && remaining >= 0) {
      this.prune(now);
      const ours = this.limit - this.inFlight - this.recent.length;
      // The upstream has counted calls we did not make: hold their slots for a window.
      for (let i = 0; i < ours - remaining; i++) this.recent.push(now);
      if (remaining === 0 && Number.isFinite(reset))
        this.blockedUntil = Math.max(this.blockedUntil, reset * 1000 + 250);
    }
    if (status === 429) {
      const retryAfter = Number(headers.get("retry-after"));
      const until = Number.isFinite(retryAfter) && retryAfter > 0 ? now + retryAfter * 1000 : now + 1000;
      this.blockedUntil = Math.max(this.blockedUntil, until);
    }
    this.pump();
  }

  close() {
    if (this.timer) clearTimeout(this.timer);
    for (const queue of Object.values(this.queues))
      for (const waiter of queue.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new QueueTimeout(1));
      }
  }

  private now() {
    return this.options.now?.() ?? Date.now();
  }

  private prune(now: number) {
    const start = now - this.options.windowMs;
    while (this.recent.length > 0 && this.recent[0]! <= start) this.recent.shift();
  }

  /** How long until a slot is free (0: now; the window length if every slot is in flight). */
  private waitMs(): number {
    const now = this.now();
    this.prune(now);
    let wait = Math.max(0, this.blockedUntil - now);
    if (this.inFlight + this.recent.length >= this.limit) {
      const oldest = this.recent[0];
      wait = Math.max(
        wait,
        oldest === undefined ? this.options.windowMs : oldest + this.options.windowMs - now,
      );
    }
    return wait;
  }

  private pump() {
    while (this.queueLength > 0) {
      const wait = this.waitMs();
      if (wait > 0) {
        // All slots in flight: a release will pump; otherwise wake when the oldest slot frees.
        if (this.timer) clearTimeout(this.timer);
        if (this.recent.length > 0 || this.blockedUntil > this.now())
          this.timer = setTimeout(() => {
            this.timer = null;
            this.pump();
          }, wait + 5);
        return;
      }
      const waiter = this.queues.interactive.shift() ?? this.queues.background.shift()!;
      clearTimeout(waiter.timer);
      waiter.resolve(this.grant());
    }
  }

  private grant(): Permit {
    this.inFlight++;
    let released = false;
    return {
      release: (answer) => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.recent.push(this.now());
        if (answer) this.learn(answer.headers, answer.status);
        else this.pump();
      },
    };
  }
}
