import { useEffect, useId, useRef, useState } from "react";
import { formatBytes, formatNumber, formatWhen } from "../../lib/format";
import { cancelRefusal, personLabel, useAbilities } from "../../lib/roles";
import { ProgressBar } from "../../ui/progress-bar";
import { readableError } from "../../ui/status";
import { useCancelJob } from "./cancel-job";
import { useDownloadResults } from "./download-results";
import { jobHistory, type KnownJob } from "./job-history";
import {
  canCancel,
  canDownload,
  isActive,
  isFinished,
  jobLabel,
  progressOf,
  STATUS_TONE,
  STATUS_WORDS,
} from "./job-model";
import { useJobStatus } from "./job-status";

/**
 * One batch job: its status in words, progress when the message carries it, when it last changed,
 * and what can be done (cancel while it runs; download once completed, or the results so far once
 * cancelled). A job the service no longer lists as running is asked about on its own until its
 * status is final.
 */
export function JobRow({
  job,
  listed,
  starter,
}: {
  job: KnownJob;
  listed: boolean | null;
  /** Who started it (recorded by the proxy), or null when not known. */
  starter: string | null;
}) {
  const id = useId();
  const label = jobLabel(job.id);
  const [confirming, setConfirming] = useState(false);
  const cancel = useCancelJob();
  const download = useDownloadResults();
  const { role, user, why } = useAbilities();
  const cannotDownload = why("download");
  const cannotCancel = cancelRefusal(role, user, starter);
  const cancellable = cannotCancel === null;

  // Asked directly when the running list does not show it (or could not be read) and it may still change.
  const watch = listed !== true && isActive(job.status);
  const status = useJobStatus(job.id, watch);
  // An answer cached from before the row started watching is older than what the list said.
  const watchingSince = useRef(0);
  useEffect(() => {
    if (watch) watchingSince.current = Date.now();
  }, [watch]);
  useEffect(() => {
    if (status.data && status.dataUpdatedAt >= watchingSince.current) jobHistory.update([status.data]);
  }, [status.data, status.dataUpdatedAt]);

  const progress = progressOf(job);
  const when =
    job.lastUpdated && !Number.isNaN(Date.parse(job.lastUpdated)) ? formatWhen(job.lastUpdated) : null;
  const tone = STATUS_TONE[job.status];

  const doCancel = () => {
    cancel.mutate(job.id, {
      onSuccess: (answer) => jobHistory.update([answer]),
      onSettled: () => setConfirming(false),
    });
  };

  return (
    <li className="job-row" aria-labelledby={`${id}-name`} data-job-id={job.id} data-status={job.status}>
      <div className="job-head">
        <h3 className="job-name" id={`${id}-name`}>
          <span className="verify-break">{job.filename || "Batch job"}</span>{" "}
          <span className="job-id muted">{label}</span>
        </h3>
        <span className={`badge job-status job-status-${tone}`} data-testid="job-status">
          {STATUS_WORDS[job.status]}
        </span>
      </div>

      {progress && !isFinished(job.status) ? (
        <ProgressBar
          value={progress.done}
          max={progress.total}
          label="Addresses checked"
          valueText={`${formatNumber(progress.done)} of ${formatNumber(progress.total)}`}
        />
      ) : null}
      {!progress && job.status === "QUEUED" ? (
        <ProgressBar value={0} max={1} label="Addresses checked" indeterminate />
      ) : null}

      <p className="job-message">
        {starter ? (
          <span className="job-starter" data-testid="job-starter">
            Started by {starter === user ? "you" : personLabel(starter)} ·{" "}
          </span>
        ) : null}
        <span>{job.message}</span>
        {when ? <span className="muted"> · Last update {when}</span> : null}
      </p>
      {job.status === "ERROR" ? (
        <p className="notice-warning verify-warning">
          The service stopped this job (for example, the balance ran out). Its results cannot be downloaded;
          start a new job for the addresses it did not reach.
        </p>
      ) : null}
      {status.isError ? (
        <p className="verify-field-error" role="alert">
          Could not check this job: {readableError(status.error)}
        </p>
      ) : null}

      <div className="job-actions">
        {canCancel(job.status) && !confirming && cancellable ? (
          <button type="button" className="button button-secondary" onClick={() => setConfirming(true)}>
            Cancel job
          </button>
        ) : null}
        {canCancel(job.status) && !cancellable ? <span className="hint-text">{cannotCancel}</span> : null}
        {canDownload(job.status) && cannotDownload ? (
          <span className="hint-text" title={cannotDownload}>
            Results are downloaded by a buyer or an admin.
          </span>
        ) : null}
        {canDownload(job.status) && !cannotDownload ? (
          <button
            type="button"
            className="button button-primary"
            disabled={download.isPending}
            onClick={() => download.mutate({ id: job.id, filename: job.filename })}
          >
            {download.isPending
              ? "Downloading…"
              : download.isError
                ? "Download again"
                : job.status === "CANCELLED"
                  ? "Download results so far (CSV)"
                  : "Download results (CSV)"}
          </button>
        ) : null}
        {isFinished(job.status) || status.isError ? (
          <button type="button" className="button button-quiet" onClick={() => jobHistory.remove(job.id)}>
            Remove from list
          </button>
        ) : null}
      </div>

      {confirming && canCancel(job.status) ? (
        <div className="notice-warning notice-stack">
          <p id={`${id}-confirm`}>
            Cancel job {label}? Addresses already checked stay charged, and their results can still be
            downloaded.
          </p>
          <div className="job-actions">
            <button
              type="button"
              className="button button-primary"
              onClick={doCancel}
              disabled={cancel.isPending}
            >
              {cancel.isPending ? "Cancelling…" : `Yes, cancel job ${label}`}
            </button>
            <button
              type="button"
              className="button button-secondary"
              onClick={() => setConfirming(false)}
              disabled={cancel.isPending}
            >
              Keep it running
            </button>
          </div>
        </div>
      ) : null}

      <div aria-live="polite" className="job-feedback">
        {cancel.isError ? (
          <p className="verify-field-error">The job was not cancelled: {readableError(cancel.error)}</p>
        ) : null}
        {download.isError ? (
          <p className="verify-field-error">
            The download failed: {readableError(download.error)} Downloading again costs nothing.
          </p>
        ) : null}
        {download.isSuccess ? (
          <p className="verify-success">
            Saved {download.data.filename} ({formatBytes(download.data.bytes)}).
          </p>
        ) : null}
      </div>
    </li>
  );
}
