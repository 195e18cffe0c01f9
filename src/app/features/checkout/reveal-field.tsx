import { useId } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { type Plan, REVEALS } from "../../../contract/inferred";
import { REVEAL_LABELS, revealPriceHint } from "./pricing";

/**
 * Email, mobile, both or neither, each with what it costs per row on this plan. Radio buttons, so
 * the choice and its price are all visible at once.
 */
export function RevealField({
  registration,
  plan,
  legend = "Reveal",
}: {
  registration: UseFormRegisterReturn;
  plan: Plan | null | undefined;
  legend?: string;
}) {
  const id = useId();
  return (
    <fieldset className="checkout-fieldset">
      <legend className="field-label">{legend}</legend>
      <div className="checkout-choices">
        {REVEALS.map((reveal) => (
          <label key={reveal} className="checkout-choice" htmlFor={`${id}-${reveal}`}>
            <input id={`${id}-${reveal}`} type="radio" value={reveal} {...registration} />
            <span className="checkout-choice-text">
              <span className="checkout-choice-label">{REVEAL_LABELS[reveal]}</span>
              <span className="hint-text checkout-choice-hint">{revealPriceHint(reveal, plan)}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
