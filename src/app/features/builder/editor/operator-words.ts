import type { Column } from "../../../../contract/columns";
import type { Operator } from "../../../../contract/inferred";
import { OPERATOR_LABELS } from "../../../lib/filter/validate";

/** Masked columns (email, mobile) only say whether the person has one. */
const MASKED_WORDS: Partial<Record<Operator, string>> = { isNotNull: "has", isNull: "has not" };

/** An operator in plain words ("is", "is one of", "is empty"; "has" / "has not" on masked columns). */
export function operatorWords(operator: Operator, column: Column | undefined): string {
  if (column?.maskedAs) return MASKED_WORDS[operator] ?? OPERATOR_LABELS[operator];
  return OPERATOR_LABELS[operator];
}
