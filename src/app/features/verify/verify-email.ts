import type { z } from "zod";
import type { responses } from "../../../contract/operations";
import { type Answered, preferV2 } from "../../api/generations";
import { call } from "../../api/operations";
import { usePurchase } from "../../lib/spend";

/**
 * Verify one address in real time: `POST /api/v2/email/verify?metadata=true` (status plus the
 * facts behind it), or the documented `POST /api/v1/process-email` where v2 is absent. A definite
 * answer (Valid/Invalid, DELIVERABLE/UNDELIVERABLE) costs a credit, so each call carries an
 * Idempotency-Key: a retry after a dropped answer is charged once.
 */
export type V2Verification = z.infer<typeof responses.verifyV2> & Record<string, unknown>;
export type V1Verification = z.infer<typeof responses.verifyV1>;

export type Verification =
  | { generation: "v2"; result: V2Verification }
  | { generation: "v1"; result: V1Verification };

export async function verifyEmail(email: string, idempotencyKey: string): Promise<Verification> {
  const answered: Answered<Verification> = await preferV2("verify", {
    v2: async (): Promise<Verification> => ({
      generation: "v2",
      result: await call("verifyV2", { body: { email }, query: { metadata: "true" }, idempotencyKey }),
    }),
    v1: async (): Promise<Verification> => ({
      generation: "v1",
      result: await call("verifyV1", { body: { email }, idempotencyKey }),
    }),
  });
  return answered.value;
}

/** One address's check as a journalled spend (lib/spend.ts). */
export function useVerifyEmailSpend() {
  // usePurchase asks for the balance again after every answer (a 402 says something about it too).
  return usePurchase<Verification>({
    kind: "verify",
    send: (body, key) => verifyEmail((body as { email: string }).email, key),
  });
}
