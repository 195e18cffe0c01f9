import { responses } from "../../contract/operations";
import { operationById } from "../../contract/routes";
import type { ProxyConfig } from "../config";
import type { UpstreamClient } from "./upstream";

/**
 * The plan behind the key, asked of the upstream's credits operation and kept briefly: `/api/session`
 * and `/healthz` read it without spending the rate limit on every page load.
 */
export class PlanProbe {
  private last: { at: number; plan: string | null; up: boolean } | null = null;
  private pending: Promise<{ plan: string | null; up: boolean }> | null = null;

  constructor(
    private readonly client: UpstreamClient,
    private readonly config: Pick<ProxyConfig, "sessionCacheMs">,
  ) {}

  async get(): Promise<{ plan: string | null; up: boolean }> {
    if (this.last && Date.now() - this.last.at < this.config.sessionCacheMs) return this.last;
    this.pending ??= this.ask().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Forget the cached plan (after a key rotation, the key may belong elsewhere). */
  forget() {
    this.last = null;
  }

  /**
   * v2's credits first; v1's when v2 does not have it (404/405). A v1 410 means v1 is retired: the
   * plan is then simply not known (the balance screen asks v2's balance for the credits).
   */
  private async ask() {
    let result = { plan: null as string | null, up: false };
    for (const id of ["creditsV2", "creditsV1"] as const) {
      const op = operationById(id);
      const outcome = await this.client.send({ op, target: op.path, body: { kind: "none" }, stream: false });
      if (outcome.kind !== "answer") break;
      // Any HTTP answer below 500 means the service is there, even if it refused the key.
      result = { plan: null, up: outcome.status < 500 };
      if (outcome.status === 200) {
        try {
          const parsed = responses.credits.safeParse(JSON.parse(outcome.text));
          if (parsed.success) result.plan = parsed.data.plan;
        } catch {}
      }
      if (outcome.status !== 404 && outcome.status !== 405) break;
    }
    this.last = { at: Date.now(), ...result };
    return result;
  }
}
