import { useId, useState } from "react";
import {
  SUPPRESSION_KIND_WORDS,
  SUPPRESSION_KINDS,
  type SuppressionKind,
  type SuppressionList,
} from "../../../contract/spending";
import { readableError } from "../../ui/status";
import { useSuppressionEntries } from "./api/lists";
import { kindCounts } from "./suppression-words";

/** A list's entries, a page at a time, all kinds or one. */
export function EntriesBrowser({ list }: { list: SuppressionList }) {
  const id = useId();
  const [kind, setKind] = useState<SuppressionKind | "">("");
  const entries = useSuppressionEntries(list.id, kind);
  const rows = entries.data?.pages.flatMap((page) => page.entries) ?? [];
  const kinds = kindCounts(list);
  return (
    <div className="sup-entries">
      <div className="field sup-kind">
        <label className="field-label" htmlFor={`${id}-kind`}>
          Show
        </label>
        <select
          id={`${id}-kind`}
          className="input"
          value={kind}
          onChange={(event) => setKind(event.target.value as SuppressionKind | "")}
        >
          <option value="">Every kind</option>
          {SUPPRESSION_KINDS.filter((k) => kinds.some((c) => c.kind === k)).map((k) => (
            <option key={k} value={k}>
              {SUPPRESSION_KIND_WORDS[k]}
            </option>
          ))}
        </select>
      </div>
      {entries.isPending ? (
        <p className="muted" role="status">
          Loading the entries…
        </p>
      ) : entries.isError && rows.length === 0 ? (
        <p className="sup-error" role="alert">
          The entries could not be loaded: {readableError(entries.error)}
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">No entries of this kind.</p>
      ) : (
        <table className="list-table sup-table">
          <caption className="visually-hidden">Entries of {list.name}</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Entry</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={`${entry.kind}:${entry.value}`}>
                <td className="sup-entry-kind">{SUPPRESSION_KIND_WORDS[entry.kind]}</td>
                <td className="mono sup-entry-value">{entry.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entries.isFetchNextPageError ? (
        <p className="sup-error" role="alert">
          More entries could not be loaded: {readableError(entries.error)}
        </p>
      ) : null}
      {entries.hasNextPage ? (
        <div className="sup-actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => void entries.fetchNextPage()}
            disabled={entries.isFetchingNextPage}
          >
            {entries.isFetchingNextPage ? "Loading…" : "Show more"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
