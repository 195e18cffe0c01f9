import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { COLUMN_CHOICES, chosenColumns, DEFAULT_SAMPLE_SETTINGS } from "./sample-settings";
import "./column-chooser.css";
import { MenuContent } from "../../ui/menu-content";

/**
 * Which columns the next sample asks for: the catalogue's unmasked columns, plus Email and Mobile
 * (which the sample only ever shows as "has one or not"). Changing them takes no sample by itself.
 * Non-modal, so that nothing injects styles or locks the page's scroll.
 */
export function ColumnChooser({
  columns,
  onChange,
}: {
  columns: readonly string[];
  onChange: (columns: string[]) => void;
}) {
  const chosen = new Set(columns);
  const toggle = (name: string, on: boolean) => {
    onChange(chosenColumns(on ? [...columns, name] : columns.filter((c) => c !== name)));
  };
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="button button-secondary column-chooser-trigger">
          Columns ({chosen.size})<span aria-hidden="true">▾</span>
        </button>
      </DropdownMenu.Trigger>
      <MenuContent className="column-chooser" align="start">
        <DropdownMenu.Label className="menu-label column-chooser-label">
          Columns in the sample
        </DropdownMenu.Label>
        {COLUMN_CHOICES.map((choice) => (
          <DropdownMenu.CheckboxItem
            key={choice.name}
            className="menu-item column-chooser-item"
            checked={chosen.has(choice.name)}
            onCheckedChange={(on) => toggle(choice.name, on === true)}
            // Keep the menu open so that several columns can be ticked in a row.
            onSelect={(event) => event.preventDefault()}
          >
            <span className="column-chooser-check" aria-hidden="true">
              <DropdownMenu.ItemIndicator>✓</DropdownMenu.ItemIndicator>
            </span>
            {choice.label}
          </DropdownMenu.CheckboxItem>
        ))}
        <DropdownMenu.Separator className="column-chooser-separator" />
        <DropdownMenu.Item
          className="menu-item column-chooser-item"
          onSelect={() => onChange([...DEFAULT_SAMPLE_SETTINGS.columns])}
        >
          <span className="column-chooser-check" aria-hidden="true" />
          Back to the default columns
        </DropdownMenu.Item>
      </MenuContent>
    </DropdownMenu.Root>
  );
}
