import { useSpendingSummary } from "../../api/spending";
import { useAbilities } from "../../lib/roles";
import { Page } from "../../ui/page";
import { SECTION_LABEL, SectionTabs, SPENDING_TABS } from "../../ui/section-tabs";
import { useCaps } from "./api/caps";
import { ApprovalsCard } from "./approvals-card";
import { CapsCard } from "./caps-card";
import { LedgerCard } from "./ledger-card";
import "./spending.css";

/**
 * What the team spent and under which rules: approval requests first (something may be waiting),
 * the ledger with its filters, totals and CSV, then the caps and thresholds (admins change them).
 * Admins read everyone's; others their own (the proxy decides what each answer holds).
 */
export function SpendingPage() {
  const { user, may } = useAbilities();
  const admin = may("managePeople");
  const summary = useSpendingSummary();
  const caps = useCaps();
  // Whom an admin can pick in the ledger: the team's people as the caps and the month's spend list them.
  const people = admin
    ? [
        ...new Set([
          ...(caps.data?.people ?? []).map((p) => p.name),
          ...(summary.data?.people ?? []).map((p) => p.name),
        ]),
      ].sort()
    : null;
  return (
    <Page
      title="Spending"
      lead="Every purchase and what it cost, the approvals waiting, and the monthly caps that limit what each person spends."
    >
      <SectionTabs label={SECTION_LABEL} tabs={SPENDING_TABS} />
      <div className="spend-grid">
        <ApprovalsCard admin={admin} me={user} />
        <LedgerCard people={people} />
        <CapsCard admin={admin} summary={summary.data} />
      </div>
    </Page>
  );
}
