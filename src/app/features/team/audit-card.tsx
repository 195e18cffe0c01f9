import { formatDateTime } from "../../lib/format";
import { Card } from "../../ui/card";
import { LoadFailedAlert, LoadingNote, readableError } from "../../ui/status";
import { useAudit } from "./api/audit";
import { auditWords } from "./team-words";

/**
 * Every change to people, roles, audiences and the key, newest first, as sentences: when, who,
 * what. Older entries a page at a time.
 */
export function AuditCard() {
  const audit = useAudit();
  const entries = audit.data?.pages.flatMap((page) => page.entries) ?? [];
  return (
    <Card
      title="Audit"
      aside={
        <button
          type="button"
          className="button button-quiet"
          onClick={() => void audit.refetch()}
          disabled={audit.isFetching}
        >
          {audit.isFetching && !audit.isFetchingNextPage ? "Refreshing…" : "Refresh"}
        </button>
      }
    >
      <p className="muted team-lead">
        Who changed what: people, roles, saved audiences and the API key. Kept on the server; only admins see
        it.
      </p>
      {audit.isPending ? (
        <LoadingNote what="the audit list" />
      ) : audit.isError && entries.length === 0 ? (
        <LoadFailedAlert
          what="the audit list"
          error={audit.error}
          onRetry={() => void audit.refetch()}
          className="team-alert"
        />
      ) : entries.length === 0 ? (
        <p className="muted">Nothing has changed yet.</p>
      ) : (
        <ol className="team-audit" aria-label="Changes, newest first">
          {entries.map((entry) => {
            const words = auditWords(entry);
            return (
              <li key={entry.id} className="team-audit-entry" data-action={entry.action}>
                <time className="team-audit-when muted" dateTime={entry.at}>
                  {formatDateTime(entry.at)}
                </time>
                <span className="team-audit-what">
                  {words.sentence}
                  {words.detail ? <span className="muted"> {words.detail}</span> : null}
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {audit.isFetchNextPageError ? (
        <p className="team-field-error" role="alert">
          Older entries could not be loaded: {readableError(audit.error)}
        </p>
      ) : null}
      {audit.hasNextPage ? (
        <div className="team-actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => void audit.fetchNextPage()}
            disabled={audit.isFetchingNextPage}
          >
            {audit.isFetchingNextPage ? "Loading…" : "Load older"}
          </button>
        </div>
      ) : null}
    </Card>
  );
}
