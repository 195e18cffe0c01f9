import { useId } from "react";
import { Link } from "wouter";
import { formatNumber } from "../../lib/format";
import type { CheckedSelection } from "../../lib/selection-check";
import { SelectedPeople } from "./selected-people";

export interface AudienceSummaryProps {
  /** The audience in plain English. */
  description: string;
  /** How many people it keeps (null while counting or when it cannot be counted). */
  count: number | null;
  counting: boolean;
  countError: string | null;
  /** People ticked in the sample, checked against this audience. */
  selection: CheckedSelection;
  /** False while the audience has unfinished rules; `blockedBy` says which. */
  valid: boolean;
  blockedBy?: string | undefined;
}

/** What is about to be bought from: the audience in words, its size, the selection; a way back. */
export function AudienceSummary({
  description,
  count,
  counting,
  countError,
  selection,
  valid,
  blockedBy,
}: AudienceSummaryProps) {
  const selected = selection.ids.length;
  const titleId = useId();
  return (
    <section className="card checkout-summary" aria-labelledby={titleId}>
      <div className="checkout-summary-text">
        <h2 className="card-title" id={titleId}>
          Your audience
        </h2>
        <p className="checkout-description" data-testid="audience-description">
          {description}
        </p>
        <p className="hint-text checkout-hint">
          <Link href="/">Change it in the Builder</Link>
        </p>
      </div>
      <dl className="checkout-summary-numbers">
        <div>
          <dt>People</dt>
          <dd className="big-number" data-testid="audience-count">
            {!valid ? "—" : count !== null ? formatNumber(count) : counting ? "…" : "—"}
          </dd>
        </div>
        <div>
          <dt>Selected in the sample</dt>
          <dd className="big-number" data-testid="selected-count">
            {formatNumber(selected)}
          </dd>
        </div>
        {selection.state === "checked" && selection.left.length > 0 ? (
          <div>
            <dt>Still in this audience</dt>
            <dd className="big-number" data-testid="selected-kept">
              {formatNumber(selection.kept.length)}
            </dd>
          </div>
        ) : null}
      </dl>
      {!valid ? (
        <p className="notice-warning checkout-warning" role="alert">
          This audience has unfinished rules{blockedBy ? ` (${blockedBy.replace(/[.\s]+$/, "")})` : ""}, so it
          cannot be bought yet. <Link href="/">Finish it in the Builder</Link>. You can still enrich a pasted
          list of ids or emails.
        </p>
      ) : countError ? (
        <p className="checkout-problem" role="alert">
          The audience could not be counted: {countError}
        </p>
      ) : null}
      <SelectedPeople selection={selection} />
    </section>
  );
}
