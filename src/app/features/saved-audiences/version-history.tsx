import { useId } from "react";
import type { Audience } from "../../../contract/team";
import { audienceErrorText, useAudienceVersions } from "../../api/audiences";
import { formatNumber, formatRelative } from "../../lib/format";
import { personLabel } from "../../lib/roles";

/**
 * Every version of one saved audience, newest first: who saved it, when, its count, and whether it
 * brought an earlier one back. Any version but the latest can be restored (a new version with its
 * content) by whoever may edit the audience.
 */
export function VersionHistory({
  audience,
  now,
  onRestore,
}: {
  audience: Audience;
  now: Date;
  onRestore(version: number): void;
}) {
  const id = useId();
  const versions = useAudienceVersions(audience.id);

  return (
    <section className="saved-history" aria-labelledby={`${id}-title`}>
      <h4 className="saved-history-title" id={`${id}-title`}>
        Versions of “{audience.name}”
      </h4>
      {versions.isPending ? <p className="muted">Loading the versions…</p> : null}
      {versions.error ? (
        <p className="saved-notice-error" role="alert">
          The versions could not be loaded: {audienceErrorText(versions.error)}{" "}
          <button type="button" className="button button-quiet" onClick={() => void versions.refetch()}>
            Try again
          </button>
        </p>
      ) : null}
      {versions.data ? (
        <ol className="saved-history-list">
          {versions.data.map((version) => (
            <li key={version.version} className="saved-history-item">
              <span className="saved-history-what">
                <strong>Version {version.version}</strong>
                {version.version === audience.version ? " (latest)" : ""}
                {version.restoredFrom === null ? "" : `, restored from version ${version.restoredFrom}`}
              </span>
              <span className="saved-history-who">
                {personLabel(version.savedBy)},{" "}
                <time dateTime={version.savedAt}>{formatRelative(version.savedAt, now)}</time>
                {" · "}
                {version.lastCount === null ? "not counted" : `${formatNumber(version.lastCount)} people`}
                {version.name === audience.name ? "" : ` · named “${version.name}”`}
              </span>
              {version.version !== audience.version && audience.canEdit ? (
                <button
                  type="button"
                  className="button button-secondary saved-history-restore"
                  onClick={() => onRestore(version.version)}
                  aria-label={`Restore version ${version.version} of “${audience.name}”`}
                >
                  Restore
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
