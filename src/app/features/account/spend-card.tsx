import { Link } from "wouter";
import { monthWords, thisMonth, useSpendingSummary } from "../../api/spending";
import { formatCredits, formatNumber } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { Card } from "../../ui/card";
import { readableError } from "../../ui/status";

/** "40 of 50 credits"; "40 credits (no cap)". */
export function spentText(spent: number, cap: number | null, none = "no cap of their own"): string {
  return cap === null
    ? `${formatCredits(spent)} (${none})`
    : `${formatNumber(spent)} of ${formatCredits(cap)}`;
}

/** A bar of what is spent against a cap (nothing without a cap): full and warning-coloured at the cap. */
function CapMeter({ spent, cap, label }: { spent: number; cap: number | null; label: string }) {
  if (cap === null) return null;
  const max = Math.max(cap, 1);
  return (
    <meter
      className="account-meter account-spend-meter"
      min={0}
      max={max}
      low={max * 0.75}
      high={max * 0.9}
      optimum={0}
      value={Math.min(spent, max)}
      aria-label={label}
      aria-valuetext={spentText(spent, cap)}
    />
  );
}

/**
 * This month's spend per person against the monthly caps (`GET /api/spending/summary`): what each
 * person was charged, plus what purchases under way and outcomes not known may cost, as the proxy
 * counts them against the caps.
 */
export function SpendCard() {
  const month = thisMonth();
  const summary = useSpendingSummary(month);
  return (
    <Card
      title={<>Spent in {monthWords(month)}</>}
      className="account-wide"
      aside={
        <Link href="/spending" className="account-small">
          Every purchase, on the Spending page
        </Link>
      }
    >
      {summary.isPending ? (
        <p className="muted">Loading this month's spending…</p>
      ) : summary.isError ? (
        <p className="account-error" role="alert">
          This month's spending could not be loaded: {readableError(summary.error)}
        </p>
      ) : (
        <>
          <div className="account-limit" data-testid="team-spend">
            <h3 className="account-limit-title">The team</h3>
            <CapMeter
              spent={summary.data.team.spent}
              cap={summary.data.team.cap}
              label="The team's spending this month"
            />
            <p>{spentText(summary.data.team.spent, summary.data.team.cap, "no team cap")}</p>
          </div>
          {summary.data.people.length === 0 ? (
            <p className="muted">Nobody has bought anything this month.</p>
          ) : (
            <table className="list-table account-spend-table">
              <caption className="visually-hidden">Spending per person in {monthWords(month)}</caption>
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Spent against the monthly cap</th>
                  <th scope="col">Needs approval above</th>
                </tr>
              </thead>
              <tbody>
                {summary.data.people.map((p) => (
                  <tr key={p.name} data-person={p.name}>
                    <th scope="row">{personLabel(p.name)}</th>
                    <td>
                      <CapMeter
                        spent={p.spent}
                        cap={p.cap}
                        label={`Spending of ${personLabel(p.name)} this month`}
                      />
                      <span className="account-spend-text">{spentText(p.spent, p.cap)}</span>
                      {p.unknown > 0 ? (
                        <span className="account-block account-warning">
                          {formatNumber(p.unknown)} {p.unknown === 1 ? "purchase" : "purchases"} with an
                          outcome not known — check the balance
                        </span>
                      ) : null}
                    </td>
                    <td>
                      {p.approvalThreshold === null ? (
                        <span className="muted">No approval needed</span>
                      ) : (
                        formatCredits(p.approvalThreshold)
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="muted account-small">
            Charged this month, plus what purchases under way and outcomes not known may cost. A purchase that
            would pass a cap is refused before anything is sent.
          </p>
        </>
      )}
    </Card>
  );
}
