/**
 * The end of a confirmation written into the page (remove a person, deny a request, delete a list):
 * the action, named for what it does and saying when it is under way, then the way out.
 */
export function ConfirmButtons({
  className,
  label,
  busyLabel,
  busy,
  disabled = false,
  danger = false,
  onConfirm,
  cancelLabel = "Cancel",
  onCancel,
  cancelDisabled = false,
}: {
  /** The screen's row of actions. */
  className: string;
  label: string;
  busyLabel: string;
  busy: boolean;
  /** Nothing to confirm yet (the choice is unchanged). */
  disabled?: boolean;
  /** It destroys something: drawn in the danger colour. */
  danger?: boolean;
  onConfirm(): void;
  cancelLabel?: string;
  onCancel(): void;
  /** The way out waits while the action is under way. */
  cancelDisabled?: boolean;
}) {
  return (
    <div className={className}>
      <button
        type="button"
        className={danger ? "button button-primary button-danger-solid" : "button button-primary"}
        disabled={busy || disabled}
        onClick={onConfirm}
      >
        {busy ? busyLabel : label}
      </button>
      <button type="button" className="button button-secondary" disabled={cancelDisabled} onClick={onCancel}>
        {cancelLabel}
      </button>
    </div>
  );
}
