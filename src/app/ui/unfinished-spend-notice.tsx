import type { ReactNode } from "react";

/**
 * A spend whose outcome is not known (its answer was lost, or the page closed while it was on its
 * way): what to check, Try again (the same request and key, so never charged twice) and Forget.
 */
export function UnfinishedSpendNotice({
  className = "alert",
  retryLabel = "Try again",
  onRetry,
  onForget,
  children,
}: {
  className?: string;
  retryLabel?: string;
  onRetry(): void;
  onForget(): void;
  children: ReactNode;
}) {
  return (
    <div className={className} role="alert">
      <p>{children}</p>
      <div className="alert-actions">
        <button type="button" className="button button-secondary" onClick={onRetry}>
          {retryLabel}
        </button>
        <button type="button" className="button button-secondary" onClick={onForget}>
          Forget it
        </button>
      </div>
    </div>
  );
}
