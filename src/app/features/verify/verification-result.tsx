import { formatCredits } from "../../lib/format";
import type { Explanation } from "./explain-result";

/** One address's result: the verdict in a word and a sentence, the facts behind it, its cost. */
export function VerificationResult({ explanation }: { explanation: Explanation }) {
  const { email, verdict, tone, summary, facts, credits, costNote, generation } = explanation;
  return (
    <div className={`verify-result verify-result-${tone}`} data-testid="verify-result">
      <p className="verify-result-head">
        <span className={`badge verify-verdict verify-verdict-${tone}`}>{verdict}</span>
        <span className="verify-result-email mono">{email}</span>
      </p>
      <p className="verify-result-summary">{summary}</p>
      {facts.length > 0 ? (
        <dl className="facts verify-facts">
          {facts.map((fact) => (
            <div className="verify-fact" key={fact.label}>
              <dt>{fact.label}</dt>
              <dd>
                {fact.value}
                {fact.note ? <span className="verify-fact-note muted"> {fact.note}</span> : null}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      <p className="verify-result-cost">
        <strong>Cost: {formatCredits(credits)}.</strong> <span className="muted">{costNote}</span>
        {generation === "v1" ? (
          <span className="muted"> Answered by the service's v1 interface (v2 is not available).</span>
        ) : null}
      </p>
    </div>
  );
}
