import { useId } from "react";
import { formatNumber, formatTime } from "../../lib/format";
import { resetTime } from "./time";
import type { SampleBudget } from "./view";
import "./budget-meter.css";

/** `93,450 of 100,000 sample rows left today`. */
export function budgetText(budget: SampleBudget): string {
  return `${formatNumber(budget.remaining)} of ${formatNumber(budget.total)} sample rows left today`;
}

/** `resets at 01:00, your time` (the next midnight UTC, in the person's own time zone). */
export function resetText(budget: SampleBudget | null, now: number = Date.now()): string {
  const at = budget ? resetTime(budget.resetAt, budget.observedAt) : resetTime(null, now);
  return `resets at ${formatTime(at)}, your time`;
}

/**
 * The day's free sample budget, as the last View answer gave it (`X-FreePreview-Remaining`): a
 * meter with the numbers in words, and the reset time in local time.
 */
export function BudgetMeter({ budget }: { budget: SampleBudget | null }) {
  const labelId = useId();
  const textId = useId();
  if (!budget)
    return (
      <div className="budget-meter">
        <span className="budget-meter-label">Free sample budget</span>
        <p className="budget-meter-text">
          Samples are free, up to a daily number of rows; what is left shows after the first sample (
          {resetText(null)}).
        </p>
      </div>
    );
  const low = Math.round(budget.total * 0.1);
  return (
    <div className="budget-meter" data-state={budget.remaining === 0 ? "empty" : "ok"}>
      <span className="budget-meter-label" id={labelId}>
        Free sample budget
      </span>
      <meter
        className="budget-meter-bar"
        min={0}
        max={budget.total}
        low={low}
        high={Math.round(budget.total * 0.5)}
        optimum={budget.total}
        value={budget.remaining}
        aria-labelledby={labelId}
        aria-describedby={textId}
      />
      <p className="budget-meter-text" id={textId}>
        {budgetText(budget)} · {resetText(budget)}
      </p>
    </div>
  );
}
