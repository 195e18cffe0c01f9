import { ChecklistMenu } from "../../ui/checklist-menu";
import { COLUMN_CHOICES, chosenColumns, DEFAULT_SAMPLE_SETTINGS } from "./sample-settings";
import "./column-chooser.css";

/**
 * Which columns the next sample asks for: the catalogue's unmasked columns, plus Email and Mobile
 * (which the sample only ever shows as "has one or not"). Changing them takes no sample by itself.
 */
export function ColumnChooser({
  columns,
  onChange,
}: {
  columns: readonly string[];
  onChange: (columns: string[]) => void;
}) {
  return (
    <ChecklistMenu
      name="Columns"
      title="Columns in the sample"
      options={COLUMN_CHOICES}
      chosen={new Set(columns)}
      onToggle={(name, on) =>
        onChange(chosenColumns(on ? [...columns, name] : columns.filter((c) => c !== name)))
      }
      resetLabel="Back to the default columns"
      onReset={() => onChange([...DEFAULT_SAMPLE_SETTINGS.columns])}
      classPrefix="column-chooser"
      align="start"
    />
  );
}
