import { memo } from "react";
import { describeNode } from "../../../../contract/describe";
import type { LookalikeNode } from "../../../../contract/filter";
import { useCompanyByName } from "./company-by-name";
import { fieldProblems } from "./field-problems";
import { LevelFooter } from "./match-level-control";
import { MatchReach } from "./match-reach";
import { DragHandle, type HandleProps, RowTools, RuleRow, useRowProblems } from "./node-parts";
import { problemId } from "./problem-fields";
import { reportRender } from "./render-probe";
import { Segmented, type SegmentedOption } from "./segmented";
import { type LookalikeBy, useLookalikeRow } from "./use-lookalike-row";
import { useLevelCounts } from "./use-match-reach";

const BY_OPTIONS: readonly SegmentedOption<LookalikeBy>[] = [
  { value: "domain", label: "Domain" },
  { value: "name", label: "Name" },
  { value: "rbidOrg", label: "Company ID" },
];

/** People at companies like one named by domain or company ID; the named company shown once found. */
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
  const byName = useCompanyByName(name, row.chooseCompany);
  // Counted and listed once the service knows the company (an unknown one would only be refused).
  const known = !reasons && row.lookup.kind === "found";
  const counts = useLevelCounts(node, known);
  const lookupId = `fe-lookup-${row.id}`;
  const invalid = (problems.company?.length ?? 0) > 0 || row.lookup.kind === "missing";
  const describedBy =
    [problems.company?.length ? problemId(row.id, "company") : undefined, lookupId]
      .filter(Boolean)
      .join(" ") || undefined;
  return (
    <RuleRow
      kind="lookalike"
      label={`Lookalike ${position}: ${describeNode(node)}`}
      nodeId={row.id}
      nodeProblem={Boolean(problems.node)}
      invalid={Boolean(reasons)}
    >
      <div className="fe-row-main">
        {handle ? <DragHandle handle={handle} name={name} /> : null}
        <span className="fe-row-kind">Companies like</span>
        <Segmented
          label={`Name the company of ${name} by`}
          options={BY_OPTIONS}
          value={row.by}
          onChange={row.setBy}
          dataField="by"
        />
        <div className="fe-field fe-field-text">
          {row.by === "name" ? (
            byName.field
          ) : (
            <input
              type="text"
              className="fe-input"
              aria-label={`${row.by === "domain" ? "Company domain" : "Company ID"} for ${name}`}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              placeholder={row.by === "domain" ? "e.g. northwind.example" : "Company ID (RBID)"}
              spellCheck={false}
              data-field="company"
              value={row.text}
              onChange={(event) => row.setText(event.target.value)}
            />
          )}
          {/* By name, the rule is unfinished until a company is chosen: the name field says how. */}
          {row.by === "name" ? null : fieldProblems(problemId(row.id, "company"), problems.company)}
        </div>
        <RowTools node={node} nodeId={row.id} name={name} negated={node.negate} onToggleNot={row.toggleNot} />
      </div>
      {row.by === "name" ? byName.extras : null}
      <p id={lookupId} className="fe-lookup" data-state={row.lookup.kind} role="status">
        {row.lookup.kind === "waiting"
          ? "Looking up the company…"
          : row.lookup.kind === "empty"
            ? row.by === "name"
              ? "Type its name: pick it from the contact data, or search the data service."
              : "Name a company by its web domain, its name or its company ID."
            : row.lookup.text}
      </p>
      <LevelFooter
        nodeId={row.id}
        name={name}
        match={node.match}
        maxDistance={node.maxDistance}
        onChange={row.setLevel}
        problems={problems}
        counts={counts}
        extra={<MatchReach node={node} nodeId={row.id} name={name} enabled={known && !node.negate} />}
      />
    </RuleRow>
  );
});
