import { useState } from "react";
import type { GroupNode } from "../../../contract/filter";
import { DOLLARS_PER_CREDIT } from "../../../contract/pricing";
import { useCredits } from "../../api/credits";
import type { CheckedSelection } from "../../lib/selection-check";
import { pendingPurchase } from "../../lib/spend-journal";
import { browserStorage } from "../../lib/store";
import { RoleNotice } from "../../ui/role-notice";
import { AudienceLabelContext } from "./audience-label";
import { CheckoutTabs } from "./checkout-tabs";
import { EnrichPanel } from "./enrich-panel";
import { ExportHistory } from "./export-history";
import { ExportPanel } from "./export-panel";
import { PreviewPanel } from "./preview-panel";
import { activeExport } from "./saved-results";
import "./checkout.css";

export const CHECKOUT_TABS = ["export", "enrich", "preview"] as const;
export type CheckoutTabId = (typeof CHECKOUT_TABS)[number];

/**
 * The tab to open with: the one with an unfinished purchase (a reload mid-purchase returns to it),
 * else the one asked for in the address (`?tab=`), else Enrich when people are selected, else Export.
 */
export function initialTab(search: string, selected: number, storage: Storage | null): CheckoutTabId {
  for (const kind of ["enrich", "preview", "export"] as const)
    if (pendingPurchase(storage, kind)) return kind;
  const followed = activeExport.get();
  if (followed && (followed.lastStatus === "QUEUED" || followed.lastStatus === "PROCESSING")) return "export";
  const asked = new URLSearchParams(search).get("tab");
  if (asked && (CHECKOUT_TABS as readonly string[]).includes(asked)) return asked as CheckoutTabId;
  return selected > 0 ? "enrich" : "export";
}

/**
 * For a person who may not buy (an analyst): what they can do, and why nothing here can be bought,
 * before anything else on the page. Nothing for a buyer or an admin.
 */
export function CheckoutRoleNotice() {
  return (
    <RoleNotice
      ability="buy"
      cannot="nothing can be bought here."
      why="Buying contacts needs a buyer or an admin: ask an admin of your team."
      still="You can still estimate an export and review what a preview or an enrichment would cost; the confirm buttons stay off, and files bought by others cannot be downloaded."
    />
  );
}

export interface CheckoutWorkspaceProps {
  /** The audience, as sent to the service. */
  filter: GroupNode;
  valid: boolean;
  description: string;
  count: number | null;
  /** The people ticked in the sample, checked against this audience: only `kept` are bought. */
  selection: CheckedSelection;
  /** The saved audience bought from ("name, version N"), for the ledger; null when none is open. */
  audienceLabel?: string | null;
  /** Its name alone (an export is named after it). */
  audienceName?: string | null;
}

/** Enrich, Preview and Export as tabs, the export history below, and how credits are priced. */
export function CheckoutWorkspace({
  filter,
  valid,
  description,
  count,
  selection,
  audienceLabel = null,
  audienceName = null,
}: CheckoutWorkspaceProps) {
  const [tab, setTab] = useState<string>(() =>
    initialTab(window.location.search, selection.ids.length, browserStorage()),
  );
  const credits = useCredits();
  const plan = credits.data?.plan ?? null;
  return (
    <AudienceLabelContext.Provider value={audienceLabel}>
      <section className="card checkout-workspace" aria-label="Buy contact data">
        <CheckoutTabs
          label="Ways to buy"
          selected={tab}
          onSelect={setTab}
          tabs={[
            {
              id: "export",
              label: "Export a file",
              lead: "A CSV of the audience, or of exactly the people you selected. Estimate it first: the price is shown before anything is charged.",
              content: (
                <ExportPanel
                  filter={filter}
                  valid={valid}
                  description={description}
                  count={count}
                  selection={selection}
                  audienceName={audienceName}
                />
              ),
            },
            {
              id: "enrich",
              label: "Enrich chosen people",
              lead: "The full rows of the people you selected in the sample, or of a list of ids or emails, shown here at once.",
              content: <EnrichPanel selection={selection} />,
            },
            {
              id: "preview",
              label: "Preview first rows",
              lead: "Up to 100 of the audience's first rows, full and revealed as you choose, shown here at once.",
              content: <PreviewPanel filter={filter} valid={valid} description={description} count={count} />,
            },
          ]}
        />
        {plan ? (
          <p className="checkout-pricing-note">
            {plan === "AYCE"
              ? "Your plan (AYCE) includes contact rows: previews, enrichments and exports cost 0 credits."
              : `Pay as you go: 1 credit per row, +1 per revealed email found, +3 per revealed mobile found. A credit is about $${DOLLARS_PER_CREDIT}.`}
          </p>
        ) : null}
      </section>
      <ExportHistory plan={plan} />
    </AudienceLabelContext.Provider>
  );
}
