import { useEffect, useId } from "react";
import type { Plan } from "../../../contract/inferred";
import type { ExportStatusRecord } from "../../../contract/operations";
import { useJobStarters } from "../../api/team-jobs";
import { formatBytes, formatDateTime, formatNumber } from "../../lib/format";
import { personLabel, useAbilities } from "../../lib/roles";
import { RecordsTable } from "../../ui/records-table";
import { LoadFailedAlert, LoadingNote, readableError } from "../../ui/status";
import { useExports } from "./api/exports";
import { CsvHeadersField } from "./csv-headers-field";
import { useExportDownload } from "./export-progress";
import { formatAmount } from "./pricing";

const STATUS_LABELS: Record<ExportStatusRecord["status"], string> = {
  QUEUED: "Queued",
  PROCESSING: "Running",
  COMPLETED: "Completed",
  ERROR: "Failed",
  CANCELLED: "Cancelled",
};

function creditsText(record: ExportStatusRecord, plan: Plan | null): string {
  if (record.status === "ERROR" || record.status === "CANCELLED") return "Not charged";
  if (record.status === "COMPLETED") return formatAmount(record.credits, plan);
  return `${formatAmount(record.credits, plan)} when complete`;
}

function DownloadButton({ record }: { record: ExportStatusRecord }) {
  const download = useExportDownload(record.exportId, record.name, record.createdAt);
  const label = record.name ?? record.exportId;
  const { state } = download;
  return (
    <span className="checkout-history-action">
      <button
        type="button"
        className="button button-secondary"
        onClick={() => void download.start()}
        disabled={state.phase === "downloading"}
        aria-label={`${state.phase === "failed" ? "Download again" : "Download"} ${label}`}
      >
        {state.phase === "downloading"
          ? "Downloading…"
          : state.phase === "failed"
            ? "Download again"
            : "Download"}
      </button>
      {state.phase === "done" ? (
        <span className="hint-text checkout-hint"> Saved ({formatBytes(state.bytes)})</span>
      ) : null}
      {state.phase === "failed" ? (
        <span className="checkout-problem" role="alert">
          {" "}
          {readableError(state.error)}
        </span>
      ) : null}
    </span>
  );
}

const COLUMNS = ["name", "status", "rows", "credits", "createdAt", "by", "action"] as const;
const LABELS: Record<string, string> = {
  name: "Name",
  status: "Status",
  rows: "Rows",
  credits: "Credits",
  createdAt: "Started",
  by: "By",
  action: "File",
};

/**
 * Earlier exports of this account, newest first: status, rows, credits, when; completed files can
 * be downloaded again at no cost, their header row as chosen.
 */
export function ExportHistory({ plan }: { plan: Plan | null }) {
  const titleId = useId();
  const exports = useExports();
  const records = exports.data?.exports ?? [];
  const byId = new Map(records.map((r) => [r.exportId, r]));
  // Who started each export, recorded by the proxy; the service itself knows only the key.
  const starters = useJobStarters("export");
  // An export this list has not seen a person for was probably just started: ask again.
  // (Once per new set of such ids: one started outside this app never has a person.)
  const unseen = records
    .filter((r) => starters.data && !starters.data.has(r.exportId))
    .map((r) => r.exportId)
    .join(" ");
  const refetchStarters = starters.refetch;
  useEffect(() => {
    if (unseen) void refetchStarters();
  }, [unseen, refetchStarters]);
  const { why } = useAbilities();
  const cannotDownload = why("download");
  return (
    <section className="card checkout-history" aria-labelledby={titleId}>
      <div className="checkout-result-head">
        <h2 className="card-title" id={titleId}>
          Export history
        </h2>
        <div className="checkout-actions">
          {cannotDownload ? null : <CsvHeadersField />}
          <button
            type="button"
            className="button button-quiet"
            onClick={() => void exports.refetch()}
            disabled={exports.isFetching}
          >
            {exports.isFetching ? "Refreshing…" : "Refresh"}
          </button>
        </div>
      </div>
      <p className="hint-text checkout-hint">
        {cannotDownload ?? "Downloading a completed export again costs nothing."} "By" is the person who
        started it.
      </p>
      {exports.error && !exports.data ? (
        <LoadFailedAlert what="the history" error={exports.error} onRetry={() => void exports.refetch()} />
      ) : exports.isPending ? (
        <LoadingNote what="the history" />
      ) : (
        <RecordsTable
          rows={records.map((r) => ({
            id: r.exportId,
            name: r.name ?? r.exportId,
            status: STATUS_LABELS[r.status],
            rows: r.rows,
            credits: creditsText(r, plan),
            createdAt: formatDateTime(r.createdAt),
            by: starters.data?.get(r.exportId) ?? null,
            action: null,
          }))}
          columns={COLUMNS}
          labels={LABELS}
          caption="The team's exports, newest first"
          captionHidden
          emptyText="No exports yet."
          rowKey={(row) => String(row.id)}
          renderCell={(column, _value, row) => {
            const record = byId.get(String(row.id));
            if (column === "status" && record)
              return (
                <span className="badge checkout-status" data-status={record.status}>
                  {STATUS_LABELS[record.status]}
                </span>
              );
            if (column === "by")
              return row.by ? (
                <span data-testid="export-by">{personLabel(String(row.by))}</span>
              ) : (
                <span
                  className="muted"
                  title="Started outside this Audience Builder, or before people were recorded"
                >
                  —
                </span>
              );
            if (column === "action")
              return record?.status === "COMPLETED" ? (
                cannotDownload ? (
                  <span className="hint-text checkout-hint" title={cannotDownload}>
                    Buyers and admins download
                  </span>
                ) : (
                  <DownloadButton record={record} />
                )
              ) : (
                <span className="muted">—</span>
              );
            if (column === "rows" && record) return formatNumber(record.rows);
            return undefined;
          }}
        />
      )}
    </section>
  );
}
