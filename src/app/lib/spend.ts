import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { z } from "zod";
import { OUTCOME_CODES, SPEND_CODES } from "../../contract/errors";
import { type Approval, approvalSchema, SPENDING_CODES } from "../../contract/spending";
import { ApiError, isAbortError, toApiError } from "../api/api-error";
import { CREDITS_QUERY_KEY } from "../api/credits";
import {
  beginPurchase,
  finishPurchase,
  hasBeenSent,
  markAnswered,
  markApproval,
  markSending,
  markUnknown,
  type PendingPurchase,
  type PurchaseKind,
  pendingPurchase,
  unansweredBodies,
  unmarkSending,
  wasSent,
} from "./spend-journal";
import { browserStorage } from "./store";

/**
 * The one way the app spends (checkout's purchases, a verification, a batch job, a key rotation):
 * the request and its Idempotency-Key are written to the journal (spend-journal.ts) BEFORE anything
 * is sent, and cleared only on a definite answer, so a double click or a "Try again" sends the same
 * key and the proxy answers a repeat with the first answer instead of spending again.
 *
 * Nothing is ever sent again by itself: after a failure or a reload, a spend waits for a click.
 */

export type SendCall<T> = (body: unknown, idempotencyKey: string) => Promise<T>;

/**
 * What a failed send means for the money, decided here once for every screen:
 * - `not-sent`: provably never carried out (the proxy refused before sending it on, or this page
 *   could not record it before sending): nothing charged; sending it again with the same key is safe.
 * - `no-answer`: no answer came (a dropped connection, a timeout, a 5xx that says nothing): it may
 *   have been carried out. The same key is safe to send again: the proxy answers a repeat once.
 * - `unknown`: the proxy says the outcome cannot be known, and the same key will never go through
 *   again: only a NEW purchase can, and it may charge a second time.
 * - `refused`: a definite answer (402, 403, 422, a key used for something else...): it is over.
 */
export type FailureMeaning = "not-sent" | "no-answer" | "unknown" | "refused";

export type SendOutcome<T> =
  | { ok: true; results: T[] }
  /** `results`: the calls answered before the failure. */
  | { ok: false; results: T[]; error: ApiError; meaning: FailureMeaning }
  /**
   * The proxy made it an approval request (202): nothing was bought yet; an admin decides. The same
   * keys, sent again once it ran, get its answer.
   */
  | { ok: false; results: T[]; error: ApiError; approval: Approval; meaning: "approval" };

const approvalAnswer = z.object({ approvalRequested: approvalSchema });

/**
 * The approval request in a 202 the proxy sent instead of the purchase's answer (the purchase is
 * above the person's approval threshold), or null when the error is anything else.
 */
export function approvalRequestedIn(error: ApiError): Approval | null {
  if (error.status !== 202) return null;
  const parsed = approvalAnswer.safeParse(error.body);
  if (parsed.success) return parsed.data.approvalRequested;
  return null;
}

/** 403 CAP_REACHED: a monthly cap refused it before anything was sent. */
export function isCapReached(error: ApiError): boolean {
  return error.status === 403 && error.code === SPENDING_CODES.capReached;
}

/** 403 APPROVAL_DENIED: an admin denied the request made of this purchase. */
export function isApprovalDenied(error: ApiError): boolean {
  return error.status === 403 && error.code === SPENDING_CODES.approvalDenied;
}

/** The proxy's word that the service may have acted, and the same key would only repeat that. */
export function isOutcomeUnknown(error: ApiError): boolean {
  return error.code === SPEND_CODES.outcomeUnknown || error.code === OUTCOME_CODES.upstreamFailed;
}

/**
 * The proxy's word that it sent nothing on: it could not record the spend first (503 with its own
 * sentence), the session ended (401: nothing reached the service), or a rate limit refused it before
 * any work (429).
 */
export function isNotSent(error: ApiError): boolean {
  if (error.code === SPEND_CODES.journalUnavailable) return true;
  if (error.status === 503 && error.kind === "upstream" && hasOwnSentence(error)) return true;
  return error.status === 401 || error.status === 429;
}

