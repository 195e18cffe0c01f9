import { OUTCOME_CODES, SPEND_CODES } from "../../../contract/errors";
import type { Plan } from "../../../contract/inferred";
import type { Approval } from "../../../contract/spending";
import type { ApiError } from "../../api/api-error";
import { formatTime } from "../../lib/format";
import { isApprovalDenied, isCapReached, isWaiting, type PurchaseState } from "../../lib/spend";
import { ApprovalNotice } from "../../ui/approval-notice";
import { SpendNotice, type SpendWords } from "../../ui/spend-notice";
import { Spinner } from "../../ui/spinner";
import { readableError } from "../../ui/status";
import { insufficientText } from "./pricing";

/** A refusal in words: a 402 with both numbers, anything else as the API layer says it. */
export function refusalText(error: ApiError, plan: Plan | null | undefined): string {
  if (error.kind === "insufficient-credits" && error.required !== null && error.balance !== null)
    return `${insufficientText(error.required, error.balance, plan)} Nothing was charged.`;
  // The proxy's sentence may already say that nothing was sent or charged: not said twice.
  const saysNothing = /nothing (was )?(sent|charged|spent)/i.test(error.message);
  if (isCapReached(error))
    return saysNothing ? error.message : `${error.message} Nothing was sent and nothing was spent.`;
  if (isApprovalDenied(error)) return saysNothing ? error.message : `${error.message} Nothing was spent.`;
  if (error.code === SPEND_CODES.alreadyBought)
    return `${error.message} Nothing was sent or charged now; what it bought then is in the ledger.`;
  if (error.code === SPEND_CODES.keyReused)
    return "The server had already received a different request under this purchase's reference, so it did not carry this one out and nothing was charged for it. Check the balance on the Account page, then buy it again if you still need it.";
  return readableError(error);
}

/** The title of a purchase that is over without (all of) its answer. */
function failedTitle<T>(state: Extract<PurchaseState<T>, { phase: "failed" }>): string {
  if (state.error.code === OUTCOME_CODES.answerCutOff) return "Bought, but the answer was lost on the way";
  if (state.error.code === SPEND_CODES.keyReused) return "Not bought: this request was refused";
  if (state.error.code === SPEND_CODES.alreadyBought) return "Already bought: not sent again";
  if (isCapReached(state.error)) return "Not bought: it would pass a monthly spending cap";
  if (isApprovalDenied(state.error)) return "Not bought: an admin denied it";
  return state.results.length > 0 ? "Part of the purchase was refused" : "Nothing was bought";
}

/**
 * Where a purchase stands, in words, with what can be done: working on it (and why a reload is
 * safe), a purchase that waits for a click (the shared SpendNotice: not sent, no answer, or an
 * unknown outcome), or a refusal.
 */
export function PurchaseNotice<T>({
  state,
  plan,
  words,
  onRetry,
  onBuyAgain,
  onForget,
  onResume,
  onApprovalSeen,
}: {
  state: PurchaseState<T>;
  plan: Plan | null | undefined;
  words: SpendWords;
  onRetry: () => void;
  onBuyAgain: () => void;
  onForget: () => void;
  onResume: () => void;
  onApprovalSeen: (approval: Approval) => void;
}) {
  if (isWaiting(state))
    return (
      <SpendNotice
        className="alert checkout-alert"
        state={state}
        words={words}
        onRetry={onRetry}
        onBuyAgain={onBuyAgain}
        onForget={onForget}
      >
        {state.results.length > 0 ? (
          <p>The rows answered before this are kept below; only the rest is concerned.</p>
        ) : null}
      </SpendNotice>
    );
  switch (state.phase) {
    case "idle":
    case "done":
      return null;
    case "approval":
    case "denied":
      return (
        <ApprovalNotice
          state={state}
          what={words.what}
          onSeen={onApprovalSeen}
          onResume={onResume}
          onForget={onForget}
        />
      );
    case "sending":
      return (
        <p className="notice-info checkout-notice" role="status" aria-live="polite">
          <Spinner inherit />
          {state.joined
            ? `Still buying ${state.purchase.summary} (started at ${formatTime(state.purchase.startedAt)})… Its answer is awaited here; nothing is sent twice.`
            : `Buying ${state.purchase.summary}… Reloading or losing the connection now cannot charge you twice.`}
        </p>
      );
    case "failed":
      return (
        <div className="alert checkout-alert" role="alert">
          <h3 className="alert-title">{failedTitle(state)}</h3>
          <p>{refusalText(state.error, plan)}</p>
          {state.results.length > 0 ? (
            <p>The rows bought before the refusal are below; the rest was not sent.</p>
          ) : null}
        </div>
      );
  }
}
