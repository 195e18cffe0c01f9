import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { type ReactNode, type RefObject, useRef } from "react";
import { MenuContent } from "../../../ui/menu-content";

/** Radix's menu parts, handed to a menu's items: its code is loaded with the open menu's. */
export type MenuParts = typeof DropdownMenu;

/** The open menu of a LazyMenu, in a module of its own: Radix's code loads with it, apart from the page's. */
export interface OpenMenuProps {
  menuId: string;
  labelledBy: string;
  button: RefObject<HTMLButtonElement | null>;
  byKeyboard: boolean;
  align: "start" | "end";
  menuClassName: string;
  onClose(): void;
  children(chosen: () => void, Menu: MenuParts): ReactNode;
}

/** What Radix's trigger would put on the anchor, left off: the button carries the menu's semantics. */
const ANCHOR_ONLY = {
  id: undefined,
  type: undefined,
  "aria-haspopup": undefined,
  "aria-expanded": undefined,
  "aria-controls": undefined,
} as const;

/** The item focus enters on from the keyboard: the chosen one of a radio menu, else the first enabled. */
function entryItem(menu: HTMLElement): HTMLElement | null {
  return (
    menu.querySelector<HTMLElement>('[role="menuitemradio"][aria-checked="true"]') ??
    menu.querySelector<HTMLElement>('[role^="menuitem"]:not([data-disabled])')
  );
}

/** The Radix menu, mounted open; unmounted (by its button) once it closes. */
export default function OpenMenu({
  menuId,
  labelledBy,
  button,
  byKeyboard,
  align,
  menuClassName,
  onClose,
  children,
}: OpenMenuProps) {
  const chosen = useRef(false);
  // As Radix does for a non-modal menu: after a press or focus outside, focus is left there.
  const outside = useRef(false);
  const entered = useRef(false);
  return (
    <DropdownMenu.Root
      open
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
      modal={false}
    >
      {/* Only the anchor the menu is placed against: the button above is the trigger people use. */}
      <DropdownMenu.Trigger asChild {...ANCHOR_ONLY}>
        <span className="fe-menu-anchor" aria-hidden="true" />
      </DropdownMenu.Trigger>
      <MenuContent
        className={menuClassName}
        id={menuId}
        aria-labelledby={labelledBy}
        align={align}
        onFocus={(event) => {
          // Radix focuses the menu itself on opening; from the keyboard, an item instead.
          if (!byKeyboard || event.target !== event.currentTarget || entered.current) return;
          entered.current = true;
          event.preventDefault();
          entryItem(event.currentTarget)?.focus();
        }}
        onInteractOutside={() => {
          outside.current = true;
        }}
        onCloseAutoFocus={(event) => {
          // Radix would focus its trigger, which is only the anchor: focus goes back to the button
          // unless it went outside, or the chosen item took it (a refused command leaves it nowhere).
          event.preventDefault();
          const active = document.activeElement;
          const lost = active === null || active === document.body;
          if (chosen.current ? lost : !outside.current) button.current?.focus();
        }}
      >
        {children(() => {
          chosen.current = true;
        }, DropdownMenu)}
      </MenuContent>
    </DropdownMenu.Root>
  );
}
