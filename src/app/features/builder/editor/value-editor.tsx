import { type ReactNode, useMemo, useState } from "react";
import type { Column } from "../../../../contract/columns";
import type { ConditionNode, Scalar } from "../../../../contract/filter";
import { OPERATOR_READS } from "../../../../contract/inferred";
import { valueKey } from "../../../api/value-counts";
import { AbsentValuesNote } from "./absent-values-note";
import { ChipsInput } from "./chips-input";
import { Combobox, type ComboOption } from "./combobox";
import { fieldProblems } from "./field-problems";
import { type ProblemField, problemId } from "./problem-fields";
import { integerFromText } from "./use-condition-row";
import { useValueSuggestions, useValuesThatExist } from "./use-values-that-exist";
import { mergeIntoList } from "./value-list";

/** A single value is checked once typing has paused this long (a list's chips are added whole). */
const SINGLE_VALUE_SETTLE_MS = 700;
const LIST_SETTLE_MS = 250;

export interface ValueEditorProps {
  node: ConditionNode;
  nodeId: string;
  column: Column | undefined;
  /** How the row is named in labels, e.g. "condition 2.1". */
  name: string;
  problems: Partial<Record<ProblemField | "node", string[]>>;
  setValue(value: Scalar): void;
  /** A value chosen whole (from the list, or a suggestion): counted at once, not as typing. */
  pickValue(value: Scalar): void;
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
  pickValue,
  setValue2,
  setList,
}: ValueEditorProps) {
  const reads = OPERATOR_READS[node.operator];
  const integer = column?.type === "integer";
  // Values that exist are offered and checked for equality and lists; "contains" and the like take
  // any text.
  const picksFromValues =
    column?.categorical === true && (node.operator === "eq" || node.operator === "ne" || reads === "list");
  const [wanted, setWanted] = useState(false);
  const [draft, setDraft] = useState("");
  const valueColumn = picksFromValues ? column : undefined;
  const { suggestions, status } = useValueSuggestions(
    valueColumn,
    reads === "list" ? draft : asText(node.value),
    wanted,
  );
  const check = useValuesThatExist(
    valueColumn,
    reads === "list" ? (node.valueList ?? []) : reads === "value" ? [asText(node.value)] : undefined,
    reads === "list" ? LIST_SETTLE_MS : SINGLE_VALUE_SETTLE_MS,
  );
  const absentKeys = useMemo(() => new Set(check.absent.map((a) => valueKey(a.value))), [check.absent]);
  const options = useMemo<ComboOption[]>(
    () =>
      (suggestions ?? []).map((s) =>
        s.hint ? { value: s.value, label: s.value, hint: s.hint } : { value: s.value, label: s.value },
      ),
    [suggestions],
  );
  const useInstead = (typed: string, existing: string) => {
    // The note (and its button, which had focus) goes: focus goes back to the value it fixed.
    requestAnimationFrame(() =>
      document
        .querySelector<HTMLElement>(
          `[data-node-id="${nodeId}"] [data-field="${reads === "list" ? "valueList" : "value"}"]`,
        )
        ?.focus(),
    );
    if (reads !== "list") return pickValue(existing);
    const list = node.valueList ?? [];
    const at = list.findIndex((entry) => valueKey(entry) === valueKey(typed));
    const without = list.filter((entry) => valueKey(entry) !== valueKey(typed));
    const merged = mergeIntoList(without.slice(0, Math.max(0, at)), [
      existing,
      ...without.slice(Math.max(0, at)),
    ]);
    setList(merged.list);
  };
  const absentNote =
    check.absent.length > 0 ? (
      <AbsentValuesNote id={`${problemId(nodeId, "node")}-absent`} absent={check.absent} onUse={useInstead} />
    ) : null;

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
          onSelect={(option) => (key === "value" ? pickValue(option.value) : set(option.value))}
          onFocus={() => setWanted(true)}
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
        {key === "value" && reads === "value" ? absentNote : null}
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
            suggestions={picksFromValues ? (suggestions ?? []) : undefined}
            suggestionsStatus={status}
            onDraftChange={setDraft}
            onFocus={() => setWanted(true)}
            absent={absentKeys}
            invalid={state.invalid}
            describedBy={state.describedBy}
            dataField="valueList"
          />
          {fieldProblems(problemId(nodeId, "valueList"), problems.valueList)}
          {absentNote}
        </div>
      );
    }
  }
}
