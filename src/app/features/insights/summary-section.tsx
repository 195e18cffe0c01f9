import { formatNumber } from "../../lib/format";
import { formatShare } from "./buckets";
import type { InsightsSummary, SectionState } from "./insights";
import { SectionProblem } from "./section-problem";

function people(count: number): string {
  return count === 1 ? "person" : "people";
}

/** The audience in four figures, in plain words: people, companies, and who can be reached how. */
export function SummarySection({ state }: { state: SectionState<InsightsSummary> }) {
  const data = state.data;
  if (state.error) return <SectionProblem what="the summary" error={state.error} onRetry={state.retry} />;
  if (!data) return state.isPending ? <p className="muted insights-wait">Gathering insights…</p> : null;
  const { total, companies, withEmail, withMobile } = data;
  return (
    <div className="insights-summary" data-stale={state.isStale || undefined}>
      <ul className="insights-figures" aria-label="Summary">
        <li>
          <span className="insights-figure">{formatNumber(total)}</span>
          <span className="insights-figure-label"> {people(total)}</span>
        </li>
        <li>
          <span className="insights-figure">{formatNumber(companies)}</span>
          <span className="insights-figure-label"> {companies === 1 ? "company" : "companies"}</span>
        </li>
        <li>
          <span className="insights-figure">{formatShare(withEmail, total)}</span>
          <span className="insights-figure-label"> have an email address ({formatNumber(withEmail)})</span>
        </li>
        <li>
          <span className="insights-figure">{formatShare(withMobile, total)}</span>
          <span className="insights-figure-label"> have a mobile number ({formatNumber(withMobile)})</span>
        </li>
      </ul>
    </div>
  );
}
