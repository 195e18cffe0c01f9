import { useState } from "react";
import { describe } from "../../../contract/describe";
import type { GroupNode } from "../../../contract/filter";
import type { LedgerEntry } from "../../../contract/ledger";
import { downloadFile } from "../../api/download";
import { monthWords, thisMonth } from "../../api/spending";
import { formatCredits, formatDateTime, formatNumber } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { Card } from "../../ui/card";
import { Field } from "../../ui/field";
import { LoadFailedAlert, LoadingNote, readableError } from "../../ui/status";
import { type LedgerFilters, ledgerCsvPath, useLedger } from "./api/ledger";
import { creditsText, OUTCOME_WORDS, operationWords, rowsText } from "./spending-words";

/** The longest filter shown in a row; the whole of it is in the cell's title. */
const FILTER_WORDS_MAX = 160;

/** What an export or a sample was bought from, in plain English (null when the row has no filter). */
export function filterWords(filter: unknown): string | null {
  if (filter === null || typeof filter !== "object" || (filter as { type?: unknown }).type !== "group")
    return null;
  return describe(filter as GroupNode);
}

/** One ledger row: when, who, what, audience, rows, credits estimated and charged, outcome. */
function LedgerRow({ entry }: { entry: LedgerEntry }) {
  const outcome = OUTCOME_WORDS[entry.outcome];
  const words = filterWords(entry.filter);
  return (
    <tr data-outcome={entry.outcome}>
      <td className="spend-nowrap">
        <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
      </td>
      <td className="spend-wrap spend-who">{personLabel(entry.person)}</td>
      <td className="spend-nowrap">{operationWords(entry.operation)}</td>
      <td className="spend-wrap spend-audience">
        {entry.audienceName ?? (entry.detail ? null : <span className="muted">No saved audience</span>)}
        {entry.detail ? <span className="spend-detail">{entry.detail}</span> : null}
        {words ? (
          <span className="spend-filter muted" title={words.length > FILTER_WORDS_MAX ? words : undefined}>
            {words.length > FILTER_WORDS_MAX ? `${words.slice(0, FILTER_WORDS_MAX)}…` : words}
          </span>
        ) : null}
      </td>
      <td className="spend-number">{rowsText(entry)}</td>
      <td className="spend-number">{creditsText(entry.creditsEstimated)}</td>
      <td className="spend-number">
        {entry.creditsCharged === null ? (
          <span className="muted">Not known</span>
        ) : (
          formatCredits(entry.creditsCharged)
        )}
      </td>
      <td className="spend-outcome-cell">
        <span className="badge spend-outcome" data-outcome={entry.outcome}>
          {outcome.label}
        </span>
        {outcome.hint ? (
          <span className="muted spend-hint">
            <span className="visually-hidden"> — </span>
            {outcome.hint}
          </span>
        ) : null}
      </td>
    </tr>
  );
}

/**
 * Every purchase recorded by the proxy (enrichments, samples with contact details, exports) for a
 * month and a person, with the totals and the same list as a CSV file. `people`: whom an admin may
 * pick (null: the person reads only their own, and no picker is shown).
 */
export function LedgerCard({ people }: { people: readonly string[] | null }) {
  const [filters, setFilters] = useState<LedgerFilters>({ person: "", month: thisMonth() });
  const ledger = useLedger(filters);
  const [download, setDownload] = useState<{ busy: boolean; problem: string | null }>({
    busy: false,
    problem: null,
  });
  const entries = ledger.data?.entries ?? [];
  const totals = ledger.data?.totals;
  const period = filters.month ? monthWords(filters.month) : "every month";
  const whose = filters.person ? personLabel(filters.person) : people ? "everyone" : "you";

  const saveCsv = async () => {
    setDownload({ busy: true, problem: null });
    try {
      await downloadFile(ledgerCsvPath(filters), {
        fallbackName: `ledger${filters.month ? `-${filters.month}` : ""}${filters.person ? `-${filters.person}` : ""}.csv`,
      });
      setDownload({ busy: false, problem: null });
    } catch (error) {
      setDownload({ busy: false, problem: `The CSV file did not download: ${readableError(error)}` });
    }
  };

  return (
    <Card
      title="Ledger"
      aside={
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void saveCsv()}
          disabled={download.busy}
        >
          {download.busy ? "Downloading…" : "Download CSV"}
        </button>
      }
    >
      <p className="muted spend-lead">
        Every purchase made through this Audience Builder: who bought what, what it was estimated to cost,
        what was charged, and contacts the team already had, served for nothing.
      </p>
      <form
        className="spend-filters"
        aria-label="Ledger filters"
        onSubmit={(event) => event.preventDefault()}
      >
        {people ? (
          <Field label="Person">
            {(control) => (
              <select
                {...control}
                className="input"
                value={filters.person}
                onChange={(event) => setFilters((was) => ({ ...was, person: event.target.value }))}
              >
                <option value="">Everyone</option>
                {people.map((name) => (
                  <option key={name} value={name}>
                    {personLabel(name)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <Field label="Month" hint="Months in UTC. Clear it for every month.">
          {(control) => (
            <input
              {...control}
              className="input"
              type="month"
              value={filters.month}
              max={thisMonth()}
              onChange={(event) => setFilters((was) => ({ ...was, month: event.target.value }))}
            />
          )}
        </Field>
      </form>
      {download.problem ? (
        <p className="spend-error" role="alert">
          {download.problem}
        </p>
      ) : null}
      {ledger.isPending ? (
        <LoadingNote what="the ledger" />
      ) : ledger.isError ? (
        <LoadFailedAlert what="the ledger" error={ledger.error} onRetry={() => void ledger.refetch()} />
      ) : (
        <>
          {totals ? (
            <dl className="spend-totals" aria-label="Totals" data-testid="ledger-totals">
              <div>
                <dt>Charged</dt>
                <dd>{formatCredits(totals.creditsCharged)}</dd>
              </div>
              <div>
                <dt>Purchases</dt>
                <dd>{formatNumber(totals.entries)}</dd>
              </div>
              <div>
                <dt>Rows</dt>
                <dd>{rowsText(totals)}</dd>
              </div>
              {totals.unknown > 0 ? (
                <div className="spend-total-warning">
                  <dt>Not known</dt>
                  <dd>
                    {formatNumber(totals.unknown)} — check the balance (not counted in the charged total)
                  </dd>
                </div>
              ) : null}
            </dl>
          ) : null}
          {entries.length === 0 ? (
            <p className="muted" role="status">
              No purchases by {whose} in {period}.
            </p>
          ) : (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it.
            <section className="spend-table-wrap" tabIndex={0} aria-label="Ledger entries">
              <table className="list-table spend-table" aria-busy={ledger.isPlaceholderData || undefined}>
                <caption className="visually-hidden">
                  Purchases by {whose} in {period}, newest first
                </caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">What</th>
                    <th scope="col">Audience or subject</th>
                    <th scope="col" className="spend-number">
                      Rows
                    </th>
                    <th scope="col" className="spend-number">
                      Estimated
                    </th>
                    <th scope="col" className="spend-number">
                      Charged
                    </th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry) => (
                    <LedgerRow key={entry.id} entry={entry} />
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </>
      )}
    </Card>
  );
}
