import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { ChecklistButton, type ChecklistMenuProps } from "./checklist-button";
import type { LazyPartProps } from "./lazy-part";
import { MenuContent } from "./menu-content";

/**
 * ChecklistMenu in Radix's menu. Non-modal, so that nothing injects styles (the CSP allows none) or
 * locks the page's scroll.
 */
export default function ChecklistMenuRadix({
  name,
  title,
  options,
  chosen,
  full = false,
  onToggle,
  resetLabel,
  onReset,
  classPrefix,
  align,
  askedEarly = false,
}: ChecklistMenuProps & LazyPartProps) {
  return (
    <DropdownMenu.Root modal={false} defaultOpen={askedEarly}>
      <DropdownMenu.Trigger asChild>
        <ChecklistButton name={name} count={chosen.size} classPrefix={classPrefix} />
      </DropdownMenu.Trigger>
      <MenuContent className={classPrefix} align={align}>
        <DropdownMenu.Label className={`menu-label ${classPrefix}-label`}>{title}</DropdownMenu.Label>
        {options.map((option) => {
          const on = chosen.has(option.name);
          return (
            <DropdownMenu.CheckboxItem
              key={option.name}
              className={`menu-item ${classPrefix}-item`}
              checked={on}
              disabled={!on && full}
              onCheckedChange={(checked) => onToggle(option.name, checked === true)}
              // Kept open, so that several can be ticked in a row.
              onSelect={(event) => event.preventDefault()}
            >
              <span className={`${classPrefix}-check`} aria-hidden="true">
                <DropdownMenu.ItemIndicator>✓</DropdownMenu.ItemIndicator>
              </span>
              {option.label}
            </DropdownMenu.CheckboxItem>
          );
        })}
        <DropdownMenu.Separator className={`${classPrefix}-separator`} />
        <DropdownMenu.Item className={`menu-item ${classPrefix}-item`} onSelect={onReset}>
          <span className={`${classPrefix}-check`} aria-hidden="true" />
          {resetLabel}
        </DropdownMenu.Item>
      </MenuContent>
    </DropdownMenu.Root>
  );
}
