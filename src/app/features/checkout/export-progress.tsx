import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import type { Plan } from "../../../contract/inferred";
import { ApiError } from "../../api/api-error";
import { CREDITS_QUERY_KEY } from "../../api/credits";
import { formatBytes, formatNumber } from "../../lib/format";
import { ProgressBar } from "../../ui/progress-bar";
import { readableError } from "../../ui/status";
import { useCancelExport } from "./api/export-cancel";
import { downloadExport } from "./api/export-download";
import { isFinished, useExportStatus } from "./api/export-status";
import { EXPORTS_QUERY_KEY } from "./api/exports";
import { useCsvHeaders } from "./csv-headers";
import { CsvHeadersField } from "./csv-headers-field";
import { formatAmount } from "./pricing";
import { activeExport, type FollowedExport } from "./saved-results";

export type DownloadState =
  | { phase: "idle" }
  | { phase: "downloading" }
  | { phase: "done"; filename: string; bytes: number }
  | { phase: "failed"; error: unknown };

/** Downloads an export's file, its header row as chosen, with its state; downloading again is free. */
export function useExportDownload(exportId: string, name: string | null, createdAt?: string) {
  const [state, setState] = useState<DownloadState>({ phase: "idle" });
  const [headers] = useCsvHeaders();
  const running = useRef(false);
  const start = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    setState({ phase: "downloading" });
    try {
      const saved = await downloadExport(exportId, name, headers, createdAt);
      setState({ phase: "done", ...saved });
    } catch (error) {
      setState({ phase: "failed", error });
    } finally {
      running.current = false;
    }
  }, [exportId, name, headers, createdAt]);
  return { state, start };
}

/** "15 rows: 10 bought, 5 of yours added free", or "10 rows". */
export function fileRows(bought: number, free: number): string {
  if (free <= 0) return `${formatNumber(bought)} ${bought === 1 ? "row" : "rows"}`;
  return `${formatNumber(bought + free)} rows: ${formatNumber(bought)} bought, ${formatNumber(free)} of yours added free`;
}

const STATUS_WORDS = {
  QUEUED: "Waiting to start",
  PROCESSING: "Writing the file",
  COMPLETED: "Ready",
  ERROR: "Failed",
  CANCELLED: "Cancelled",
} as const;

/**
 * The export being followed: its progress (polled every second, backing off to five), Cancel while
 * it runs, and its file, downloaded once by itself when it completes, then again on request (free).
 * Kept on this device, so a reload comes back here.
 */
