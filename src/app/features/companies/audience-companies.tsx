import { useQuery } from "@tanstack/react-query";
import type { FilterNode, GroupNode } from "../../../contract/filter";
import { valueCondition } from "../../lib/filter/tree";
import { formatNumber } from "../../lib/format";
import { ErrorPanel } from "../../ui/status";
import { type AddableValue, AddableValues, peopleText } from "./addable-values";
import { COMPANY_GROUP_FIELD, useAudienceCompanies } from "./api/audience-companies";
import { type CompanyFact, companyDetailsQueryOptions } from "./api/company-details";

/** A fact as read in the line: the value, or how many when several companies share the name. */
function factText(fact: CompanyFact, plural: string, suffix = ""): string | null {
  if (fact === null) return null;
  return "value" in fact ? `${fact.value}${suffix}` : `${fact.several} ${plural}`;
}

/** "acme.com · Software Development · 51-200 employees": what the data gives, asked when shown. */
function CompanyFacts({ name }: { name: string }) {
  const { data, isError } = useQuery(companyDetailsQueryOptions(name));
  if (data === undefined)
    return <span aria-busy={!isError}>{isError ? "Its details could not be loaded." : "…"}</span>;
  const parts = [
    factText(data.domain, "domains"),
    factText(data.industry, "industries"),
    factText(data.size, "sizes", " employees"),
  ].filter((part) => part !== null);
  return <>{parts.length > 0 ? parts.join(" · ") : "No domain, industry or size given"}</>;
}

/**
 * The companies of the working audience with their people, most first, 20 at a time, each with its
 * domain, industry and size; each adds "Company is …" to the audience in one click.
 */
export function AudienceCompanies({
  filter,
  companies,
  onAdd,
}: {
  filter: GroupNode;
  /** How many companies the audience spans (the company count). */
  companies: number;
  onAdd(node: FilterNode): void;
}) {
  const query = useAudienceCompanies(filter, companies > 0);
  if (companies === 0) return null;
  if (query.isError && query.data === undefined)
    return (
      <ErrorPanel
        title="The audience's companies could not be listed"
        error={query.error}
        onRetry={() => void query.refetch()}
      />
    );
  if (query.data === undefined)
    return (
      <p className="muted" role="status">
        Listing the companies…
      </p>
    );

  const pages = query.data.pages;
  const items: AddableValue[] = pages.flatMap((page) =>
    page.companies.map((company) => ({
      key: company.name ?? "\u0000none",
      label: company.name ?? "Company not given",
      people: company.people,
      node: valueCondition(COMPANY_GROUP_FIELD, company.name),
      ...(company.name === null ? {} : { detail: <CompanyFacts name={company.name} /> }),
    })),
  );
  const left = pages.at(-1)?.peopleLeft ?? 0;
  const more = Math.max(0, companies - items.length);
  return (
    <div className="audience-companies">
      <h3 className="audience-companies-title">Its companies, most people first</h3>
      <AddableValues items={items} onAdd={onAdd} label="Companies in this audience" />
      <div className="audience-companies-more">
        <p className="muted" role="status" aria-live="polite">
          {more > 0 && left > 0
            ? `${formatNumber(items.length)} of ${formatNumber(companies)} companies shown; ${peopleText(left)} work at the other ${formatNumber(more)}.`
            : `All ${formatNumber(items.length)} ${items.length === 1 ? "company" : "companies"} shown.`}
        </p>
        {query.hasNextPage ? (
          <button
            type="button"
            className="button button-secondary"
            disabled={query.isFetchingNextPage}
            onClick={() => void query.fetchNextPage()}
          >
            {query.isFetchingNextPage ? "Listing…" : "Show 20 more"}
          </button>
        ) : null}
      </div>
      {query.isFetchNextPageError ? (
        <ErrorPanel
          title="The next companies could not be listed"
          error={query.error}
          onRetry={() => void query.fetchNextPage()}
        />
      ) : null}
    </div>
  );
}
