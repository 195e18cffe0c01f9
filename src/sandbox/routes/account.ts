import { randomBytes } from "node:crypto";
import type { Handler } from "../http/pipeline";
import { hashKey, type StateStore } from "../state/store";

/** Credits and key rotation: the old key dies at once; plan, credits, budget, jobs carry over. */
export function accountHandlers(deps: { store: StateStore }): Record<string, Handler> {
  const { store } = deps;
  const credits: Handler = async ({ c, caller }) =>
    c.json({ credits: caller.account.credits, plan: caller.account.plan });

  const rotate: Handler = async ({ c, caller }) => {
    const key = `sbx_${randomBytes(18).toString("base64url")}`;
    const hash = hashKey(key);
    store.state.keys[hash] = { ...caller.key, hash, revoked: false };
    caller.key.revoked = true;
    await store.save();
    return c.json({ api_key: key });
  };

  return { creditsV1: credits, creditsV2: credits, balanceV2: credits, rotateV1: rotate, rotateV2: rotate };
}
