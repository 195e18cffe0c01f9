import { type ReactNode, useMemo } from "react";
import type { Column } from "../../../../contract/columns";
import type { ConditionNode, Scalar } from "../../../../contract/filter";
import { OPERATOR_READS } from "../../../../contract/inferred";
import { useColumnValues } from "../../../api/column-values";
import { readableError } from "../../../ui/status";
import { ChipsInput } from "./chips-input";
import { Combobox, type ComboOption } from "./combobox";
import { fieldProblems } from "./field-problems";
import { type ProblemField, problemId } from "./problem-fields";
import { integerFromText } from "./use-condition-row";

export interface ValueEditorProps {
  node: ConditionNode;
  nodeId: string;
  column: Column | undefined;
  /** How the row is named in labels, e.g. "condition 2.1". */
  name: string;
  problems: Partial<Record<ProblemField | "node", string[]>>;
  setValue(value: Scalar): void;
  setValue2(value: Scalar): void;
  setList(list: string[]): void;
}

function asText(value: Scalar | undefined): string {
  return value === undefined || value === null ? "" : String(value);
}

/** The value editor the operator asks for: one value, a between pair, a list of chips, or none. */
export function ValueEditor({
  node,
  nodeId,
  column,
  name,
  problems,
  setValue,
  setValue2,
  setList,
}: ValueEditorProps) {
  const reads = OPERATOR_READS[node.operator];
  const integer = column?.type === "integer";
  const picksFromValues =
    column?.enumerable === true && (node.operator === "eq" || node.operator === "ne" || reads === "list");
  const values = useColumnValues(column?.name ?? "", { enabled: picksFromValues });
  const options = useMemo<ComboOption[]>(
    () => (values.data?.values ?? []).map((value) => ({ value, label: value })),
    [values.data],
  );
  const status = !picksFromValues
    ? undefined
    : values.isPending
      ? "Loading values…"
      : values.isError
        ? `Could not load the values: ${readableError(values.error)}`
        : undefined;

  const field = (key: ProblemField) => ({
    invalid: (problems[key]?.length ?? 0) > 0,
    describedBy: problems[key]?.length ? problemId(nodeId, key) : undefined,
  });

  const single = (
    key: "value" | "value2",
    label: string,
    value: Scalar | undefined,
    set: (v: Scalar) => void,
  ) => {
    const state = field(key);
    let control: ReactNode;
    if (picksFromValues && reads === "value")
      control = (
        <Combobox
          label={label}
          options={options}
          text={asText(value)}
          selected={asText(value)}
          onTextChange={(text) => set(text)}
          onSelect={(option) => set(option.value)}
          placeholder="Type or choose a value"
          invalid={state.invalid}
          describedBy={state.describedBy}
          dataField={key}
          status={status}
        />
      );
    else
      control = (
        <input
          type="text"
          className="fe-input"
          aria-label={label}
          aria-invalid={state.invalid || undefined}
          aria-describedby={state.describedBy}
          inputMode={integer ? "numeric" : undefined}
          placeholder={integer ? "A whole number" : "A value"}
          data-field={key}
          value={asText(value)}
          onChange={(event) => set(integer ? integerFromText(event.target.value) : event.target.value)}
        />
      );
    return (
      <div className="fe-field fe-field-value" key={key}>
        {control}
        {fieldProblems(problemId(nodeId, key), problems[key])}
      </div>
    );
  };

  switch (reads) {
    case "none":
      return null;
    case "value":
      return single("value", `Value of ${name}`, node.value, setValue);
    case "range":
      return (
        <div className="fe-range">
          {single("value", `Lowest value of ${name}`, node.value, setValue)}
          <span className="fe-range-and" aria-hidden="true">
            and
          </span>
          {single("value2", `Highest value of ${name}`, node.value2, setValue2)}
        </div>
      );
    case "list": {
      const state = field("valueList");
      return (
        <div className="fe-field fe-field-list">
          <ChipsInput
            label={`Values of ${name}`}
            values={node.valueList ?? []}
            onChange={setList}
            integer={integer}
            suggestions={picksFromValues ? (values.data?.values ?? []) : undefined}
            suggestionsStatus={status}
            invalid={state.invalid}
            describedBy={state.describedBy}
            dataField="valueList"
          />
          {fieldProblems(problemId(nodeId, "valueList"), problems.valueList)}
        </div>
      );
    }
  }
}
