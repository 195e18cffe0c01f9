import type { ReactNode } from "react";
import { Link } from "wouter";
import { describe } from "../../../contract/describe";
import type { FilterNode, GroupNode } from "../../../contract/filter";
import { formatCount, formatNumber } from "../../lib/format";
import { readableError } from "../../ui/status";
import { useCompanyCount } from "./api/company-count";
import { AudienceCompanies } from "./audience-companies";
import "./companies.css";

export interface CompanyCountCardProps {
  /** The working audience as a request filter. */
  filter: GroupNode;
  /** False while a rule of the audience is unfinished: nothing is counted then. */
  valid: boolean;
  /** Why the audience is unfinished, naming the rule. */
  blockedBy?: string | undefined;
  /** The people of the audience (the page counts them); null while unknown. */
  people: number | null;
  /** Adds a company of the list to the audience. */
  onAdd(node: FilterNode): void;
}

/**
 * How many companies the working audience spans: "N companies employ the M people of this
 * audience", the companies themselves with their people, the audience in plain English and a way
 * back to the Builder to change it.
 */
export function CompanyCountCard({ filter, valid, blockedBy, people, onAdd }: CompanyCountCardProps) {
  const query = useCompanyCount(filter, valid);
  const everyone = filter.children.length === 0 && !filter.negate;

  let body: ReactNode;
  let state: string;
  if (!valid) {
    state = "blocked";
    body = (
      <p>
        This audience is unfinished{blockedBy ? `: ${blockedBy}` : ""}.{" "}
        <Link href="/">Finish it in the Builder</Link> to count its companies.
      </p>
    );
  } else if (query.isError) {
    state = "error";
    body = (
      <div className="companies-count-error" role="alert">
        <p>The company count could not be loaded. {readableError(query.error)}</p>
        <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  } else if (query.data === undefined) {
    state = "loading";
    body = <p className="muted">Counting the companies…</p>;
  } else {
    state = "ready";
    const companies = query.data.count;
    const verb = companies === 1 ? "employs" : "employ";
    body = (
      <p className="companies-count-line">
        <span className="big-number companies-count-number">{formatNumber(companies)}</span>{" "}
        <span>
          {companies === 1 ? "company" : "companies"} {verb}{" "}
          {people === null
            ? "the people of this audience"
            : `the ${formatCount(people, "person", "people")} of this audience`}
          .
        </span>
      </p>
    );
  }

  return (
    <section className="card companies-count" aria-labelledby="companies-count-title">
      <h2 className="card-title" id="companies-count-title">
        Companies in your audience
      </h2>
      <div className="companies-count-body" aria-live="polite" data-state={state}>
        {body}
      </div>
      <div className="companies-count-audience">
        <p>
          <span className="muted">Audience: </span>
          {everyone ? "Everyone (no rules yet)" : describe(filter)}
        </p>
        <Link href="/" className="button button-secondary">
          {everyone ? "Build an audience" : "Change it in the Builder"}
        </Link>
      </div>
      {state === "ready" && query.data ? (
        <AudienceCompanies filter={filter} companies={query.data.count} onAdd={onAdd} />
      ) : null}
    </section>
  );
}
