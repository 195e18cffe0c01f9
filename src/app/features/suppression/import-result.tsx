import type { SuppressionImport } from "../../../contract/spending";
import { formatNumber } from "../../lib/format";
import { importSentence, rejectedLine } from "./suppression-words";

/** What an import did: added, already there, and the lines that were not used with why. */
export function ImportResult({ result }: { result: SuppressionImport }) {
  const shown = result.rejected.length;
  return (
    <div className="sup-result" data-testid="import-result">
      <p className="sup-done">{importSentence(result)}</p>
      {shown > 0 ? (
        <details className="sup-rejected" open={shown <= 10}>
          <summary>
            {result.rejectedTotal > shown
              ? `The first ${formatNumber(shown)} of ${formatNumber(result.rejectedTotal)} lines not used`
              : `${shown === 1 ? "The line" : `The ${formatNumber(shown)} lines`} not used`}
          </summary>
          <ul className="sup-rejected-list">
            {result.rejected.map((r) => (
              <li key={`${r.line}-${r.value}`}>{rejectedLine(r)}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
