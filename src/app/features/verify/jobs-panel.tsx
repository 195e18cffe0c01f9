import { useEffect, useId } from "react";
import { useJobStarters } from "../../api/team-jobs";
import { readableError } from "../../ui/status";
import { isActive } from "./job-model";
import { JobRow } from "./job-row";
import { POLL_MAX_MS, POLL_MIN_MS } from "./polling";
import { useVerifyJobs } from "./use-jobs";
import "./verify.css";

/** Every batch job this browser knows, newest first, kept up to date while any of them runs. */
export function JobsPanel() {
  const id = useId();
  const { jobs, listedIds, active, announcement } = useVerifyJobs();
  // Who started each job, as the proxy recorded it (joined by job id).
  const starters = useJobStarters("verification");
  const unseen = jobs
    .filter((job) => starters.data && !starters.data.has(job.id))
    .map((job) => job.id)
    .join(" ");
  const refetchStarters = starters.refetch;
  useEffect(() => {
    // A job this list has no person for was probably just started: ask again (once per new set).
    if (unseen) void refetchStarters();
  }, [unseen, refetchStarters]);
  const running = jobs.filter((job) => isActive(job.status)).length;

  return (
    <section className="card verify-jobs" aria-labelledby={`${id}-title`}>
      <div className="verify-jobs-head">
        <h2 className="card-title" id={`${id}-title`}>
          Batch jobs
        </h2>
        <p className="muted verify-jobs-note">
          {running > 0
            ? `${running} running. Checked every ${POLL_MIN_MS / 1000} to ${POLL_MAX_MS / 1000} seconds.`
            : "Nothing running."}
        </p>
      </div>
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {active.isError ? (
        <div className="alert verify-alert" role="alert">
          <p>
            <strong>The list of running jobs could not be read.</strong> {readableError(active.error)}
          </p>
          <div className="alert-actions">
            <button type="button" className="button button-secondary" onClick={() => void active.refetch()}>
              Try again
            </button>
          </div>
        </div>
      ) : null}
      {jobs.length === 0 ? (
        <p className="muted">
          {active.isPending
            ? "Looking for running jobs…"
            : "No batch jobs yet. Jobs you start appear here, with their progress and results."}
        </p>
      ) : (
        <ul className="job-list">
          {jobs.map((job) => (
            <JobRow
              key={job.id}
              job={job}
              listed={listedIds ? listedIds.has(job.id) : null}
              starter={starters.data?.get(job.id) ?? null}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
