import { useCredits } from "../../api/credits";
import { useSession } from "../../api/session";
import { formatCredits } from "../../ui/format";
import { ComingSoon, Page } from "../../ui/page";
import { ErrorPanel } from "../../ui/status";

const PLAN_TEXT: Record<string, string> = {
  PAYG: "Pay as you go: each contact row you buy costs credits.",
  AYCE: "All you can eat: contact retrieval is included; the daily free sample limit still applies.",
};

export function AccountPage() {
  const session = useSession();
  const credits = useCredits();
  const plan = credits.data?.plan ?? session.data?.plan ?? null;

  return (
    <Page title="Account" lead="The plan and balance of the API key this Audience Builder uses.">
      <div className="card-grid">
        <section className="card" aria-labelledby="balance-title">
          <h2 className="card-title" id="balance-title">
            Balance
          </h2>
          {credits.isPending ? (
            <p className="muted">Loading the balance…</p>
          ) : credits.error ? (
            <ErrorPanel
              title="The balance could not be loaded"
              error={credits.error}
              onRetry={() => void credits.refetch()}
            />
          ) : (
            <p className="big-number">{formatCredits(credits.data.credits)}</p>
          )}
        </section>
        <section className="card" aria-labelledby="plan-title">
          <h2 className="card-title" id="plan-title">
            Plan
          </h2>
          {plan ? (
            <>
              <p className="big-number">{plan}</p>
              <p className="muted">{PLAN_TEXT[plan]}</p>
            </>
          ) : (
            <p className="muted">{credits.isPending ? "Loading the plan…" : "The plan is not known yet."}</p>
          )}
        </section>
        <section className="card" aria-labelledby="key-title">
          <h2 className="card-title" id="key-title">
            Connection
          </h2>
          {session.data ? (
            <dl className="facts">
              <dt>Data</dt>
              <dd>{session.data.mode === "sandbox" ? "Sandbox (synthetic data)" : "Live data service"}</dd>
              <dt>API key</dt>
              <dd>
                <span className="mono">…{session.data.keyLast4}</span>{" "}
                <span className="muted">(held by the server, never by this browser)</span>
              </dd>
              {session.data.user ? (
                <>
                  <dt>Signed in as</dt>
                  <dd>{session.data.user}</dd>
                </>
              ) : null}
            </dl>
          ) : (
            <p className="muted">Loading…</p>
          )}
        </section>
      </div>
      <ComingSoon
        items={[
          "Rotate the API key: the server stores the new key safely and this browser never sees it.",
          "See recent exports and verification jobs, and what each one cost.",
        ]}
      />
    </Page>
  );
}
