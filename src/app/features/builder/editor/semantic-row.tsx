import { memo, useCallback } from "react";
import { describeNode } from "../../../../contract/describe";
import type { SemanticNode } from "../../../../contract/filter";
import type { MatchLevel } from "../../../../contract/inferred";
import { useDispatch } from "./editor-context";
import { fieldProblems } from "./field-problems";
import { MatchLineEnd, MatchProblems } from "./match-level-control";
import { useMatchReachPanel } from "./match-reach";
import { DragHandle, type HandleProps, RuleRow, useRowProblems } from "./node-parts";
import { problemId } from "./problem-fields";
import { reportRender } from "./render-probe";
import { useLevelCounts } from "./use-match-reach";

/** Everything a similarity row does, apart from how it looks. */
export function useSemanticRow(node: SemanticNode) {
  const dispatch = useDispatch();
  const id = node.id ?? "";
  const setText = useCallback((text: string) => dispatch.update(id, { text }, `${id}:text`), [dispatch, id]);
  const setLevel = useCallback(
    (match: MatchLevel) => dispatch.update(id, { match, maxDistance: undefined }),
    [dispatch, id],
  );
  const toggleNot = useCallback(() => dispatch.run("negate", id), [dispatch, id]);
  return { id, setText, setLevel, toggleNot };
}

/** A job title or company matched by meaning, on one line: the text, its level, what it takes in, NOT. */
export const SemanticRow = memo(function SemanticRow({
  node,
  position,
  handle,
}: {
  node: SemanticNode;
  position: string;
  handle: HandleProps | null;
}) {
  const row = useSemanticRow(node);
  reportRender("SemanticRow", row.id);
  const { reasons, problems } = useRowProblems(node, row.id);
  const title = node.on === "title";
  const name = `${title ? "job title match" : "company match"} ${position}`;
  const textInvalid = (problems.text?.length ?? 0) > 0;
  const complete = !reasons && node.text.trim() !== "";
  const counts = useLevelCounts(node, complete);
  const reach = useMatchReachPanel({ node, nodeId: row.id, name, enabled: complete && !node.negate });
  return (
    <RuleRow
      kind="semantic"
      label={`${title ? "Job title match" : "Company match"} ${position}: ${describeNode(node)}`}
      nodeId={row.id}
      nodeProblem={Boolean(problems.node)}
      invalid={Boolean(reasons)}
    >
      <div className="fe-row-main">
        {handle ? <DragHandle handle={handle} name={name} /> : null}
        <span className="fe-row-kind">{title ? "Job title like" : "Company like"}</span>
        <div className="fe-field fe-field-text">
          <input
            type="text"
            className="fe-input"
            aria-label={`${title ? "Job title" : "Kind of company"} for ${name}`}
            aria-invalid={textInvalid || undefined}
            aria-describedby={textInvalid ? problemId(row.id, "text") : undefined}
            placeholder={title ? "e.g. Marketing Manager" : "e.g. cloud accounting software"}
            data-field="text"
            value={node.text}
            onChange={(event) => row.setText(event.target.value)}
          />
          {fieldProblems(problemId(row.id, "text"), problems.text)}
        </div>
        <MatchLineEnd node={node} row={row} name={name} counts={counts} reach={reach} />
      </div>
      <MatchProblems nodeId={row.id} problems={problems} />
      {reach.panel}
    </RuleRow>
  );
});
