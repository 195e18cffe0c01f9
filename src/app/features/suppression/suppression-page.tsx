import { useState } from "react";
import { useAbilities } from "../../lib/roles";
import { Card } from "../../ui/card";
import { Page } from "../../ui/page";
import { RoleNotice } from "../../ui/role-notice";
import { SECTION_LABEL, SectionTabs, SPENDING_TABS } from "../../ui/section-tabs";
import { LoadFailedAlert, LoadingNote } from "../../ui/status";
import { useSuppressionLists } from "./api/lists";
import { ImportForm } from "./import-form";
import { ListItem } from "./list-item";
import "./suppression.css";

/** An analyst reads the lists; changing them is for whoever may spend (the proxy's rule). */
export function SuppressionRoleNotice() {
  return (
    <RoleNotice
      ability="buy"
      cannot="the lists can be read here, not changed."
      why="Creating, adding to and deleting the team's do-not-contact lists needs a buyer or an admin: ask an admin of your team."
      still="Every purchase leaves out the people and companies on these lists, whoever buys."
    />
  );
}

/**
 * The team's do-not-contact (suppression) lists: people and companies never bought, never in a
 * file. Every Export, Enrich and sample with contact details leaves them out.
 */
export function SuppressionPage() {
  const { may } = useAbilities();
  const canChange = may("buy");
  const lists = useSuppressionLists();
  const [said, setSaid] = useState("");
  const all = lists.data?.lists ?? [];
  return (
    <Page
      title="Do-not-contact lists"
      lead="The team's lists of people and companies it must never contact. Every export, enrichment and sample with contact details leaves them out, and never charges for them."
    >
      <SectionTabs label={SECTION_LABEL} tabs={SPENDING_TABS} />
      <SuppressionRoleNotice />
      <div className={canChange ? "sup-grid" : "sup-grid sup-grid-read"}>
        <Card title="Lists">
          <p className="sup-done" aria-live="polite">
            {said}
          </p>
          {lists.isPending ? (
            <LoadingNote what="the lists" />
          ) : lists.isError ? (
            <LoadFailedAlert
              what="the lists"
              error={lists.error}
              onRetry={() => void lists.refetch()}
              className="sup-alert"
            />
          ) : all.length === 0 ? (
            <p className="muted">The team has no do-not-contact list yet.</p>
          ) : (
            <ul className="sup-lists">
              {all.map((list) => (
                <ListItem
                  key={list.id}
                  list={list}
                  canChange={canChange}
                  onDeleted={(name) => setSaid(`${name} was deleted.`)}
                />
              ))}
            </ul>
          )}
        </Card>
        {canChange ? (
          <Card title="New list">
            <p className="muted sup-small">
              Paste the entries or upload a CSV file (read here, in the browser). Email addresses apply where
              they match a contact the team already has; the other kinds apply to every purchase.
            </p>
            <ImportForm onDone={(result) => setSaid(`${result.list.name} was created.`)} />
          </Card>
        ) : null}
      </div>
    </Page>
  );
}
