import { type ReactNode, useId } from "react";

/** What a field's control needs to be read with its label, hint and error. */
export interface FieldControl {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

export interface FieldProps {
  label: ReactNode;
  /** A line that explains the field, read with it by screen readers. */
  hint?: ReactNode;
  /** What is wrong with the value, in plain words (announced); nothing when it is fine. */
  error?: string | null | undefined;
  /** The error takes the hint's place instead of following it (where the two would say the same). */
  errorReplacesHint?: boolean;
  /** Added to `field` (layout of this one field). */
  className?: string;
  /** The control (input, select, textarea), given its id and ARIA wiring. */
  children(control: FieldControl): ReactNode;
}

/**
 * One form field: its label, its control, a hint and an error, wired together (the label names the
 * control; the hint and the error describe it; an error marks it invalid and is announced). Every
 * form of the app builds its fields from this, so they read and behave alike.
 */
export function Field({ label, hint, error, errorReplacesHint = false, className, children }: FieldProps) {
  const id = useId();
  const showHint = hint !== undefined && hint !== null && !(error && errorReplacesHint);
  const hintId = showHint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter((part) => part !== undefined).join(" ");
  return (
    <div className={className ? `field ${className}` : "field"}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children({
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy || undefined,
      })}
      {showHint ? (
        <p className="hint-text" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
