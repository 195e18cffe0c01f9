/** Counters for tests and `/healthz`: what the proxy saved and what it spent upstream. */
export class ProxyStats {
  readonly upstreamCalls: Record<string, number> = {};
  cacheHits = 0;
  cacheMisses = 0;
  singleFlightJoins = 0;
  idempotentReplays = 0;
  retries = 0;
  queueTimeouts = 0;

  constructor(private readonly queue: () => number) {}

  get queueLength(): number {
    return this.queue();
  }

  get totalUpstreamCalls(): number {
    return Object.values(this.upstreamCalls).reduce((a, b) => a + b, 0);
  }

  countCall(op: string) {
    this.upstreamCalls[op] = (this.upstreamCalls[op] ?? 0) + 1;
  }

  snapshot() {
    return {
      upstreamCalls: { ...this.upstreamCalls },
      totalUpstreamCalls: this.totalUpstreamCalls,
      cacheHits: this.cacheHits,
      cacheMisses: this.cacheMisses,
      singleFlightJoins: this.singleFlightJoins,
      idempotentReplays: this.idempotentReplays,
      retries: this.retries,
      queueTimeouts: this.queueTimeouts,
      queueLength: this.queueLength,
    };
  }
}
