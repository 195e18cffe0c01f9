import { memo } from "react";
import { COLUMNS, getColumn } from "../../../../contract/columns";
import { Combobox, type ComboOption } from "./combobox";

/** The catalogue as picker options: Person columns, then Company columns, with the catalogue's labels. */
export const COLUMN_OPTIONS: readonly ComboOption[] = [
  ...COLUMNS.filter((c) => c.level === "person"),
  ...COLUMNS.filter((c) => c.level === "company"),
].map((column) => {
  const hint = column.maskedAs ? "has / has not" : column.type === "integer" ? "number" : undefined;
  return {
    value: column.name,
    label: column.label,
    group: column.level === "person" ? "Person" : "Company",
    ...(hint ? { hint } : {}),
  };
});

export interface ColumnPickerProps {
  value: string;
  onChange(column: string): void;
  label: string;
  invalid?: boolean;
  describedBy?: string | undefined;
}

/** A searchable column picker (combobox): type to filter, arrows to move, Enter to choose. */
export const ColumnPicker = memo(function ColumnPicker({
  value,
  onChange,
  label,
  invalid,
  describedBy,
}: ColumnPickerProps) {
  const column = getColumn(value);
  return (
    <Combobox
      label={label}
      options={COLUMN_OPTIONS}
      text={column?.label ?? value}
      selected={value}
      onSelect={(option) => {
        if (option.value !== value) onChange(option.value);
      }}
      placeholder="Choose a field"
      invalid={invalid ?? false}
      describedBy={describedBy}
      dataField="column"
      className="fe-column-picker"
      emptyText="No field matches"
    />
  );
});
