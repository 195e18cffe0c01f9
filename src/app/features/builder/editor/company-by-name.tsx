import { useId, useMemo, useState } from "react";
import { getColumn } from "../../../../contract/columns";
import { companiesNamed } from "../../../api/value-counts";
import { formatCredits } from "../../../lib/format";
import { useAbilities } from "../../../lib/roles";
import { isWaiting } from "../../../lib/spend";
import { ApprovalNotice } from "../../../ui/approval-notice";
import { SpendNotice } from "../../../ui/spend-notice";
import { readableError } from "../../../ui/status";
import { RESOLVE_PRICE, RESOLVE_RESULTS, useResolveCompanySpend } from "../api/company-by-name";
import { Combobox, type ComboOption } from "./combobox";
import { useValueSuggestions } from "./use-values-that-exist";

const COMPANY_NAME = getColumn("COMPANY_NAME_ORG");

/**
 * A lookalike's company found by its name: the companies of the contact data as one types (free,
 * with their people), or, by an explicit click that says its price, the data service's search by
 * name, which knows companies beyond the contact data. Either way the rule then names the company by
 * its ID. The name field sits in the row's line; what the search says, under the row.
 */
export function useCompanyByName(name: string, onChosen: (rbidOrg: string) => void) {
  const id = useId();
  const [text, setText] = useState("");
  const [wanted, setWanted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const { suggestions, status } = useValueSuggestions(COMPANY_NAME, text, wanted);
  const options = useMemo<ComboOption[]>(
    () =>
      (suggestions ?? []).map((s) =>
        s.hint ? { value: s.value, label: s.value, hint: s.hint } : { value: s.value, label: s.value },
      ),
    [suggestions],
  );
  const search = useResolveCompanySpend();
  const { state } = search;
  const cannotBuy = useAbilities().why("buy");
  const typed = text.trim();

  const choose = async (companyName: string) => {
    setText(companyName);
    setNote(null);
    try {
      const ids = (await companiesNamed(companyName, "RBID_ORG")).map((company) => company.value);
      const [first] = ids;
      if (!first) {
        setNote(`No company of the contact data is named “${companyName}”.`);
        return;
      }
      if (ids.length > 1)
        setNote(`${ids.length} companies are named “${companyName}”: the one with the most people is used.`);
      onChosen(first);
    } catch (error) {
      setNote(`Could not find its company ID: ${readableError(error)}`);
    }
  };
  const searchService = () => {
    if (isWaiting(state)) search.forget();
    else search.reset();
    search.confirm([{ company_name: typed, result_count: RESOLVE_RESULTS }], `Find the company “${typed}”`);
  };
  const found = state.phase === "done" ? (state.results[0]?.companies ?? []) : null;

  const field = (
    <Combobox
      label={`Company name for ${name}`}
      options={options}
      text={text}
      onTextChange={(next) => {
        setText(next);
        setNote(null);
      }}
      onSelect={(option) => void choose(option.value)}
      onFocus={() => setWanted(true)}
      placeholder="Type a company name"
      status={status}
      dataField="company"
    />
  );
  const extras = (
    <div className="fe-by-name">
      {note ? <p className="fe-note">{note}</p> : null}
      {typed !== "" ? (
        <p className="fe-note fe-by-name-search">
          Not in the list?{" "}
          <button
            type="button"
            className="fe-link-button"
            onClick={searchService}
            disabled={search.busy || cannotBuy !== null}
            title={cannotBuy ?? undefined}
          >
            {search.busy
              ? "Searching…"
              : `Search the data service for “${typed}” (${formatCredits(RESOLVE_PRICE)})`}
          </button>
        </p>
      ) : null}
      {state.phase === "failed" ? (
        <p className="fe-note fe-by-name-error">{readableError(state.error)}</p>
      ) : null}
      {isWaiting(state) ? (
        <SpendNotice
          className="alert"
          state={state}
          words={{ what: "the search by name", check: "the balance on the Account page" }}
          onRetry={search.retry}
          onBuyAgain={search.buyAgain}
          onForget={search.forget}
        />
      ) : null}
      {state.phase === "approval" || state.phase === "denied" ? (
        <ApprovalNotice
          state={state}
          what="the search by name"
          onSeen={search.approvalSeen}
          onResume={search.resume}
          onForget={search.forget}
        />
      ) : null}
      {found ? (
        found.length === 0 ? (
          <p className="fe-note">The data service knows no company by that name.</p>
        ) : (
          <ul
            className="fe-by-name-results"
            aria-label={`Companies the data service found for ${name}`}
            id={id}
          >
            {found.map((company) => (
              <li key={company.rbid}>
                <span>
                  {company.company_name}
                  {[company.headquarters_city, company.headquarters_country].filter(Boolean).length > 0
                    ? ` — ${[company.headquarters_city, company.headquarters_country].filter(Boolean).join(", ")}`
                    : ""}
                </span>
                <button
                  type="button"
                  className="fe-link-button"
                  aria-label={`Use ${company.company_name}`}
                  onClick={() => onChosen(company.rbid)}
                >
                  Use this one
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </div>
  );
  return { field, extras };
}
