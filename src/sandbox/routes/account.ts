import { randomBytes } from "node:crypto";
import type { OperationInput, SomeHandlers } from "../http/pipeline";
import { hashKey, type StateStore } from "../state/store";

type AccountOperation = "creditsV1" | "creditsV2" | "balanceV2" | "rotateV1" | "rotateV2";

/** Credits and key rotation: the old key dies at once; plan, credits, budget, jobs carry over. */
export function accountHandlers(deps: { store: StateStore }): SomeHandlers<AccountOperation> {
  const { store } = deps;
  // Generic, so that one function serves each of the operations that share it.
  const credits = async <Id extends AccountOperation>({ c, caller }: OperationInput<Id>) =>
    c.json({ credits: caller.account.credits, plan: caller.account.plan });

  const rotate = async <Id extends AccountOperation>({ c, caller }: OperationInput<Id>) => {
    const key = `sbx_${randomBytes(18).toString("base64url")}`;
    const hash = hashKey(key);
    store.state.keys[hash] = { ...caller.key, hash, revoked: false };
    caller.key.revoked = true;
    // A rotation that is not saved must not leave the old key dead and the new one never handed out.
    await store.commit(() => {
      delete store.state.keys[hash];
      caller.key.revoked = false;
    });
    return c.json({ api_key: key });
  };

  return { creditsV1: credits, creditsV2: credits, balanceV2: credits, rotateV1: rotate, rotateV2: rotate };
}
