import { type Credits, useCredits } from "../../api/credits";
import { type Session, useSession } from "../../api/session";
import { formatCredits, planName } from "../../lib/format";
import { ROLE_NAMES } from "../../lib/roles";
import { Page } from "../../ui/page";
import { ErrorPanel } from "../../ui/status";
import { LimitsCard } from "./limits-card";
import { dollarValue } from "./limits-text";
import { RotateKeyCard } from "./rotate-key-card";
import { SpendCard } from "./spend-card";
import "./account.css";
import { DOLLARS_PER_CREDIT } from "../../../contract/pricing";
import { Card } from "../../ui/card";

const PLAN_TEXT: Record<string, string> = {
  PAYG: "Each contact row you buy (Preview, Enrich, Export) costs credits; a revealed email or mobile costs more. Counts, samples, estimates and insights are free.",
  AYCE: "Contact rows (Preview, Enrich, Export) are included. Email verification still uses credits, and the daily limit of free sample rows still applies.",
};

function BalanceCard({
  credits,
  sessionPlan,
}: {
  credits: ReturnType<typeof useCredits>;
  sessionPlan: string | null;
}) {
  const plan = credits.data?.plan ?? sessionPlan;
  return (
    <Card title="Balance">
      <div aria-live="polite">
        {credits.isPending ? (
          <p className="muted">Loading the balance…</p>
        ) : credits.error ? (
          <ErrorPanel
            title="The balance could not be loaded"
            error={credits.error}
            onRetry={() => void credits.refetch()}
          />
        ) : (
          <BalanceFacts data={credits.data} plan={plan} />
        )}
      </div>
    </Card>
  );
}

function BalanceFacts({ data, plan }: { data: Credits; plan: string | null }) {
  return (
    <div className="account-balance">
      <p className="big-number" data-testid="balance">
        {formatCredits(data.credits)}
      </p>
      {plan === "PAYG" ? (
        <p className="muted account-small">
          About {dollarValue(data.credits)} at the public price of ${DOLLARS_PER_CREDIT} per credit (your
          contract may differ).
        </p>
      ) : null}
      <div className="account-plan">
        <h3 className="account-limit-title">Plan</h3>
        {plan ? (
          <>
            <p>
              <span className="badge badge-plan" data-testid="plan">
                {planName(plan)}
              </span>
            </p>
            <p className="muted account-small">{PLAN_TEXT[plan]}</p>
          </>
        ) : (
          <p className="muted">The data service did not say which plan this key is on.</p>
        )}
      </div>
      {data.source === "v1/credits" ? (
        <p className="muted account-small">
          Read through the data service's older v1 interface (v2 has no balance here).
        </p>
      ) : null}
    </div>
  );
}

function ConnectionCard({ session }: { session: Session | undefined }) {
  return (
    <Card title="Connection">
      {session ? (
        <dl className="facts">
          <dt>Data</dt>
          <dd>{session.mode === "sandbox" ? "Sandbox (synthetic data)" : "Live data service"}</dd>
          <dt>API key</dt>
          <dd>
            ends in{" "}
            <span className="mono" data-testid="key-last4">
              …{session.keyLast4}
            </span>
            <span className="muted account-small account-block">
              Held by the server, never by this browser.
            </span>
          </dd>
          <dt>Signed in as</dt>
          <dd>
            {session.user ? (
              <>
                {session.user}{" "}
                <span className="muted" data-testid="connection-role">
                  ({ROLE_NAMES[session.role]})
                </span>
              </>
            ) : (
              <span className="muted account-small">No sign-in: this server serves one local user.</span>
            )}
          </dd>
        </dl>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </Card>
  );
}

/** The account behind the proxy's key: balance and plan, today's limits, the connection, rotation. */
export function AccountPage() {
  const session = useSession();
  const credits = useCredits();
  return (
    <Page title="Account" lead="The plan, balance and limits of the API key this Audience Builder uses.">
      <div className="account-grid">
        <BalanceCard credits={credits} sessionPlan={session.data?.plan ?? null} />
        <LimitsCard />
        <SpendCard />
        <ConnectionCard session={session.data} />
        <RotateKeyCard />
      </div>
    </Page>
  );
}