/** The answer carries the proxy's own `{ detail }` (not a gateway's page): the proxy spoke. */
function hasOwnSentence(error: ApiError): boolean {
  const body = error.body;
  return (
    body !== null && typeof body === "object" && typeof (body as { detail?: unknown }).detail === "string"
  );
}

export function failureMeaning(error: ApiError): FailureMeaning {
  if (isOutcomeUnknown(error)) return "unknown";
  if (isNotSent(error)) return "not-sent";
  // Still under way in another proxy instance: the same key later gets its answer.
  if (error.code === SPEND_CODES.inProgress) return "no-answer";
  // The answer was lost after the service acted: over, and sending it again only repeats that.
  if (error.code === OUTCOME_CODES.answerCutOff) return "refused";
  if (error.transient || error.status === 408) return "no-answer";
  if (error.status >= 400 && error.status < 500) return "refused";
  // A 2xx the app could not read: it was answered (and maybe charged); the same key replays it.
  return "no-answer";
}

/** This page could not record the send first, so it did not send (see markSending). */
export const NOT_RECORDED = new ApiError({
  kind: "other",
  status: 0,
  message: "This browser could not note the purchase on this device before sending it, so it was not sent.",
});

/** Purchases being sent right now, by id: a second sender (a remounted panel) joins the first. */
const inFlight = new Map<string, Promise<SendOutcome<unknown>>>();

/**
 * Sends a journaled purchase: each call with its own key, in order, each marked as sent in the
 * journal just before it leaves. Repeats of a call that already got through are answered by the
 * proxy from its journal (free), so sending a whole purchase again after a failure part-way is safe.
 */
