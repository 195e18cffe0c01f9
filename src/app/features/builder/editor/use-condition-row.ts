import { useCallback, useMemo } from "react";
import { type Column, getColumn, operatorsFor } from "../../../../contract/columns";
import type { ConditionNode, Scalar } from "../../../../contract/filter";
import { OPERATOR_READS, OPERATORS, type Operator } from "../../../../contract/inferred";
import { useDispatch } from "./editor-context";
import type { NodePatch } from "./use-filter-editor";
import { parseWholeNumber } from "./value-list";

/** Text typed into a whole-number field: a number when it is one, else the text (flagged invalid). */
export function integerFromText(text: string): Scalar {
  if (text.trim() === "") return "";
  return parseWholeNumber(text) ?? text;
}

function asText(value: Scalar | undefined): string {
  return value === undefined || value === null ? "" : String(value);
}

/** A scalar carried over to a column (of another type, perhaps): what is not a number is cleared. */
function convert(value: Scalar | undefined, column: Column): Scalar {
  const text = asText(value);
  return column.type === "integer" ? (parseWholeNumber(text) ?? "") : text;
}

/**
 * The patch that puts `node` on `columnName`: the operator kept when the new column allows it
 * (else its first one, and "has" on email and mobile), operands carried over and retyped.
 */
export function columnPatch(node: ConditionNode, columnName: string): NodePatch {
  const column = getColumn(columnName);
  if (!column) return { column: columnName };
  const allowed = operatorsFor(column);
  const operator: Operator = allowed.includes(node.operator)
    ? node.operator
    : column.maskedAs
      ? "isNotNull"
      : allowed.includes("eq")
        ? "eq"
        : (allowed[0] ?? "eq");
  return { column: columnName, ...operandsPatch(node, operator, column) };
}

/** The patch that switches `node` to `operator`, keeping what can be kept of its operands. */
export function operatorPatch(node: ConditionNode, operator: Operator): NodePatch {
  const column = getColumn(node.column);
  return operandsPatch(node, operator, column);
}

function operandsPatch(node: ConditionNode, operator: Operator, column: Column | undefined): NodePatch {
  const reads = OPERATOR_READS[operator];
  const retype = (value: Scalar | undefined): Scalar => (column ? convert(value, column) : asText(value));
  const firstOfList = node.valueList?.[0];
  const scalar: Scalar | undefined =
    node.value !== undefined && node.value !== null && node.value !== ""
      ? node.value
      : firstOfList !== undefined
        ? firstOfList
        : node.value;
  const patch: NodePatch = { operator, value: undefined, value2: undefined, valueList: undefined };
  if (reads === "value") patch.value = retype(scalar);
  else if (reads === "range") {
    patch.value = retype(scalar);
    patch.value2 = retype(node.value2);
  } else if (reads === "list") {
    const list =
      node.valueList ?? (scalar !== undefined && scalar !== null && scalar !== "" ? [String(scalar)] : []);
    patch.valueList = [...list];
  }
  return patch;
}

/** Everything a condition row does, apart from how it looks. */
export function useConditionRow(node: ConditionNode) {
  const dispatch = useDispatch();
  const id = node.id ?? "";
  const column = getColumn(node.column);
  const operators = useMemo<readonly Operator[]>(() => (column ? operatorsFor(column) : OPERATORS), [column]);

  const patch = useCallback(
    (changes: NodePatch, field?: string) =>
      dispatch.update(id, changes, field === undefined ? undefined : `${id}:${field}`),
    [dispatch, id],
  );
  const changeColumn = useCallback((name: string) => patch(columnPatch(node, name)), [patch, node]);
  const changeOperator = useCallback(
    (operator: Operator) => patch(operatorPatch(node, operator)),
    [patch, node],
  );
  // Typing merges into one step and waits for a pause before counting; a value picked from a list,
  // or a chip added or removed whole, is a step of its own, counted at once.
  const setValue = useCallback((value: Scalar) => patch({ value }, "value"), [patch]);
  const pickValue = useCallback((value: Scalar) => patch({ value }), [patch]);
  const setValue2 = useCallback((value2: Scalar) => patch({ value2 }, "value2"), [patch]);
  const setList = useCallback((valueList: string[]) => patch({ valueList }), [patch]);
  const toggleNot = useCallback(() => dispatch.run("negate", id), [dispatch, id]);

  return {
    id,
    column,
    operators,
    reads: OPERATOR_READS[node.operator],
    changeColumn,
    changeOperator,
    setValue,
    pickValue,
    setValue2,
    setList,
    toggleNot,
  };
}
