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

/**
 * The table's columns: the company's name, how similar, the action, then the other columns in the
 * catalogue's order (so `*` reads the same as the column picker).
 */
export function resultColumns(answer: LookalikeAnswer): string[] {
  const returned = new Set(Object.keys(answer.source));
  for (const company of answer.companies) for (const key of Object.keys(company)) returned.add(key);
  returned.delete(SIMILARITY);
  const ordered = COMPANY_COLUMNS.filter((name) => returned.has(name) && name !== "COMPANY_NAME_ORG");
  const extra = [...returned].filter(
    (name) => !COMPANY_COLUMNS.includes(name) && name !== "COMPANY_NAME_ORG",
  );
  const name = returned.has("COMPANY_NAME_ORG") ? ["COMPANY_NAME_ORG"] : [];
  return [...name, SIMILARITY, ACTION, ...ordered, ...extra];
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

function UseButton({ company, onUse }: { company: Company; onUse(company: Company): void }) {
  return (
    <button
      type="button"
      className="button button-secondary lookalike-use"
      aria-label={`Use as lookalike condition: ${companyName(company)}`}
      onClick={() => onUse(company)}
    >
      Use as lookalike condition
    </button>
  );
}

/** The company searched from, as a card: its returned columns, and the same action as each result. */
function SourceCard({ source, onUse }: { source: Company; onUse(company: Company): void }) {
  const fields = COMPANY_COLUMNS.filter((name) => Object.hasOwn(source, name) && name !== "COMPANY_NAME_ORG");
  return (
    <section className="lookalike-source" aria-labelledby="lookalike-source-title">
      <div className="lookalike-source-head">
        <div>
          <p className="lookalike-source-kicker">Companies like</p>
          <h3 className="lookalike-source-name" id="lookalike-source-title">
            {companyName(source)}
          </h3>
        </div>
        <UseButton company={source} onUse={onUse} />
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
            <dd>{cellText(name, source[name]) ?? "—"}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The source company and its lookalikes, nearest first, each usable as a lookalike rule. */
export function LookalikeResults({
  answer,
  onUse,
}: {
  answer: LookalikeAnswer;
  onUse(company: Company): void;
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
          if (column === ACTION) return <UseButton company={row} onUse={onUse} />;
          if (column === "RBID_ORG" && typeof value === "string")
            return <span className="mono">{value}</span>;
          return undefined;
        }}
        className="lookalike-table"
      />
      <p className="companies-hint">
        Similarity compares what companies do: “nearly the same” and “very similar” are what a lookalike rule
        at the levels “same” and “similar” keeps; “related” and “broadly related” follow the wider levels.
      </p>
    </div>
  );
}
