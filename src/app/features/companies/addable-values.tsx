import type { ReactNode } from "react";
import { describeNode } from "../../../contract/describe";
import type { FilterNode } from "../../../contract/filter";
import { formatNumber } from "../../lib/format";

/** A value a person can add to the audience in one click, with how many people it holds. */
export interface AddableValue {
  key: string;
  label: string;
  /** People with it; null while unknown; absent when it is not counted. */
  people?: number | null;
  /** The condition it adds. */
  node: FilterNode;
  /** A line under the value (a company's domain, industry and size). */
  detail?: ReactNode;
}

export const peopleText = (people: number) => `${formatNumber(people)} ${people === 1 ? "person" : "people"}`;

/**
 * Values as rows: the value, its people, and Add, whose name says the condition it adds
 * ("Add condition: Company is “Jovovara”"). A value nobody in the audience has is dimmed, not hidden.
 */
export function AddableValues({
  items,
  onAdd,
  label,
  className,
}: {
  items: readonly AddableValue[];
  onAdd(node: FilterNode): void;
  /** The list's accessible name. */
  label: string;
  className?: string;
}) {
  return (
    <ul className={className ? `addable-values ${className}` : "addable-values"} aria-label={label}>
      {items.map((item) => (
        <li key={item.key} className="addable-value" data-empty={item.people === 0 || undefined}>
          {item.detail ? (
            <span className="addable-value-text">
              <span className="addable-value-label">{item.label}</span>
              <span className="addable-value-detail">{item.detail}</span>
            </span>
          ) : (
            <span className="addable-value-label">{item.label}</span>
          )}
          {item.people === undefined ? null : (
            <span className="addable-value-people">
              {item.people === null ? "…" : peopleText(item.people)}
            </span>
          )}
          <button
            type="button"
            className="button button-secondary addable-value-add"
            aria-label={`Add condition: ${describeNode(item.node)}`}
            onClick={() => onAdd(item.node)}
          >
            Add
          </button>
        </li>
      ))}
    </ul>
  );
}
