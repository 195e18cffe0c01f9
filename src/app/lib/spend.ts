import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { OUTCOME_CODES } from "../../contract/errors";
import { ApiError, isAbortError, toApiError } from "../api/api-error";
import { CREDITS_QUERY_KEY } from "../api/credits";
import {
  beginPurchase,
  finishPurchase,
  isResumable,
  type PendingPurchase,
  type PurchaseKind,
  pendingPurchase,
} from "./spend-journal";
import { browserStorage } from "./store";

/**
 * The one way the app spends (checkout's purchases, a verification, a batch job, a key rotation):
 * the request and its Idempotency-Key are written to the journal (spend-journal.ts) BEFORE anything
 * is sent, and cleared only on a definite answer, so a double click, a "Try again" or a reload
 * sends the same key and the proxy answers a repeat with the first answer instead of spending again.
 */

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

/**
 * One kind of purchase on a screen: confirm, send with the journal's keys, and what happened.
 *
 * - `sending`: under way (`resumed` when it is the automatic resume of a purchase a reload or a
 *   closed tab interrupted).
 * - `interrupted`: no definite answer (the connection dropped, a timeout, a 5xx): the purchase is
 *   still in the journal, and Try again sends it again with the same keys.
 * - `stale`: an unfinished purchase too old to resume without asking.
 * - `failed`: a definite refusal (402, 403, 422...): the purchase is over; nothing more to send.
 * - `done`: answered.
 * `results` holds the answers received (for a purchase of several calls, those before a failure).
 */
export type PurchaseState<T> =
  | { phase: "idle" }
  | { phase: "sending"; purchase: PendingPurchase; resumed: boolean }
  | { phase: "interrupted"; purchase: PendingPurchase; error: ApiError; results: T[] }
  | { phase: "stale"; purchase: PendingPurchase }
  | { phase: "failed"; purchase: PendingPurchase; error: ApiError; results: T[] }
  | { phase: "done"; purchase: PendingPurchase; results: T[] };

export interface UsePurchaseOptions<T> {
  kind: PurchaseKind;
  send: SendCall<T>;
  /**
   * Called when the purchase is over with answers to keep (all of them, or those before a definite
   * failure), even if the screen was left meanwhile: persist what was paid for here.
   */
  onSettled?: (results: T[], purchase: PendingPurchase) => void;
  /**
   * What happens to an unfinished purchase of this kind found when the screen opens (a reload, a
   * closed tab): "ask" shows it (`stale`) and sends it again only on Try again, with the same keys;
   * "automatic" sends it again at once while it is young (RESUME_WINDOW_MS).
   */
  resume?: "ask" | "automatic";
  storage?: Storage | null;
}

export interface Purchase<T> {
  state: PurchaseState<T>;
  /** True while a send is under way: Confirm is disabled. */
  busy: boolean;
  /** Set when the journal could not be written to storage (a reload would lose it). */
  notPersisted: boolean;
  /** Records the purchase in the journal, then sends it. A second call while one is pending reuses its keys. */
  confirm: (bodies: readonly unknown[], summary: string) => void;
  /** Sends the unfinished purchase again, with the same keys. */
  retry: () => void;
  /** Drops an unfinished purchase from the journal (it may have gone through: the screen says so). */
  forget: () => void;
  /** Back to idle once a result has been seen. */
  reset: () => void;
}

export function usePurchase<T>({
  kind,
  send,
  onSettled,
  resume = "ask",
  storage: given,
}: UsePurchaseOptions<T>): Purchase<T> {
  const storage = given === undefined ? browserStorage() : given;
  const queryClient = useQueryClient();
  const [state, setState] = useState<PurchaseState<T>>({ phase: "idle" });
  const [notPersisted, setNotPersisted] = useState(false);
  // Synchronous guard: two clicks in one frame both see it, before React re-renders the button.
  const busy = useRef(false);
  const latest = useRef({ send, onSettled });
  latest.current = { send, onSettled };

  const run = useCallback(
    async (purchase: PendingPurchase, resumed: boolean) => {
      busy.current = true;
      setState({ phase: "sending", purchase, resumed });
      try {
        const outcome = await sendPurchase(purchase, (body, key) => latest.current.send(body, key));
        // Every answer may have spent: the header's balance is asked again.
        void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
        if (outcome.ok) {
          finishPurchase(storage, purchase.purchaseId);
          latest.current.onSettled?.(outcome.results, purchase);
          setState({ phase: "done", purchase, results: outcome.results });
        } else if (outcome.definite) {
          finishPurchase(storage, purchase.purchaseId);
          if (outcome.results.length > 0) latest.current.onSettled?.(outcome.results, purchase);
          setState({ phase: "failed", purchase, error: outcome.error, results: outcome.results });
        } else {
          setState({ phase: "interrupted", purchase, error: outcome.error, results: outcome.results });
        }
      } finally {
        busy.current = false;
      }
    },
    [queryClient, storage],
  );

  // An unfinished purchase of this kind (a reload mid-purchase, a closed tab): finish it now.
  useEffect(() => {
    if (busy.current) return;
    const pending = pendingPurchase(storage, kind);
    if (!pending) return;
    // Still on its way from this page (the screen was left and opened again): join it, send nothing.
    if (isSending(pending.purchaseId) || (resume === "automatic" && isResumable(pending)))
      void run(pending, true);
    else setState({ phase: "stale", purchase: pending });
  }, [kind, resume, storage, run]);

  const confirm = useCallback(
    (bodies: readonly unknown[], summary: string) => {
      if (busy.current) return;
      const begun = beginPurchase(storage, { kind, bodies, summary });
      if (begun.outcome === "new") setNotPersisted(!begun.persisted);
      if (begun.outcome === "conflict") {
        // Another purchase of this kind is unfinished (another tab's, say): finish that one first,
        // never two at once; where spends wait for a click, show it instead of sending it.
        if (resume === "automatic") void run(begun.purchase, true);
        else setState({ phase: "stale", purchase: begun.purchase });
        return;
      }
      void run(begun.purchase, false);
    },
    [kind, resume, storage, run],
  );

  const retry = useCallback(() => {
    if (busy.current) return;
    if (state.phase !== "interrupted" && state.phase !== "stale") return;
    void run(state.purchase, false);
  }, [state, run]);

  const forget = useCallback(() => {
    if (busy.current) return;
    if (state.phase !== "interrupted" && state.phase !== "stale") return;
    finishPurchase(storage, state.purchase.purchaseId);
    setState({ phase: "idle" });
  }, [state, storage]);

  const reset = useCallback(() => {
    if (busy.current) return;
    if (state.phase === "interrupted" || state.phase === "stale") return;
    setState({ phase: "idle" });
  }, [state]);

  return { state, busy: state.phase === "sending", notPersisted, confirm, retry, forget, reset };
}
