import { formatNumber, formatTime } from "../../lib/format";
import { formatCountdown, useNow } from "./time";
import "./cap-notice.css";

/**
 * FREE_PREVIEW_CAP_REACHED: today's sample budget is used up. Says when it comes back, with a live
 * countdown to the reset (midnight UTC) and the time in the person's own zone; counting and
 * building still work meanwhile. Once the reset has passed it offers a new sample.
 */
export function CapNotice({
  resetAt,
  dailyRows,
  onSample,
}: {
  resetAt: Date;
  /** The budget's size, when known. */
  dailyRows?: number | undefined;
  /** Takes a sample once the budget is back. */
  onSample?: (() => void) | undefined;
}) {
  const left = resetAt.getTime() - useNow(1000);
  if (left <= 0)
    return (
      <div className="notice-warning cap-notice" data-state="reset">
        <h3 className="cap-notice-title">Today's free sample budget is back</h3>
        <p>You can take a new sample of this audience.</p>
        {onSample ? (
          <div>
            <button type="button" className="button button-primary" onClick={onSample}>
              Take a sample
            </button>
          </div>
        ) : null}
      </div>
    );
  return (
    <div className="notice-warning cap-notice" role="status">
      <h3 className="cap-notice-title">Today's free sample budget is used up</h3>
      <p>
        Samples cost no credits, but each key may look at
        {dailyRows ? ` ${formatNumber(dailyRows)}` : " a limited number of"} sample rows a day. It resets at
        midnight UTC: {formatTime(resetAt)}, your time.
      </p>
      <p className="cap-notice-countdown">
        Back in{" "}
        <span role="timer" aria-live="off" aria-atomic="true">
          {formatCountdown(left)}
        </span>
      </p>
      <p className="muted">The count still updates as you edit, and nothing else is affected.</p>
    </div>
  );
}
