import { OUTCOME_CODES } from "../../../contract/errors";
import { ApiError, isAbortError, toApiError } from "../../api/api-error";
import type { PendingPurchase } from "../../lib/spend-journal";

/**
 * Sends a journaled purchase: each call with its own key, in order. Repeats of a call that already
 * got through are answered by the proxy from its journal (free), so sending a whole purchase again
 * after a failure part-way is safe.
 */

export type SendCall<T> = (body: unknown, idempotencyKey: string) => Promise<T>;

export type SendOutcome<T> =
  | { ok: true; results: T[] }
  /**
   * `results`: the calls answered before the failure. `definite`: the answer will not change if
   * sent again (402, 403, 422...): the purchase is over. Otherwise (no answer, a timeout, a 5xx,
   * rate limited) it stays in the journal for "Try again".
   */
  | { ok: false; results: T[]; error: ApiError; definite: boolean };

/** The proxy's word that the service may have acted: the same key would only repeat this answer. */
export function isFinalForKey(error: ApiError): boolean {
  return error.code === OUTCOME_CODES.upstreamFailed || error.code === OUTCOME_CODES.answerCutOff;
}

/**
 * A refusal that sending the same thing again would only repeat: a 4xx other than "wait" (408,
 * 429) and "sign in first" (401: nothing reached the service; after signing in, the same key is
 * sent again), and a 5xx the proxy has kept as the answer for this key (see isFinalForKey).
 */
export function isDefiniteFailure(error: ApiError): boolean {
  if (isFinalForKey(error)) return true;
  if (error.transient) return false;
  if (error.status < 400 || error.status >= 500) return false;
  return error.status !== 401 && error.status !== 408 && error.status !== 429;
}

/** Purchases being sent right now, by id: a second sender (a remounted panel) joins the first. */
const inFlight = new Map<string, Promise<SendOutcome<unknown>>>();

export function sendPurchase<T>(purchase: PendingPurchase, send: SendCall<T>): Promise<SendOutcome<T>> {
  const running = inFlight.get(purchase.purchaseId);
  if (running) return running as Promise<SendOutcome<T>>;
  const job = (async (): Promise<SendOutcome<T>> => {
    const results: T[] = [];
    for (const call of purchase.calls) {
      try {
        results.push(await send(call.body, call.key));
      } catch (caught) {
        const error =
          caught instanceof ApiError
            ? caught
            : isAbortError(caught)
              ? new ApiError({
                  kind: "network",
                  status: 0,
                  message: "The request was interrupted before its answer arrived.",
                })
              : await toApiError(caught);
        return { ok: false, results, error, definite: isDefiniteFailure(error) };
      }
    }
    return { ok: true, results };
  })();
  inFlight.set(purchase.purchaseId, job as Promise<SendOutcome<unknown>>);
  void job.finally(() => inFlight.delete(purchase.purchaseId));
  return job;
}

/** True while this purchase is being sent from this page. */
export function isSending(purchaseId: string): boolean {
  return inFlight.has(purchaseId);
}
