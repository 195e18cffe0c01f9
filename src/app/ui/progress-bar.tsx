import { useId } from "react";
import { formatNumber } from "../lib/format";
import "./progress-bar.css";

export interface ProgressBarProps {
  value: number;
  max: number;
  /** What is progressing ("Writing the file"); visible, and the bar's accessible name. */
  label: string;
  /** The amount in words ("1,200 of 5,000 rows"); shown beside the label and read as the value. */
  valueText?: string;
  /** No amount is known yet (queued): the bar shows activity without a value. */
  indeterminate?: boolean;
}

/** A fraction in [0, 1]; 0 when `max` is not positive. */
export function progressFraction(value: number, max: number): number {
  if (!(max > 0) || !Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value / max));
}

/**
 * A labelled progress bar: the native `<progress>` (role progressbar, with its value and maximum
 * for assistive technology), its label and its amount in words or as a percentage. No inline
 * styles, so the page's strict Content-Security-Policy has nothing to refuse.
 */
export function ProgressBar({ value, max, label, valueText, indeterminate = false }: ProgressBarProps) {
  const labelId = useId();
  const fraction = progressFraction(value, max);
  const text = indeterminate
    ? (valueText ?? "Waiting to start")
    : (valueText ?? `${Math.floor(fraction * 100)}%`);
  const safeMax = max > 0 ? max : 1;
  return (
    <div className="progress">
      <div className="progress-head">
        <span className="progress-label" id={labelId}>
          {label}
        </span>
        <span className="progress-amount">{text}</span>
      </div>
      {indeterminate ? (
        <progress className="progress-bar" aria-labelledby={labelId} aria-valuetext={text} />
      ) : (
        <progress
          className="progress-bar"
          aria-labelledby={labelId}
          value={Math.min(Math.max(value, 0), safeMax)}
          max={safeMax}
          aria-valuetext={valueText ?? `${formatNumber(Math.floor(fraction * 100))}%`}
        />
      )}
    </div>
  );
}
