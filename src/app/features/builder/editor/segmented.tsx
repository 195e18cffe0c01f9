import { type KeyboardEvent, type ReactNode, useRef } from "react";

export interface SegmentedOption<T extends string> {
  value: T;
  label: ReactNode;
  /** Accessible name when the visible label is terse. */
  ariaLabel?: string;
  title?: string;
}

export interface SegmentedProps<T extends string> {
  /** Accessible name of the radio group. */
  label: string;
  options: readonly SegmentedOption<T>[];
  /** The chosen value; null when none is (a custom distance instead of a level). */
  value: T | null;
  onChange(value: T): void;
  describedBy?: string | undefined;
  invalid?: boolean;
  className?: string;
  dataField?: string;
}

/**
 * A segmented control: a radio group of buttons with one tab stop, arrow keys to move and choose
 * (Home / End too), as the ARIA radio group pattern asks. Alt+Arrows are left alone so that the
 * editor's move commands still work from here.
 */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
  describedBy,
  invalid,
  className,
  dataField,
}: SegmentedProps<T>) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const current = options.findIndex((option) => option.value === value);
  const tabStop = current >= 0 ? current : 0;

  const choose = (index: number) => {
    const option = options[index];
    if (!option) return;
    onChange(option.value);
    // Focus follows the choice (a click has put it there already: focusing again costs a style pass).
    const button = buttons.current[index];
    if (button && document.activeElement !== button) button.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const last = options.length - 1;
    const from = current >= 0 ? current : 0;
    let next: number | null = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = from >= last ? 0 : from + 1;
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = from <= 0 ? last : from - 1;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = last;
    if (next === null) return;
    event.preventDefault();
    choose(next);
  };

  return (
    <div
      role="radiogroup"
      aria-label={label}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      className={`fe-segmented${className ? ` ${className}` : ""}`}
      onKeyDown={onKeyDown}
    >
      {options.map((option, index) => (
        // biome-ignore lint/a11y/useSemanticElements: a segmented control: buttons with radio semantics, not native radio inputs
        <button
          key={option.value}
          ref={(element) => {
            buttons.current[index] = element;
          }}
          type="button"
          role="radio"
          aria-checked={option.value === value}
          aria-label={option.ariaLabel}
          title={option.title}
          tabIndex={index === tabStop ? 0 : -1}
          className="fe-segment"
          data-field={dataField}
          onClick={() => choose(index)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
