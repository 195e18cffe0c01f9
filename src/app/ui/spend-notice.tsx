import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { OUTCOME_CODES, SPEND_CODES } from "../../contract/errors";
import type { ApiError } from "../api/api-error";
import { formatDateTime } from "../lib/format";
import { NOT_RECORDED, type WaitingState } from "../lib/spend";
import { readableError } from "./status";

/** What a screen's spend is called, and what to look at when its outcome is not known. */
export interface SpendWords {
  /** The spend, mid-sentence: "this purchase", "the check of a@b.com", "the key rotation". */
  what: string;
  /** Where to look when the outcome is unknown: "the balance on the Account page and the export list". */
  check: string;
  /** The button that sends a kept spend again with the same key (default "Try again"). */
  retryLabel?: string;
  /** The button that makes a new purchase after an unknown outcome (default "Buy it again…"). */
  againLabel?: string;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Why a spend that provably never left was not sent. */
function notSentReason(error: ApiError | null, what: string): string {
  if (error === null)
    return `${capitalised(what)} is kept on this device, and it never reached the data service.`;
  if (error === NOT_RECORDED) return error.message;
  if (error.code === SPEND_CODES.journalUnavailable || error.status === 503)
    return "The server has paused spending for now (it could not record the purchase before passing it on), so it sent nothing on.";
  if (error.status === 401) return "Your session ended before it was passed on. Sign in again, then send it.";
  if (error.kind === "rate-limited") return `${error.message} It was not passed on.`;
  return `${readableError(error)} It was not passed on.`;
}

/** Why there is no answer, when it may have gone through. */
function noAnswerReason(error: ApiError | null, what: string): string {
  if (error === null)
    return `The page was closed or reloaded while ${what} was on its way, before its answer arrived.`;
  if (error.kind === "network")
    return "The server could not be reached, or the connection dropped, before any answer arrived.";
  if (error.kind === "timeout") return "The server did not answer in time.";
  return readableError(error);
}

function unknownReason(error: ApiError | null): string {
  if (error?.code === OUTCOME_CODES.upstreamFailed)
    return "The data service failed while handling it, so it may or may not have been carried out and charged.";
  return "It reached the server, but no answer came back, so it may or may not have been carried out and charged.";
}

/**
 * A spend that waits for a click (lib/spend.ts), in plain words, for every screen that spends:
 * - not sent: nothing charged; "Send it now" sends the same request (charged once at most);
 * - no answer: it may have gone through; "Try again" sends the same request, answered once;
 * - unknown: it may have gone through and cannot be sent again; what to check, and a new purchase
 *   only behind a confirmation that says it may charge again.
 * Nothing here is ever sent without a click. `children` adds a screen's own lines.
 */
export function SpendNotice<T>({
  state,
  words,
  onRetry,
  onBuyAgain,
  onForget,
  className = "alert",
  children,
}: {
  state: WaitingState<T>;
  words: SpendWords;
  onRetry(): void;
  onBuyAgain(): void;
  onForget(): void;
  className?: string;
  children?: ReactNode;
}) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const { purchase } = state;
  const started = (
    <p className="alert-meta">
      {capitalised(purchase.summary)}, started {formatDateTime(purchase.startedAt)}.
    </p>
  );

  if (state.phase === "not-sent")
    return (
      <div className={className} role="alert" data-spend="not-sent">
        <h3 className="alert-title">Not sent, nothing charged</h3>
        <p>{notSentReason(state.error, words.what)}</p>
        <p>
          It waits here until you send it. Send it now sends this same request, so it is charged once at most.
        </p>
        {children}
        {started}
        <div className="alert-actions">
          <button type="button" className="button button-primary" onClick={onRetry}>
            Send it now
          </button>
          <button type="button" className="button button-quiet" onClick={onForget}>
            Forget it
          </button>
        </div>
      </div>
    );

  if (state.phase === "interrupted")
    return (
      <div className={className} role="alert" data-spend="no-answer">
        <h3 className="alert-title">No answer: {words.what} may or may not have gone through</h3>
        <p>{noAnswerReason(state.error, words.what)}</p>
        <p>
          It is not sent again by itself. Try again sends the very same request: if the first one went
          through, you get its answer and are not charged again.
        </p>
        {children}
        {started}
        <div className="alert-actions">
          <button type="button" className="button button-primary" onClick={onRetry}>
            {words.retryLabel ?? "Try again"}
          </button>
          <button type="button" className="button button-quiet" onClick={onForget}>
            Forget it
          </button>
        </div>
        <p className="alert-meta">
          Forget it only if you are sure it did not go through: if it did, forgetting it here does not undo
          it.
        </p>
      </div>
    );

  return (
    <div className={className} role="alert" data-spend="unknown">
      <h3 className="alert-title">We don't know whether {words.what} went through</h3>
      <p>{unknownReason(state.error)}</p>
      <p>It will not be sent again. Before you buy it again, check {words.check}.</p>
      {children}
      {started}
      {asking ? (
        <div className="alert-confirm">
          <p id={`${id}-ask`}>
            <strong>Buy it again as a new purchase?</strong> If the first one went through, you are charged a
            second time.
          </p>
          <div className="alert-actions">
            <button
              type="button"
              className="button button-primary"
              ref={yes}
              aria-describedby={`${id}-ask`}
              onClick={() => {
                setAsking(false);
                onBuyAgain();
              }}
            >
              Yes, buy it again
            </button>
            <button type="button" className="button button-quiet" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="alert-actions">
          <button type="button" className="button button-secondary" onClick={() => setAsking(true)}>
            {words.againLabel ?? "Buy it again…"}
          </button>
          <button type="button" className="button button-quiet" onClick={onForget}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  );
}
