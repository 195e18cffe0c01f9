import { type ReactNode, useEffect, useId, useRef } from "react";
import type { Plan } from "../../../contract/inferred";
import { useAbilities } from "../../lib/roles";
import { Spinner } from "../../ui/spinner";
import { formatAmount } from "./pricing";

export interface ConfirmFact {
  label: string;
  value: ReactNode;
}

export interface ConfirmStepProps {
  title: string;
  /** What is bought: the audience in plain English (or the people chosen), the rows, the reveal. */
  facts: readonly ConfirmFact[];
  /** The cost is exact (an estimate) or a ceiling (enrich, preview: only what is found is charged). */
  exact: boolean;
  credits: number;
  plan: Plan | null;
  /** Null while the balance is not known. */
  balance: number | null;
  /** Why it cannot be bought (not enough credits...): shown, and Confirm is disabled. */
  problem?: string | null;
  confirmLabel: string;
  busy: boolean;
  /** Something still being checked (the review): Confirm waits for it. */
  pending?: boolean;
  onConfirm: () => void;
  onBack: () => void;
  children?: ReactNode;
}

/**
 * The one step before any spend: what is bought, repeated in words, what it costs and what the
 * balance will be. Nothing is sent until Confirm is pressed. Focus moves here when it opens, so a
 * keyboard or screen-reader user lands on it.
 */
export function ConfirmStep({
  title,
  facts,
  exact,
  credits,
  plan,
  balance,
  problem,
  confirmLabel,
  busy,
  pending = false,
  onConfirm,
  onBack,
  children,
}: ConfirmStepProps) {
  const titleId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  const after = balance === null ? null : balance - credits;
  // An analyst sees the price too, but Confirm stays off with the reason (the proxy would refuse).
  const refused = useAbilities().why("buy");
  const blocked = refused ?? problem;
  return (
    <section className="checkout-confirm" aria-labelledby={titleId}>
      <h3 className="checkout-confirm-title" id={titleId} ref={heading} tabIndex={-1}>
        {title}
      </h3>
      <dl className="facts checkout-facts">
        {facts.map((fact) => (
          <div key={fact.label} className="checkout-fact">
            <dt>{fact.label}</dt>
            <dd>{fact.value}</dd>
          </div>
        ))}
        <div className="checkout-fact">
          <dt>{exact ? "Cost" : "Cost at most"}</dt>
          <dd className="checkout-cost" data-testid="confirm-cost">
            {formatAmount(credits, plan)}
            {plan === "AYCE" ? (
              <span className="hint-text checkout-hint"> (included in your plan)</span>
            ) : null}
          </dd>
        </div>
        <div className="checkout-fact">
          <dt>Balance now</dt>
          <dd>{balance === null ? "Loading…" : formatAmount(balance, plan)}</dd>
        </div>
        {after !== null ? (
          <div className="checkout-fact">
            <dt>{exact ? "Balance after" : "Balance after, at least"}</dt>
            <dd>{after >= 0 ? formatAmount(after, plan) : "Not enough credits"}</dd>
          </div>
        ) : null}
      </dl>
      {exact ? null : (
        <p className="hint-text checkout-hint">
          Only what is found is charged: rows that do not exist, and emails or mobiles a row does not have,
          cost nothing.
        </p>
      )}
      {children}
      {blocked ? (
        <p className="checkout-problem" role="alert">
          {blocked}
        </p>
      ) : null}
      <div className="checkout-actions">
        <button
          type="button"
          className="button button-primary"
          onClick={onConfirm}
          disabled={busy || pending || Boolean(blocked) || balance === null}
          aria-busy={busy}
        >
          {busy ? <Spinner inherit /> : null}
          {confirmLabel}
        </button>
        <button type="button" className="button button-secondary" onClick={onBack} disabled={busy}>
          Back
        </button>
      </div>
    </section>
  );
}
