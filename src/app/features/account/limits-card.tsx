import { useId } from "react";
import { nextUtcMidnight } from "../../../contract/time";
import { useCredits } from "../../api/credits";
import { formatNumber, formatTime } from "../../lib/format";
import { Card } from "../../ui/card";
import { readableError } from "../../ui/status";
import { useLimits, type ViewBudget } from "./limits";
import { budgetTotal, rateLimitText, rateResetText, viewBudgetText, viewResetText } from "./limits-text";

function ViewBudgetPart({ budget }: { budget: ViewBudget | null }) {
  const labelId = useId();
  const textId = useId();
  if (!budget)
    return (
      <div className="account-limit" data-testid="view-budget">
        <h3 className="account-limit-title">Free sample rows</h3>
        <p>Not known yet today — it is shown after the first sample.</p>
        <p className="muted account-small">
          Every sample in the Builder reports what is left; asking on its own would spend rows. Up to{" "}
          {formatNumber(budgetTotal(0))} rows a day. {viewResetText(nextUtcMidnight())}
        </p>
      </div>
    );
  const total = budgetTotal(budget.remaining);
  return (
    <div
      className="account-limit"
      data-testid="view-budget"
      data-state={budget.remaining === 0 ? "empty" : "ok"}
    >
      <h3 className="account-limit-title" id={labelId}>
        Free sample rows
      </h3>
      <meter
        className="account-meter"
        min={0}
        max={total}
        low={Math.round(total * 0.1)}
        high={Math.round(total * 0.5)}
        optimum={total}
        value={budget.remaining}
        aria-labelledby={labelId}
        aria-describedby={textId}
      />
      <p id={textId}>{viewBudgetText(budget.remaining)}</p>
      <p className="muted account-small">
        As the latest sample said at {formatTime(new Date(budget.seenAt))}. {viewResetText(budget.resetAt)}
      </p>
    </div>
  );
}

function RatePart({ perMinute }: { perMinute: number | null }) {
  const credits = useCredits();
  const rate = credits.data?.rateLimit ?? null;
  return (
    <div className="account-limit" data-testid="rate-limit">
      <h3 className="account-limit-title">Requests to the data service</h3>
      {credits.isPending ? (
        <p className="muted">Loading…</p>
      ) : credits.error ? (
        <p className="account-error">{readableError(credits.error)}</p>
      ) : rate ? (
        <>
          <p>{rateLimitText(rate)}</p>
          <p className="muted account-small">{rateResetText(rate)}</p>
        </>
      ) : (
        <p className="muted">The data service did not report its rate limit with the balance.</p>
      )}
      <p className="muted account-small">
        This app queues its own calls to stay under the limit
        {perMinute ? ` (at most ${formatNumber(perMinute)} a minute)` : ""}, so a busy minute makes things
        wait instead of fail. Anything else using the same key shares the limit.
      </p>
    </div>
  );
}

/** Today's limits: the free sample rows left (as the proxy last saw them) and requests this minute. */
export function LimitsCard() {
  const limits = useLimits();
  const credits = useCredits();
  const refreshing = limits.isFetching || credits.isFetching;
  return (
    <Card
      title="Today's limits"
      aside={
        <button
          type="button"
          className="button button-secondary"
          disabled={refreshing}
          onClick={() => {
            void limits.refetch();
            void credits.refetch();
          }}
        >
          {refreshing ? "Checking…" : "Check again"}
        </button>
      }
    >
      <div aria-live="polite">
        {limits.isPending ? (
          <p className="muted">Loading…</p>
        ) : limits.error ? (
          <p className="account-error">{readableError(limits.error)}</p>
        ) : (
          <ViewBudgetPart budget={limits.data.viewBudget} />
        )}
      </div>
      <RatePart perMinute={limits.data?.proxyPerMinute ?? null} />
    </Card>
  );
}
