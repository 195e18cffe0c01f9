import { memo, useCallback, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { describeNode } from "../../../../contract/describe";
import type { LookalikeNode } from "../../../../contract/filter";
import { useCompanyByName } from "./company-by-name";
import { fieldProblems } from "./field-problems";
import { MatchLineEnd, MatchProblems } from "./match-level-control";
import { useMatchReachPanel } from "./match-reach";
import { DragHandle, type HandleProps, RuleRow, useRowProblems } from "./node-parts";
import { problemId } from "./problem-fields";
import { reportRender } from "./render-probe";
import { type LookalikeBy, useLookalikeRow } from "./use-lookalike-row";
import { useLevelCounts } from "./use-match-reach";

const BY_OPTIONS: readonly { value: LookalikeBy; label: string }[] = [
  { value: "domain", label: "Domain" },
  { value: "name", label: "Name" },
  { value: "rbidOrg", label: "ID" },
];

/**
 * People at companies like one named by domain, name or company ID, on one line: the company (shown
 * by name once found), the level, what it takes in, NOT.
 */
export const LookalikeRow = memo(function LookalikeRow({
  node,
  position,
  handle,
}: {
  node: LookalikeNode;
  position: string;
  handle: HandleProps | null;
}) {
  const row = useLookalikeRow(node);
  reportRender("LookalikeRow", row.id);
  const { reasons, problems } = useRowProblems(node, row.id);
  const name = `lookalike ${position}`;
  // A found company shows as its name (a button that brings the field back), except while the
  // field is being edited.
  const [editing, setEditing] = useState(false);
  const chipRef = useRef<HTMLButtonElement>(null);
  // A company chosen by name: the name field gives way to the company, which takes focus once found.
  const focusChip = useRef(false);
  const { chooseCompany } = row;
  const chosenByName = useCallback(
    (rbid: string) => {
      setEditing(false);
      focusChip.current = true;
      chooseCompany(rbid);
    },
    [chooseCompany],
  );
  const byName = useCompanyByName(name, chosenByName);
  // Counted and listed once the service knows the company (an unknown one would only be refused).
  const known = !reasons && row.lookup.kind === "found";
  const counts = useLevelCounts(node, known);
  const reach = useMatchReachPanel({ node, nodeId: row.id, name, enabled: known && !node.negate });
  const lookupId = `fe-lookup-${row.id}`;
  // What the service said of the company, in the line (cut short there, whole in its title).
  const lookupText =
    row.lookup.kind === "waiting"
      ? "Looking up…"
      : row.lookup.kind === "empty"
        ? row.by === "name"
          ? "Type its name: pick it from the contact data, or search the data service."
          : "Name a company by its web domain, its name or its company ID."
        : row.lookup.text;
  const invalid = (problems.company?.length ?? 0) > 0 || row.lookup.kind === "missing";
  const input = useRef<HTMLInputElement>(null);
  const chip = row.lookup.kind === "found" && row.by !== "name" && !editing ? row.lookup : null;
  const startEditing = () => {
    flushSync(() => setEditing(true));
    input.current?.focus();
    input.current?.select();
  };
  // The chip had focus when it gave way to the field (an undo changed the company, a lookup
  // failed): focus goes on in the field rather than to the page.
  const chipFocused = useRef(false);
  useLayoutEffect(() => {
    const active = document.activeElement;
    const nowhere = active === null || active === document.body;
    if (chip && focusChip.current) {
      focusChip.current = false;
      if (nowhere) chipRef.current?.focus();
    } else if (!chip && chipFocused.current) {
      chipFocused.current = false;
      if (nowhere) input.current?.focus();
    }
  }, [chip]);
  const chipId = `fe-chip-${row.id}`;
  const describedBy =
    [problems.company?.length ? problemId(row.id, "company") : undefined, lookupId]
      .filter(Boolean)
      .join(" ") || undefined;
  return (
    <RuleRow
      kind="lookalike"
      label={`Lookalike ${position}: ${describeNode(node, () => (row.lookup.kind === "found" ? row.lookup.name : undefined))}`}
      nodeId={row.id}
      nodeProblem={Boolean(problems.node)}
      invalid={Boolean(reasons)}
    >
      <div className="fe-row-main">
        {handle ? <DragHandle handle={handle} name={name} /> : null}
        <span className="fe-row-kind">
          {/* Shortened where the editor is narrow, so that a found company still fits the line. */}
          <span className="fe-kind-long">Lookalikes of</span>
          <span className="fe-kind-short" aria-hidden="true">
            Like
          </span>
        </span>
        <select
          className="fe-select fe-by"
          aria-label={`Name the company of ${name} by`}
          data-field="by"
          value={row.by}
          onChange={(event) => row.setBy(event.target.value as LookalikeBy)}
        >
          {BY_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <div className="fe-field fe-field-text">
          {chip ? (
            // The company, once found, by its name: what the domain or ID was typed to say.
            <>
              <button
                ref={chipRef}
                type="button"
                className="fe-company-chip"
                aria-describedby={chipId}
                title={`${lookupText} (${row.text}). Press to change it.`}
                data-field="company"
                onFocus={() => {
                  chipFocused.current = true;
                }}
                onBlur={(event) => {
                  // Removed while focused, the chip blurs with nowhere to go: that is kept in mind.
                  if (event.relatedTarget) chipFocused.current = false;
                }}
                onClick={() => startEditing()}
              >
                <span className="fe-company-chip-name">{chip.name}</span>{" "}
                <span className="fe-company-chip-ref">{row.text}</span>
              </button>
              <span id={chipId} className="visually-hidden">
                {`The company of ${name}, by its ${row.by === "domain" ? "domain" : "company ID"}. Press to change it.`}
              </span>
            </>
          ) : row.by === "name" ? (
            byName.field
          ) : (
            <input
              ref={input}
              type="text"
              className="fe-input"
              aria-label={`${row.by === "domain" ? "Company domain" : "Company ID"} for ${name}`}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              placeholder={row.by === "domain" ? "e.g. northwind.example" : "Company ID"}
              spellCheck={false}
              data-field="company"
              value={row.text}
              onFocus={() => setEditing(true)}
              onBlur={() => {
                setEditing(false);
                row.tidyDomain();
              }}
              onChange={(event) => row.setText(event.target.value)}
            />
          )}
        </div>
        <span
          id={lookupId}
          className={`fe-lookup${row.lookup.kind === "empty" || chip ? " visually-hidden" : ""}`}
          data-state={row.lookup.kind}
          role="status"
          title={lookupText}
        >
          {row.lookup.kind === "found" ? (
            // In the line, the company's name alone: "Like:" is what the row already says, and
            // its industry is in the title (and said to screen readers).
            <>
              <span className="visually-hidden">Like: </span>
              {row.lookup.name}
              {row.lookup.industry ? (
                <span className="visually-hidden">{` — ${row.lookup.industry}`}</span>
              ) : null}
            </>
          ) : (
            lookupText
          )}
        </span>
        <MatchLineEnd node={node} row={row} name={name} counts={counts} reach={reach} />
      </div>
      {/* Under the line, where it has room. By name, the rule is unfinished until a company is
          chosen: the name field says how. */}
      {row.by === "name" ? null : fieldProblems(problemId(row.id, "company"), problems.company)}
      {row.by === "name" ? byName.extras : null}
      <MatchProblems nodeId={row.id} problems={problems} />
      {reach.panel}
    </RuleRow>
  );
});
