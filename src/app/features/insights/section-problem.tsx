import { readableError } from "../../ui/status";

/** A section that could not be loaded: what failed, why, and a way to ask again. */
export function SectionProblem({
  what,
  error,
  onRetry,
}: {
  what: string;
  error: Error;
  onRetry: () => void;
}) {
  return (
    <div className="alert insights-problem" role="alert">
      <p>
        {what} could not be loaded. {readableError(error)}
      </p>
      <div className="alert-actions">
        <button type="button" className="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      </div>
    </div>
  );
}
