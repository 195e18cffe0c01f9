import { Controller, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import type { Plan, Reveal } from "../../../contract/inferred";
import type { Purchase, PurchaseState } from "../../lib/spend";
import { NotKeptNote } from "../../ui/not-kept-note";
import type { SpendWords } from "../../ui/spend-notice";
import { ColumnsField } from "./columns-field";
import { PurchaseNotice } from "./purchase-notice";
import { RevealField } from "./reveal-field";

/**
 * Above every purchase's form: what the purchase is doing (sending, waiting for a click, refused), a way back from a refusal, and a warning when the browser would not keep the journal.
 */
export function PurchaseStatus<T>({
  purchase,
  plan,
  words,
  changeLabel,
  onChange,
}: {
  purchase: Purchase<T>;
  plan: Plan | null;
  /** What the purchase is called, and what to check when its outcome is unknown. */
  words: SpendWords;
  /** The button that leaves a refused purchase behind, e.g. "Change the purchase". */
  changeLabel: string;
  onChange(): void;
}) {
  const { state } = purchase;
  return (
    <>
      {state.phase !== "idle" && state.phase !== "done" ? (
        <PurchaseNotice
          state={state}
          plan={plan}
          words={words}
          onRetry={purchase.retry}
          onBuyAgain={purchase.buyAgain}
          onForget={purchase.forget}
          onResume={purchase.resume}
          onApprovalSeen={purchase.approvalSeen}
        />
      ) : null}
      {state.phase === "failed" || state.phase === "denied" ? (
        <div className="checkout-actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              purchase.reset();
              onChange();
            }}
          >
            {changeLabel}
          </button>
        </div>
      ) : null}
      {purchase.notPersisted ? (
        <NotKeptNote className="checkout-problem" what="the purchase" until="it is done" />
      ) : null}
    </>
  );
}

/** What a purchase of rows (Enrich, Preview) says of itself: its own words, and the balance to check. */
export function RowsPurchaseStatus<T>({
  purchase,
  plan,
  what,
  againLabel,
  changeLabel,
  onChange,
}: {
  purchase: Purchase<T>;
  plan: Plan | null;
  /** "the enrichment" */
  what: string;
  /** "Enrich them again…" */
  againLabel: string;
  changeLabel: string;
  onChange(): void;
}) {
  return (
    <PurchaseStatus
      purchase={purchase}
      plan={plan}
      words={{ what, check: "the balance on the Account page: these rows may have been charged", againLabel }}
      changeLabel={changeLabel}
      onChange={onChange}
    />
  );
}

/** A purchase being reviewed shows its confirmation unless it is under way or was refused. */
export function confirmable(phase: PurchaseState<unknown>["phase"], blocking: boolean): boolean {
  return !blocking && phase !== "failed" && phase !== "denied";
}

/** The fields every purchase form ends with. */
interface PurchaseFields extends FieldValues {
  reveal: Reveal;
  columns: string[];
}

/** The end of every purchase form: what to reveal, which columns, and the submit with its promise. */
export function PurchaseFormEnd<F extends PurchaseFields>({
  form,
  plan,
  submitLabel,
  submitDisabled = false,
  hint,
}: {
  form: UseFormReturn<F>;
  plan: Plan | null;
  submitLabel: string;
  submitDisabled?: boolean;
  /** What submitting costs (nothing yet, until the confirm step). */
  hint: string;
}) {
  return (
    <>
      <RevealField registration={form.register("reveal" as Path<F>)} plan={plan} />
      <Controller
        control={form.control}
        name={"columns" as Path<F>}
        render={({ field }) => <ColumnsField value={field.value} onChange={field.onChange} />}
      />
      <div className="checkout-actions">
        <button type="submit" className="button button-primary" disabled={submitDisabled}>
          {submitLabel}
        </button>
        <span className="hint-text checkout-hint">{hint}</span>
      </div>
    </>
  );
}
