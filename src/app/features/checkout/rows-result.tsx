import { useId, useState } from "react";
import type { Plan } from "../../../contract/inferred";
import { saveTextFile } from "../../api/download";
import { fileStamp, formatDateTime, formatNumber } from "../../lib/format";
import { toCsv } from "../../ui/csv";
import { RecordsTable } from "../../ui/records-table";
import { useCsvHeaders } from "./csv-headers";
import { CsvHeadersField } from "./csv-headers-field";
import { formatAmount } from "./pricing";
import type { RowsResult } from "./saved-results";

/** How many not-found entries are listed before "and N more". */
const NOT_FOUND_SHOWN = 200;

/**
 * Rows that were paid for: what was bought and what it cost, the rows in a table, the entries that
 * matched nobody, and a CSV of the rows made here (no second request, nothing charged), its header
 * row as chosen. The result is kept on this device until cleared.
 */
export function RowsResultView({
  result,
  plan,
  title,
  filePrefix,
  onClear,
}: {
  result: RowsResult;
  plan: Plan | null | undefined;
  title: string;
  filePrefix: string;
  onClear: () => void;
}) {
  const titleId = useId();
  const [saved, setSaved] = useState<string | null>(null);
  const [headers] = useCsvHeaders();
  const download = () => {
    const name = `${filePrefix}-${fileStamp(new Date(result.at))}.csv`;
    saveTextFile(toCsv(result.rows, result.columns, { headers }), name);
    setSaved(name);
  };
  const count = result.rows.length;
  return (
    <section className="checkout-result" aria-labelledby={titleId}>
      <div className="checkout-result-head">
        <h3 className="checkout-result-title" id={titleId}>
          {title}
        </h3>
        <div className="checkout-actions">
          <CsvHeadersField />
          <button type="button" className="button button-primary" onClick={download} disabled={count === 0}>
            Download CSV
          </button>
          <button type="button" className="button button-quiet" onClick={onClear}>
            Clear
          </button>
        </div>
      </div>
      <p className="checkout-result-lead" role="status" aria-live="polite">
        {formatNumber(count)} {count === 1 ? "row" : "rows"} bought on {formatDateTime(result.at)} (
        {result.summary}) for {formatAmount(result.creditsCharged, plan)}. Balance after:{" "}
        {formatAmount(result.creditsRemaining, plan)}.{saved ? ` Saved as ${saved}.` : ""}
      </p>
      {result.unsent > 0 ? (
        <p className="checkout-problem">
          {formatNumber(result.unsent)} {result.unsent === 1 ? "entry was" : "entries were"} not sent, because
          an earlier call was refused.
        </p>
      ) : null}
      {result.notFound.length > 0 ? (
        <details className="checkout-not-found">
          <summary>
            Not found: {formatNumber(result.notFound.length)}{" "}
            {result.notFound.length === 1 ? "entry matched" : "entries matched"} nobody (not charged)
          </summary>
          <ul className="checkout-not-found-list">
            {result.notFound.slice(0, NOT_FOUND_SHOWN).map((entry) => (
              <li key={entry} className="mono">
                {entry}
              </li>
            ))}
          </ul>
          {result.notFound.length > NOT_FOUND_SHOWN ? (
            <p className="hint-text checkout-hint">
              and {formatNumber(result.notFound.length - NOT_FOUND_SHOWN)} more
            </p>
          ) : null}
        </details>
      ) : null}
      <RecordsTable
        rows={result.rows}
        columns={result.columns}
        caption={`${title}: ${formatNumber(count)} ${count === 1 ? "row" : "rows"}`}
        captionHidden
        emptyText="No rows: none of the entries matched anyone."
      />
    </section>
  );
}