export function sendPurchase<T>(
  purchase: PendingPurchase,
  send: SendCall<T>,
  storage: Storage | null = null,
): Promise<SendOutcome<T>> {
  const running = inFlight.get(purchase.purchaseId);
  if (running) return running as Promise<SendOutcome<T>>;
  const job = (async (): Promise<SendOutcome<T>> => {
    const results: T[] = [];
    for (const [index, call] of purchase.calls.entries()) {
      // Sent before (an attempt whose answer never came): a refusal now says nothing about that one.
      const sentBefore = call.sentAt !== undefined || wasSent(storage, purchase.purchaseId, index);
      if (!markSending(storage, purchase.purchaseId, index))
        return { ok: false, results, error: NOT_RECORDED, meaning: "not-sent" };
      try {
        results.push(await send(call.body, call.key));
        markAnswered(storage, purchase.purchaseId, index);
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
        const approval = approvalRequestedIn(error);
        if (approval) return { ok: false, results, error, approval, meaning: "approval" };
        let meaning = failureMeaning(error);
        if (meaning === "not-sent") {
          if (sentBefore) meaning = "no-answer";
          else unmarkSending(storage, purchase.purchaseId, index);
        }
        return { ok: false, results, error, meaning };
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
 * - `sending`: under way (`joined` when the screen was opened again while this page was still
 *   sending it: nothing is sent twice, the same send is followed).
 * - `not-sent`: provably never carried out; nothing charged. Kept: "Send it now" sends it with the
 *   same keys. `error` is the proxy's refusal, or null when a reload came before it was sent.
 * - `interrupted`: no answer (`error` null when found after a reload): it may have been carried out.
 *   Kept: Try again sends it with the same keys, which the proxy answers once.
 * - `unknown`: the proxy says its outcome cannot be known (null `error` after a reload). Never sent
 *   again; `buyAgain` makes it a NEW purchase (new keys), which may charge a second time.
 * - `failed`: a definite refusal (402, 403, 422...): the purchase is over; nothing more to send.
 * - `done`: answered.
 * - `approval`: the proxy made it an approval request (above the person's threshold): nothing
 *   bought yet. Kept (a reload keeps waiting); once an admin approved and it ran, the same keys are
 *   sent again to get its answer (`resume`), which the proxy replays without charging again.
 *   `approval` is null after a reload until the request is read again.
 * - `denied`: an admin denied that request: over, nothing spent.
 * `results` holds the answers received (for a purchase of several calls, those before a failure).
 */
export type PurchaseState<T> =
  | { phase: "idle" }
  | { phase: "sending"; purchase: PendingPurchase; joined: boolean }
  | { phase: "not-sent"; purchase: PendingPurchase; error: ApiError | null; results: T[] }
  | { phase: "interrupted"; purchase: PendingPurchase; error: ApiError | null; results: T[] }
  | { phase: "unknown"; purchase: PendingPurchase; error: ApiError | null; results: T[] }
  | { phase: "failed"; purchase: PendingPurchase; error: ApiError; results: T[] }
  | { phase: "done"; purchase: PendingPurchase; results: T[] }
  | { phase: "approval"; purchase: PendingPurchase; approval: Approval | null; results: T[] }
  | { phase: "denied"; purchase: PendingPurchase; approval: Approval; results: T[] };

/** The phases in which a spend is kept and waits for a click. */
export type WaitingState<T> = Extract<PurchaseState<T>, { phase: "not-sent" | "interrupted" | "unknown" }>;

export type ApprovalState<T> = Extract<PurchaseState<T>, { phase: "approval" }>;

/** True while an admin's decision is awaited (or the approved purchase's answer is being fetched). */
export function isAwaitingApproval<T>(state: PurchaseState<T>): state is ApprovalState<T> {
  return state.phase === "approval";
}

export function isWaiting<T>(state: PurchaseState<T>): state is WaitingState<T> {
  return state.phase === "not-sent" || state.phase === "interrupted" || state.phase === "unknown";
}

/** How an unfinished purchase found in the journal (a reload, another tab) is shown: never sent. */
function waitingStateOf<T>(purchase: PendingPurchase): WaitingState<T> | ApprovalState<T> {
  if (purchase.approvalId && !purchase.unknownAt)
    return { phase: "approval", purchase, approval: null, results: [] };
  if (purchase.unknownAt) return { phase: "unknown", purchase, error: null, results: [] };
  if (!hasBeenSent(purchase)) return { phase: "not-sent", purchase, error: null, results: [] };
  return { phase: "interrupted", purchase, error: null, results: [] };
}

export interface UsePurchaseOptions<T> {
  kind: PurchaseKind;
  send: SendCall<T>;
  /**
   * Called when the purchase is over with answers to keep (all of them, or those before a definite
   * failure or an unknown outcome), even if the screen was left meanwhile: persist what was paid for.
   */
  onSettled?: (results: T[], purchase: PendingPurchase) => void;
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
  /** Sends a kept purchase (`not-sent`, `interrupted`) again, with the same keys. */
  retry: () => void;
  /**
   * After an unknown outcome, and only once the person confirmed that it may charge again: a NEW
   * purchase (new keys) of what got no answer.
   */
  buyAgain: () => void;
  /** Drops a kept purchase from the journal (the screen says what that means). */
  forget: () => void;
  /** Back to idle once a result has been seen. */
  reset: () => void;
  /**
   * An approval request ran (an admin approved it): sends the same keys again to get the purchase's
   * answer, which the proxy replays (charged once, when it ran). Only in the `approval` phase.
   */
  resume: () => void;
  /** What the approval request now says (read again while waiting); `denied` ends the purchase. */
  approvalSeen: (approval: Approval) => void;
}

export function usePurchase<T>({
  kind,
  send,
  onSettled,
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
    async (purchase: PendingPurchase, joined: boolean) => {
      busy.current = true;
      setState({ phase: "sending", purchase, joined });
      try {
        const outcome = await sendPurchase(purchase, (body, key) => latest.current.send(body, key), storage);
        // Every answer may have spent: the header's balance is asked again.
        void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
        if (outcome.ok) {
          finishPurchase(storage, purchase.purchaseId);
          latest.current.onSettled?.(outcome.results, purchase);
          setState({ phase: "done", purchase, results: outcome.results });
          return;
        }
        if (outcome.meaning === "approval") {
          const marked = markApproval(storage, purchase.purchaseId, outcome.approval.id) ?? purchase;
          setState({
            phase: "approval",
            purchase: marked,
            approval: outcome.approval,
            results: outcome.results,
          });
          return;
        }
        const { error, results, meaning } = outcome;
        if (meaning === "refused") {
          finishPurchase(storage, purchase.purchaseId);
          if (results.length > 0) latest.current.onSettled?.(results, purchase);
          setState({ phase: "failed", purchase, error, results });
        } else if (meaning === "unknown") {
          // Kept, marked: a reload still says so, and these keys are never sent again.
          const marked = markUnknown(storage, purchase.purchaseId) ?? purchase;
          if (results.length > 0) latest.current.onSettled?.(results, purchase);
          setState({ phase: "unknown", purchase: marked, error, results });
        } else {
          setState({ phase: meaning === "not-sent" ? "not-sent" : "interrupted", purchase, error, results });
        }
      } finally {
        busy.current = false;
      }
    },
    [queryClient, storage],
  );

  // An unfinished purchase of this kind (a reload mid-purchase, a closed tab): shown, never sent.
  useEffect(() => {
    if (busy.current) return;
    const pending = pendingPurchase(storage, kind);
    if (!pending) return;
    // Still on its way from this page (the screen was left and opened again): join it, send nothing.
    if (isSending(pending.purchaseId)) void run(pending, true);
    else setState(waitingStateOf<T>(pending));
  }, [kind, storage, run]);

  const confirm = useCallback(
    (bodies: readonly unknown[], summary: string) => {
      if (busy.current) return;
      const begun = beginPurchase(storage, { kind, bodies, summary });
      if (begun.outcome === "new") setNotPersisted(!begun.persisted);
      if (begun.outcome === "conflict" || begun.purchase.unknownAt || begun.purchase.approvalId) {
        // Another purchase of this kind is unfinished (another tab's, say), or this very one has an
        // unknown outcome or waits for an admin: show it instead of sending anything.
        setState(waitingStateOf<T>(begun.purchase));
        return;
      }
      void run(begun.purchase, false);
    },
    [kind, storage, run],
  );

  const retry = useCallback(() => {
    if (busy.current) return;
    if (state.phase !== "interrupted" && state.phase !== "not-sent") return;
    void run(state.purchase, false);
  }, [state, run]);

  const buyAgain = useCallback(() => {
    if (busy.current) return;
    if (state.phase !== "unknown") return;
    const bodies = unansweredBodies(state.purchase);
    finishPurchase(storage, state.purchase.purchaseId);
    if (bodies.length === 0) {
      setState({ phase: "idle" });
      return;
    }
    const begun = beginPurchase(storage, { kind, bodies, summary: state.purchase.summary });
    if (begun.outcome === "new") setNotPersisted(!begun.persisted);
    if (begun.outcome === "conflict") {
      setState(waitingStateOf<T>(begun.purchase));
      return;
    }
    void run(begun.purchase, false);
  }, [state, storage, kind, run]);

  const forget = useCallback(() => {
    if (busy.current) return;
    if (!isWaiting(state) && state.phase !== "approval") return;
    finishPurchase(storage, state.purchase.purchaseId);
    setState({ phase: "idle" });
  }, [state, storage]);

  const reset = useCallback(() => {
    if (busy.current) return;
    if (isWaiting(state) || state.phase === "approval") return;
    setState({ phase: "idle" });
  }, [state]);

  const resume = useCallback(() => {
    if (busy.current) return;
    if (state.phase !== "approval") return;
    void run(state.purchase, false);
  }, [state, run]);

  const approvalSeen = useCallback(
    (approval: Approval) => {
      if (busy.current) return;
      if (state.phase !== "approval" || state.purchase.approvalId !== approval.id) return;
      if (approval.state === "denied") {
        // Denied: the same keys are refused from now on; nothing was spent.
        finishPurchase(storage, state.purchase.purchaseId);
        setState({ phase: "denied", purchase: state.purchase, approval, results: state.results });
        return;
      }
      setState({ ...state, approval });
    },
    [state, storage],
  );

  return {
    state,
    busy: state.phase === "sending",
    notPersisted,
    confirm,
    retry,
    buyAgain,
    forget,
    reset,
    resume,
    approvalSeen,
  };
}
