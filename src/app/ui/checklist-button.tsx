import { forwardRef } from "react";

export interface ChecklistMenuProps {
  /** What the button says before the number ticked: "Columns" shows "Columns (3) ▾". */
  name: string;
  /** The open menu's heading. */
  title: string;
  options: readonly { name: string; label: string }[];
  chosen: ReadonlySet<string>;
  /** No more may be ticked: the options not ticked are disabled. */
  full?: boolean;
  onToggle(name: string, on: boolean): void;
  resetLabel: string;
  onReset(): void;
  /** Classes: the prefix on the menu, and `-trigger`, `-label`, `-item`, `-check`, `-separator`. */
  classPrefix: string;
  align: "start" | "end";
}

/** The menu's button: Radix's trigger once the menu's code is here; before, a press is kept (lazy-part.tsx). */
export const ChecklistButton = forwardRef<
  HTMLButtonElement,
  { name: string; count: number; classPrefix: string; onClick?: () => void }
>(function ChecklistButton({ name, count, classPrefix, ...triggerProps }, ref) {
  return (
    <button
      ref={ref}
      type="button"
      className={`button button-secondary ${classPrefix}-trigger`}
      {...triggerProps}
    >
      {name} ({count})<span aria-hidden="true">▾</span>
    </button>
  );
});
