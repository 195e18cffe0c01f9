import { useState } from "react";
import { useLocation } from "wouter";
import type { LookalikeNode } from "../../../contract/filter";
import { DEFAULT_MATCH_LEVEL } from "../../../contract/inferred";
import { browserStorage } from "../../lib/store";
import { appendToWorkingAudience } from "../../lib/working-tree";
import { ErrorPanel } from "../../ui/status";
import { type LookalikeRequest, lookalikeErrorText, useLookalikes } from "./api/lookalike";
import { LookalikeForm } from "./lookalike-form";
import { companyName, LookalikeResults } from "./lookalike-results";
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

/**
 * Finds companies like one the person knows and turns any of them (or the company itself) into a
 * lookalike rule of the working audience: the rule is added and the Builder opens with it.
 */
export function LookalikeFinder() {
  const [request, setRequest] = useState<LookalikeRequest | null>(null);
  const [useError, setUseError] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const query = useLookalikes(request);
  // A new search whose answer has not come yet still shows the last one (dimmed), never a blank.
  const searching = query.isFetching;

  const use = (company: Record<string, unknown>) => {
    const node = lookalikeNodeFor(company);
    if (node === null) {
      setUseError(`${companyName(company)} has neither a domain nor a company id to make a rule of.`);
      return;
    }
    const result = appendToWorkingAudience(browserStorage(), node, window.location);
    if (!result.ok) {
      setUseError(result.error);
      return;
    }
    navigate(result.href);
  };

  let status: string;
  if (request === null) status = "";
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
          if (JSON.stringify(next) === JSON.stringify(request)) void query.refetch();
          else setRequest(next);
        }}
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {useError ? (
        <div className="alert" role="alert">
          <p>{useError}</p>
        </div>
      ) : null}
      {query.isError ? (
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
