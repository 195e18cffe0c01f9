import { OUTCOME_CODES } from "../../../contract/errors";
import type { Plan } from "../../../contract/inferred";
import type { ApiError } from "../../api/api-error";
import { formatDateTime, formatTime } from "../../lib/format";
import type { PurchaseState } from "../../lib/spend";
import { Spinner } from "../../ui/spinner";
import { readableError } from "../../ui/status";
import { insufficientText } from "./pricing";

/** A refusal in words: a 402 with both numbers, anything else as the API layer says it. */
export function refusalText(error: ApiError, plan: Plan | null | undefined): string {
  if (error.kind === "insufficient-credits" && error.required !== null && error.balance !== null)
    return `${insufficientText(error.required, error.balance, plan)} Nothing was charged.`;
  if (error.code === OUTCOME_CODES.upstreamFailed)
    return "The data service failed while handling this purchase, so it may or may not have been carried out. It is not sent again by itself: check the balance at the top of the page, and if it did not change, nothing was charged and you can buy it again.";
  return readableError(error);
}

/** The title of a purchase that is over without (all of) its answer. */
function failedTitle<T>(state: Extract<PurchaseState<T>, { phase: "failed" }>): string {
  if (state.error.code === OUTCOME_CODES.answerCutOff) return "Bought, but the answer was lost on the way";
  if (state.error.code === OUTCOME_CODES.upstreamFailed) return "The purchase may not have gone through";
  return state.results.length > 0 ? "Part of the purchase was refused" : "Nothing was bought";
}

/** Why no answer came, and that trying again is safe. */
function interruptionText(error: ApiError): string {
  if (error.kind === "network")
    return "The connection dropped before the answer arrived, so we cannot tell yet whether the purchase went through.";
  if (error.kind === "timeout")
    return "The server did not answer in time, so we cannot tell yet whether the purchase went through.";
  if (error.kind === "rate-limited") return `${error.message} Nothing was bought yet.`;
  if (error.kind === "unauthenticated") return "Your session ended. Sign in again, then try again.";
  return `${readableError(error)} We cannot tell yet whether the purchase went through.`;
}

/**
 * Where a purchase stands, in words, with what can be done: working on it (and why a reload is
 * safe), an interruption with Try again (the same request, charged once at most), an unfinished
 * purchase too old to resume by itself, or a refusal.
 */
export function PurchaseNotice<T>({
  state,
  plan,
  onRetry,
  onForget,
}: {
  state: PurchaseState<T>;
  plan: Plan | null | undefined;
  onRetry: () => void;
  onForget: () => void;
}) {
  switch (state.phase) {
    case "idle":
    case "done":
      return null;
    case "sending":
      return (
        <p className="notice-info checkout-notice" role="status" aria-live="polite">
          <Spinner inherit />
          {state.resumed
            ? `Finishing the purchase you started at ${formatTime(state.purchase.startedAt)}: ${state.purchase.summary}. It is sent again with the same key, so it is charged once at most.`
            : `Buying ${state.purchase.summary}… Reloading or losing the connection now cannot charge you twice.`}
        </p>
      );
    case "interrupted":
      return (
        <div className="alert checkout-alert" role="alert">
          <h3 className="alert-title">
            {state.error.kind === "rate-limited"
              ? "Not bought yet: the data service asked us to wait"
              : "The answer did not arrive"}
          </h3>
          <p>{interruptionText(state.error)}</p>
          <p>
            Your purchase ({state.purchase.summary}) is kept on this device. Try again sends the very same
            request: if the first one went through, you get its answer and are not charged again.
          </p>
          <div className="alert-actions">
            <button type="button" className="button button-primary" onClick={onRetry}>
              Try again
            </button>
            <button type="button" className="button button-quiet" onClick={onForget}>
              Forget this purchase
            </button>
          </div>
          <p className="alert-meta">
            Forget it only if you are sure it did not go through: if it did, it stays charged and its rows are
            not shown here.
          </p>
        </div>
      );
    case "stale":
      return (
        <div className="alert checkout-alert" role="alert">
          <h3 className="alert-title">
            An unfinished purchase from {formatDateTime(state.purchase.startedAt)}
          </h3>
          <p>
            {state.purchase.summary}. Its answer never arrived, and it is too old to be sure that sending it
            again is answered without a new charge. Check your balance and the export history first.
          </p>
          <div className="alert-actions">
            <button type="button" className="button button-secondary" onClick={onRetry}>
              Send it again
            </button>
            <button type="button" className="button button-quiet" onClick={onForget}>
              Forget it
            </button>
          </div>
        </div>
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
