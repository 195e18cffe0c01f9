import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { responses } from "../../../contract/operations";
import { ApiError } from "../../api/api-error";
import { CREDITS_QUERY_KEY } from "../../api/credits";
import { preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import { SESSION_QUERY_KEY } from "../../api/session";
import { usePurchase } from "../../lib/spend";
import { readableError } from "../../ui/status";

/**
 * Key rotation: `POST /api/v2/account/api-keys/rotate`, or v1's `GET /api/v1/new-api-key` when v2
 * does not have it (404/405). The proxy stores the new key and answers only `{ rotated, last4 }`:
 * the key itself never reaches the browser. Both count as spends, so each carries an
 * Idempotency-Key, kept in the spend journal, so that trying again after a lost answer replays the
 * first rotation instead of rotating twice.
 */
export type Rotated = z.infer<typeof responses.rotated>;

export async function rotateKey(idempotencyKey: string): Promise<Rotated> {
  const answered = await preferV2("rotateKey", {
    v2: () => call("rotateV2", { idempotencyKey }),
    v1: () => call("rotateV1", { idempotencyKey }),
  });
  return answered.value;
}

/** Words for a failed rotation: what happened, and whether the old key still works. */
export function rotationError(error: unknown): string {
  if (error instanceof ApiError && error.roleRequired)
    return `The key was not rotated: ${error.message} The current key still works.`;
  if (error instanceof ApiError && error.kind === "forbidden")
    return "The key was not rotated: this API key may not rotate itself (a view-only key cannot). The current key still works. Rotate it in the data service's dashboard, or ask for a key with full access.";
  return `The key was not rotated: ${readableError(error)}`;
}

/** Key rotation as a journalled spend (lib/spend.ts); `onRotated` runs once the answer is in. */
export function useRotateKeySpend(onRotated: (answer: Rotated) => void) {
  const queryClient = useQueryClient();
  return usePurchase<Rotated>({
    kind: "rotateKey",
    send: (_body, key) => rotateKey(key),
    onSettled: ([answer]) => {
      // The session shows the key's last four characters; the balance is asked with the new key.
      void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
      if (answer) onRotated(answer);
    },
  });
}
