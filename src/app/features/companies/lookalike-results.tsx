import type { ReactNode } from "react";
import { COMPANY_COLUMNS, labelOf } from "../../../contract/columns";
import { cellText, RecordsTable } from "../../ui/records-table";
import type { LookalikeAnswer } from "./api/lookalike";
import { formatSimilarity, similarityWords } from "./similarity";

type Company = Record<string, unknown>;

/** Pseudo-columns of the table, drawn by the table's `renderCell`. */
const SIMILARITY = "distance";
const ACTION = "use";

/** The name of a company for people: its name, else its domain, else its id. */
export function companyName(company: Company): string {
  for (const key of ["COMPANY_NAME_ORG", "DOMAIN_ORG", "RBID_ORG"]) {
    const value = company[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return "this company";
}

/** What a lookalike is read by, first after how similar it is: where it is on the web, what it does, its size. */
const FIRST_COLUMNS = ["WEBSITE_ORG", "INDUSTRY_LINKEDIN_ORG", "EMPLOYEE_COUNT_RANGE_ORG", "DOMAIN_ORG"];

/**
 * A company's columns as people read them: its website, industry, size and domain, the other
 * columns in the catalogue's order (so `*` reads the same as the column picker), the company ID
 * last. The name is not among them: it heads the row or the card.
 */
function orderedFields(returned: ReadonlySet<string>): string[] {
  const placed = new Set(["COMPANY_NAME_ORG", "RBID_ORG", SIMILARITY, ...FIRST_COLUMNS]);
  const first = FIRST_COLUMNS.filter((name) => returned.has(name));
  const ordered = COMPANY_COLUMNS.filter((name) => returned.has(name) && !placed.has(name));
  const extra = [...returned].filter((name) => !COMPANY_COLUMNS.includes(name) && name !== SIMILARITY);
  return [...first, ...ordered, ...extra, ...(returned.has("RBID_ORG") ? ["RBID_ORG"] : [])];
}

/** The table's columns: the company's name, how similar, the actions, then its fields (`orderedFields`). */
export function resultColumns(answer: LookalikeAnswer): string[] {
  const returned = new Set(Object.keys(answer.source));
  for (const company of answer.companies) for (const key of Object.keys(company)) returned.add(key);
  const name = returned.has("COMPANY_NAME_ORG") ? ["COMPANY_NAME_ORG"] : [];
  return [...name, SIMILARITY, ACTION, ...orderedFields(returned)];
}

/**
 * A company's website as a link, shown without its scheme and www.; only an http(s) address is linked (the
 * data is not ours to trust). undefined for anything else, which is then shown as text.
 */
function websiteLink(value: unknown): ReactNode | undefined {
  if (typeof value !== "string" || !/^https?:\/\/[^\s]+$/i.test(value.trim())) return undefined;
  const href = value.trim();
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className="lookalike-website">
      {href.replace(/^https?:\/\/(www\.)?/i, "").replace(/\/$/, "")}
    </a>
  );
}

function Similarity({ distance }: { distance: unknown }) {
  const value = typeof distance === "number" ? distance : Number.NaN;
  return (
    <span className="similarity">
      <span className="similarity-words">{similarityWords(value)}</span>{" "}
      <span className="similarity-number">{formatSimilarity(value)}</span>
    </span>
  );
}

export type UseAs = "company" | "lookalike";

const USE_AS: readonly { as: UseAs; words: string }[] = [
  { as: "company", words: "Company" },
  { as: "lookalike", words: "Lookalike" },
];

/** The row's two ways into the audience: the company itself, or companies like it. */
function UseButtons({ company, onUse }: { company: Company; onUse(company: Company, as: UseAs): void }) {
  const name = companyName(company);
  return (
    <span className="lookalike-use-buttons">
      {USE_AS.map(({ as, words }) => (
        <button
          key={as}
          type="button"
          className="button button-secondary lookalike-use"
          aria-label={`Add ${as}: ${name}`}
          onClick={() => onUse(company, as)}
        >
          <span aria-hidden="true">+</span> {words}
        </button>
      ))}
    </span>
  );
}

/** The company searched from, as a card: its returned columns, and the same action as each result. */
function SourceCard({ source, onUse }: { source: Company; onUse(company: Company, as: UseAs): void }) {
  const fields = orderedFields(new Set(Object.keys(source)));
  return (
    <section className="lookalike-source" aria-labelledby="lookalike-source-title">
      <div className="lookalike-source-head">
        <div>
          <p className="lookalike-source-kicker">Companies like</p>
          <h3 className="lookalike-source-name" id="lookalike-source-title">
            {companyName(source)}
          </h3>
        </div>
        <button
          type="button"
          className="button button-secondary lookalike-use"
          onClick={() => onUse(source, "lookalike")}
        >
          Add companies like {companyName(source)}
        </button>
      </div>
      <dl className="facts lookalike-source-facts">
        {fields.map((name) => (
          <div
            key={name}
            className={
              name === "ABOUT_US_ORG"
                ? "lookalike-source-fact lookalike-source-fact-wide"
                : "lookalike-source-fact"
            }
          >
            <dt>{labelOf(name)}</dt>
            <dd>
              {(name === "WEBSITE_ORG" ? websiteLink(source[name]) : undefined) ??
                cellText(name, source[name]) ??
                "—"}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The source company and its lookalikes, nearest first, each addable as itself or as a lookalike rule. */
export function LookalikeResults({
  answer,
  onUse,
}: {
  answer: LookalikeAnswer;
  onUse(company: Company, as: UseAs): void;
}) {
  const columns = resultColumns(answer);
  const name = companyName(answer.source);
  return (
    <div className="lookalike-results">
      <SourceCard source={answer.source} onUse={onUse} />
      <RecordsTable
        rows={answer.companies}
        columns={columns}
        labels={{ [SIMILARITY]: "Similarity", [ACTION]: "Add to audience" }}
        caption={`${answer.companies.length} ${answer.companies.length === 1 ? "company" : "companies"} like ${name}, most similar first`}
        emptyText={`No companies like ${name} were found.`}
        rowKey={(row, index) => (typeof row.RBID_ORG === "string" ? row.RBID_ORG : `row-${index}`)}
        renderCell={(column, value, row) => {
          if (column === SIMILARITY) return <Similarity distance={value} />;
          if (column === ACTION) return <UseButtons company={row} onUse={onUse} />;
          if (column === "WEBSITE_ORG") return websiteLink(value);
          if (column === "RBID_ORG" && typeof value === "string")
            return <span className="mono">{value}</span>;
          return undefined;
        }}
        className="lookalike-table"
      />
      <p className="companies-hint">
        Add to audience: Company keeps the people of that company; Lookalike keeps the people of companies
        like it. Similarity compares what companies do: “nearly the same” and “very similar” are what a
        lookalike rule at the levels “same” and “similar” keeps; “related” and “broadly related” follow the
        wider levels.
      </p>
    </div>
  );
}
