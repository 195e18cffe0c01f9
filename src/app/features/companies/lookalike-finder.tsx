import { useState } from "react";
import type { ConditionNode, FilterNode, LookalikeNode } from "../../../contract/filter";
import { DEFAULT_MATCH_LEVEL } from "../../../contract/inferred";
import { valueCondition } from "../../lib/filter/tree";
import { formatNumber } from "../../lib/format";
import { ErrorPanel } from "../../ui/status";
import { type NamedCompany, useCompaniesNamed } from "./api/companies-named";
import { lookalikeErrorText, useLookalikes } from "./api/lookalike";
import { LookalikeForm } from "./lookalike-form";
import { type LookalikeSearch, type NamedSearch, namedRequest } from "./lookalike-form-schema";
import { companyName, LookalikeResults, type UseAs } from "./lookalike-results";
import "./companies.css";

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);

/**
 * The lookalike rule for a company: by its domain when it has one (the Builder and the summary then
 * read "a company similar to acme.com"), else by its company id; at the default match level.
 */
export function lookalikeNodeFor(company: Record<string, unknown>): LookalikeNode | null {
  const domain = text(company.DOMAIN_ORG);
  const rbidOrg = text(company.RBID_ORG);
  if (domain === null && rbidOrg === null) return null;
  return {
    type: "lookalike",
    domain: domain ?? "",
    rbidOrg: domain === null ? (rbidOrg ?? "") : "",
    match: DEFAULT_MATCH_LEVEL,
    negate: false,
  };
}

/** The rule for the company itself: its domain (one company), else its name, else its id. */
export function companyNodeFor(company: Record<string, unknown>): ConditionNode | null {
  for (const column of ["DOMAIN_ORG", "COMPANY_NAME_ORG", "RBID_ORG"]) {
    const value = text(company[column]);
    if (value !== null) return valueCondition(column, value);
  }
  return null;
}

/**
 * Finds companies like one the person knows and adds any of them to the working audience, as the
 * company itself or as a lookalike rule (`onAdd` opens the Builder with it).
 */
export function LookalikeFinder({ onAdd }: { onAdd(node: FilterNode): void }) {
  const [search, setSearch] = useState<LookalikeSearch | null>(null);
  /** The company picked among several of one name. */
  const [chosen, setChosen] = useState<NamedCompany | null>(null);
  const [useError, setUseError] = useState<string | null>(null);
  const named = search !== null && "named" in search ? search.named : null;
  const candidates = useCompaniesNamed(named?.name ?? null);
  const only = candidates.data?.length === 1 ? candidates.data[0]! : null;
  const picked = named ? (chosen ?? only) : null;
  const request =
    search === null
      ? null
      : "request" in search
        ? search.request
        : picked && named
          ? namedRequest(named, picked)
          : null;
  const query = useLookalikes(request);
  // A new search whose answer has not come yet still shows the last one (dimmed), never a blank.
  const searching = query.isFetching || candidates.isFetching;

  const use = (company: Record<string, unknown>, as: UseAs) => {
    const node = as === "company" ? companyNodeFor(company) : lookalikeNodeFor(company);
    if (node === null) {
      setUseError(`${companyName(company)} has neither a domain nor a company id to make a rule of.`);
      return;
    }
    onAdd(node);
  };

  let status: string;
  if (named && candidates.isFetching) status = `Finding the companies named “${named.name}”…`;
  else if (request === null) status = "";
  else if (query.isError) status = "";
  else if (searching) status = "Finding lookalikes…";
  else if (query.data)
    status = `Found ${query.data.companies.length} ${query.data.companies.length === 1 ? "company" : "companies"} like ${companyName(query.data.source)}.`;
  else status = "";

  const notFound = query.isError ? lookalikeErrorText(query.error, request) : null;

  return (
    <section className="card lookalike-finder" aria-labelledby="lookalike-title">
      <h2 className="card-title" id="lookalike-title">
        Find lookalike companies
      </h2>
      <p className="companies-lead">
        Name a company you know; see the companies most like it, and add any of them to your audience as a
        lookalike rule.
      </p>
      <LookalikeForm
        busy={searching}
        onSubmit={(next) => {
          setUseError(null);
          if (JSON.stringify(next) !== JSON.stringify(search)) {
            setSearch(next);
            setChosen(null);
          } else if (named && candidates.isError) void candidates.refetch();
          else if (request !== null) void query.refetch();
        }}
      />
      {named ? (
        <NamedCompanies
          search={named}
          candidates={candidates.data}
          error={candidates.isError ? candidates.error : null}
          onRetry={() => void candidates.refetch()}
          picked={picked}
          several={(candidates.data?.length ?? 0) > 1}
          onPick={setChosen}
        />
      ) : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {useError ? (
        <div className="alert" role="alert">
          <p>{useError}</p>
        </div>
      ) : null}
      {request === null ? null : query.isError ? (
        notFound ? (
          <div className="alert" role="alert">
            <p>{notFound}</p>
          </div>
        ) : (
          <div className="lookalike-output">
            <ErrorPanel
              title="The lookalikes could not be found"
              error={query.error}
              onRetry={() => void query.refetch()}
            />
          </div>
        )
      ) : query.data ? (
        <div
          className="lookalike-output"
          data-stale={query.isPlaceholderData || undefined}
          aria-busy={searching}
        >
          <LookalikeResults answer={query.data} onUse={use} />
        </div>
      ) : searching ? (
        <p className="muted lookalike-searching" aria-hidden="true">
          Finding lookalikes…
        </p>
      ) : null}
    </section>
  );
}

const companyWords = (company: NamedCompany) =>
  `${company.value} (${formatNumber(company.people)} ${company.people === 1 ? "person" : "people"})`;

/**
 * The company a search by name found: none (said, with what to try), one (named), or several, to
 * choose from by their domains, most people first.
 */
function NamedCompanies({
  search,
  candidates,
  error,
  onRetry,
  picked,
  several,
  onPick,
}: {
  search: NamedSearch;
  candidates: NamedCompany[] | undefined;
  error: unknown;
  onRetry(): void;
  picked: NamedCompany | null;
  several: boolean;
  onPick(company: NamedCompany | null): void;
}) {
  if (error)
    return (
      <ErrorPanel
        title={`The companies named “${search.name}” could not be found`}
        error={error}
        onRetry={onRetry}
      />
    );
  if (candidates === undefined) return null;
  if (candidates.length === 0)
    return (
      <div className="alert" role="alert">
        <p>
          No company of the contact data is named “{search.name}”. Check the spelling, or search by its
          website domain.
        </p>
      </div>
    );
  if (picked)
    return (
      <p className="lookalike-named">
        “{search.name}” is {companyWords(picked)}.
        {several ? (
          <>
            {" "}
            <button type="button" className="button button-quiet" onClick={() => onPick(null)}>
              Choose another of the {candidates.length}
            </button>
          </>
        ) : null}
      </p>
    );
  return (
    <div className="lookalike-named">
      <p id="named-companies-title">
        {candidates.length} companies are named “{search.name}”. Which one do you mean?
      </p>
      <ul className="lookalike-named-list" aria-labelledby="named-companies-title">
        {candidates.map((company) => (
          <li key={company.value}>
            <button type="button" className="button button-secondary" onClick={() => onPick(company)}>
              {companyWords(company)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