export function ExportProgress({
  record,
  plan,
  onNewExport,
}: {
  record: FollowedExport;
  plan: Plan | null;
  onNewExport: () => void;
}) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const status = useExportStatus(record.exportId);
  const cancel = useCancelExport();
  const download = useExportDownload(record.exportId, record.name, record.startedAt);
  const data = status.data;
  const current = data?.status ?? record.lastStatus ?? "QUEUED";
  const autoStarted = useRef(false);

  // Remember the last status (a reload shows it at once), and refresh balance and history at the end.
  useEffect(() => {
    if (!data) return;
    const stored = activeExport.get();
    if (stored?.exportId === data.exportId && stored.lastStatus !== data.status)
      activeExport.set({ ...stored, lastStatus: data.status });
    if (isFinished(data.status)) {
      void queryClient.invalidateQueries({ queryKey: CREDITS_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: EXPORTS_QUERY_KEY });
    }
  }, [data, queryClient]);

  // The file downloads by itself once; the flag is stored first, so a reload does not repeat it.
  useEffect(() => {
    if (data?.status !== "COMPLETED" || record.downloaded || autoStarted.current) return;
    autoStarted.current = true;
    const stored = activeExport.get();
    if (stored?.exportId === record.exportId) activeExport.set({ ...stored, downloaded: true });
    void download.start();
  }, [data?.status, record.downloaded, record.exportId, download.start]);

  const running = current === "QUEUED" || current === "PROCESSING";
  const notFound = status.error instanceof ApiError && status.error.kind === "not-found";
  const written = data?.rowsWritten ?? 0;
  const total = data?.rows ?? record.rows;

  return (
    <section className="checkout-progress" aria-labelledby={titleId} aria-busy={running}>
      <h3 className="checkout-confirm-title" id={titleId}>
        {record.name ? `Export “${record.name}”` : "Your export"}
      </h3>
      <p className="hint-text checkout-hint">
        {record.summary}.{" "}
        {record.credits === 0
          ? "Nothing is charged for it."
          : `${formatAmount(record.credits, plan)}, charged once when the file is complete.`}
      </p>

      {current === "COMPLETED" ? (
        <ProgressBar
          value={total}
          max={Math.max(total, 1)}
          label="Ready"
          valueText={`${formatNumber(total)} rows`}
        />
      ) : running ? (
        <ProgressBar
          value={written}
          max={Math.max(total, 1)}
          label={STATUS_WORDS[current]}
          indeterminate={current === "QUEUED"}
          valueText={`${formatNumber(written)} of ${formatNumber(total)} rows`}
        />
      ) : null}

      <div className="checkout-export-status" role="status" aria-live="polite">
        {current === "COMPLETED" ? (
          <p>
            The file is ready: {fileRows(total, record.freeRows ?? 0)},{" "}
            {formatAmount(data?.credits ?? record.credits, plan)} charged.
            {download.state.phase === "downloading" ? " Downloading…" : ""}
            {download.state.phase === "done"
              ? ` Downloaded as ${download.state.filename} (${formatBytes(download.state.bytes)}).`
              : ""}
          </p>
        ) : current === "ERROR" ? (
          <p className="checkout-problem">
            The export failed{data?.error ? `: ${data.error}` : "."} Nothing was charged.
          </p>
        ) : current === "CANCELLED" ? (
          <p>The export was cancelled. Nothing was charged.</p>
        ) : (
          <p>You can leave this page: the export keeps running, and comes back here when you return.</p>
        )}
      </div>

      {download.state.phase === "failed" ? (
        <div className="alert checkout-alert" role="alert">
          <h4 className="alert-title">The download did not finish</h4>
          <p>
            {readableError(download.state.error)}
            {/costs nothing/.test(readableError(download.state.error))
              ? ""
              : " Downloading again costs nothing."}
          </p>
        </div>
      ) : null}
      {status.error && !data ? (
        <p className="checkout-problem" role="alert">
          {notFound
            ? "This export is not known to the service any more."
            : `The export's progress could not be read: ${readableError(status.error)}`}
        </p>
      ) : null}
      {cancel.error ? (
        <p className="checkout-problem" role="alert">
          It could not be cancelled: {readableError(cancel.error)}
        </p>
      ) : null}

      <div className="checkout-actions">
        {current === "COMPLETED" || running ? <CsvHeadersField /> : null}
        {current === "COMPLETED" ? (
          <button
            type="button"
            className="button button-primary"
            onClick={() => void download.start()}
            disabled={download.state.phase === "downloading"}
          >
            {download.state.phase === "failed" ? "Download again" : "Download CSV"}
          </button>
        ) : null}
        {running ? (
          <button
            type="button"
            className="button button-secondary"
            onClick={() => cancel.mutate(record.exportId)}
            disabled={cancel.isPending}
          >
            {cancel.isPending ? "Cancelling…" : "Cancel export"}
          </button>
        ) : null}
        {status.error && !data && !notFound ? (
          <button type="button" className="button button-secondary" onClick={() => void status.refetch()}>
            Check again
          </button>
        ) : null}
        {!running || notFound ? (
          <button type="button" className="button button-quiet" onClick={onNewExport}>
            Start a new export
          </button>
        ) : null}
      </div>
    </section>
  );
}
