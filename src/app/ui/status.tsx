import type { ReactNode } from "react";
import { ApiError } from "../api/api-error";

/** A calm "working on it" placeholder, announced politely. */
export function LoadingPanel({ label }: { label: string }) {
  return (
    <div className="status-panel" role="status" aria-live="polite">
      <p>{label}</p>
    </div>
  );
}

/** A dynamic import that failed: usually a new deployment replaced the chunk, or the connection dropped. */
function isChunkLoadError(error: Error): boolean {
  return /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(
    error.message,
  );
}

/** A sentence a person can act on, for any error a screen may meet. */
export function readableError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && isChunkLoadError(error))
    return "Part of the app could not be loaded. The connection may have dropped, or a newer version was deployed: reload the page.";
  if (error instanceof Error && error.message) return `Something went wrong: ${error.message}`;
  return "Something went wrong.";
}

/** An error with what happened and what to do: retry, or reload. */
export function ErrorPanel({
  title,
  error,
  onRetry,
  children,
}: {
  title: string;
  error: unknown;
  onRetry?: () => void;
  children?: ReactNode;
}) {
  const requestId = error instanceof ApiError ? error.requestId : null;
  return (
    <div className="alert" role="alert">
      <h2 className="alert-title">{title}</h2>
      <p>{readableError(error)}</p>
      {children}
      <div className="alert-actions">
        {onRetry ? (
          <button type="button" className="button button-primary" onClick={onRetry}>
            Try again
          </button>
        ) : null}
        <button type="button" className="button button-secondary" onClick={() => window.location.reload()}>
          Reload page
        </button>
      </div>
      {requestId ? <p className="alert-meta">Reference: {requestId}</p> : null}
    </div>
  );
}

/** A list or card whose records are on their way ("Loading the ledger…"), announced politely. */
export function LoadingNote({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A list or card whose records could not be read: which, why, and a way to ask again. */
export function LoadFailedAlert({
  what,
  error,
  onRetry,
  className,
}: {
  /** "the ledger": the sentence starts with it. */
  what: string;
  error: unknown;
  onRetry: () => void;
  className?: string;
}) {
  return (
    <div className={className ? `alert ${className}` : "alert"} role="alert">
      <p>
        {what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded: {readableError(error)}
      </p>
      <div className="alert-actions">
        <button type="button" className="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      </div>
    </div>
  );
}
