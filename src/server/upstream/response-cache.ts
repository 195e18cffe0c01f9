import type { BufferedAnswer } from "../http/answer";

export type CacheOutcome = "hit" | "miss" | "join";

/**
 * Pure dataset reads (count, company count, insights, column values) keyed by operation and the
 * canonical request, for a short TTL; identical calls in flight share one upstream call
 * (single-flight). Only 200 answers are kept.
 */
export class ResponseCache {
  private readonly entries = new Map<string, { answer: BufferedAnswer; expires: number }>();
  private readonly inFlight = new Map<string, Promise<BufferedAnswer>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(
    key: string,
    load: () => Promise<BufferedAnswer>,
  ): Promise<{ answer: BufferedAnswer; how: CacheOutcome }> {
    const cached = this.entries.get(key);
    if (cached && cached.expires > this.now()) return { answer: cached.answer, how: "hit" };
    if (cached) this.entries.delete(key);

    const pending = this.inFlight.get(key);
    if (pending) return { answer: await pending, how: "join" };

    const promise = load().then((answer) => {
      if (answer.status === 200 && this.ttlMs > 0) this.store(key, answer);
      return answer;
    });
    this.inFlight.set(key, promise);
    try {
      return { answer: await promise, how: "miss" };
    } finally {
      this.inFlight.delete(key);
    }
  }

  get size() {
    return this.entries.size;
  }

  private store(key: string, answer: BufferedAnswer) {
    const now = this.now();
    this.entries.delete(key);
    this.entries.set(key, { answer, expires: now + this.ttlMs });
    // Oldest first in a Map, and with one TTL the oldest expire first: expired answers leave from the
    // front as new ones arrive, so the cache holds what is live, not up to its cap of dead answers
    // (seen in the soak: a steady stream of new filters filled it to the cap over minutes).
    for (const [oldKey, entry] of this.entries) {
      if (entry.expires > now) break;
      this.entries.delete(oldKey);
    }
    // When full of live answers, drop from the front too.
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
