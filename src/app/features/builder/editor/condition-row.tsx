import { memo } from "react";
import { describeNode } from "../../../../contract/describe";
import type { ConditionNode } from "../../../../contract/filter";
import type { Operator } from "../../../../contract/inferred";
import { ColumnPicker } from "./column-picker";
import { fieldProblems } from "./field-problems";
import { DragHandle, type HandleProps, RowTools, RuleRow, useRowProblems } from "./node-parts";
import { operatorWords } from "./operator-words";
import { problemId } from "./problem-fields";
import { reportRender } from "./render-probe";
import { useConditionRow } from "./use-condition-row";
import { ValueEditor } from "./value-editor";

export interface ConditionRowProps {
  node: ConditionNode;
  /** "2.1": the node's place, in labels. */
  position: string;
  /** It is the only item of a negated group: its NOT is on. */
  negated: boolean;
  handle: HandleProps | null;
}

/** One condition: field, comparison, value(s), NOT, actions; its reasons beside the fields. */
export const ConditionRow = memo(function ConditionRow({
  node,
  position,
  negated,
  handle,
}: ConditionRowProps) {
  const row = useConditionRow(node);
  reportRender("ConditionRow", row.id);
  const { reasons, problems } = useRowProblems(node, row.id);
  const name = `condition ${position}`;
  const operators: readonly Operator[] = row.operators.includes(node.operator)
    ? row.operators
    : [node.operator, ...row.operators];
  const columnInvalid = (problems.column?.length ?? 0) > 0;
  const operatorInvalid = (problems.operator?.length ?? 0) > 0;

  return (
    <RuleRow
      kind="condition"
      label={`Condition ${position}: ${describeNode(node)}`}
      nodeId={row.id}
      nodeProblem={Boolean(problems.node)}
      invalid={Boolean(reasons)}
    >
      <div className="fe-row-main">
        {handle ? <DragHandle handle={handle} name={name} /> : null}
        <div className="fe-field fe-field-column">
          <ColumnPicker
            value={node.column}
            onChange={row.changeColumn}
            label={`Field of ${name}`}
            invalid={columnInvalid}
            describedBy={columnInvalid ? problemId(row.id, "column") : undefined}
          />
          {fieldProblems(problemId(row.id, "column"), problems.column)}
        </div>
        <div className="fe-field fe-field-operator">
          <select
            className="fe-select"
            aria-label={`Comparison of ${name}`}
            aria-invalid={operatorInvalid || undefined}
            aria-describedby={operatorInvalid ? problemId(row.id, "operator") : undefined}
            data-field="operator"
            value={node.operator}
            onChange={(event) => row.changeOperator(event.target.value as Operator)}
          >
            {operators.map((operator) => (
              <option key={operator} value={operator}>
                {operatorWords(operator, row.column)}
              </option>
            ))}
          </select>
          {fieldProblems(problemId(row.id, "operator"), problems.operator)}
        </div>
        <ValueEditor
          node={node}
          nodeId={row.id}
          column={row.column}
          name={name}
          problems={problems}
          setValue={row.setValue}
          pickValue={row.pickValue}
          setValue2={row.setValue2}
          setList={row.setList}
        />
        <RowTools node={node} nodeId={row.id} name={name} negated={negated} onToggleNot={row.toggleNot} />
      </div>
      {fieldProblems(problemId(row.id, "node"), problems.node)}
    </RuleRow>
  );
});
