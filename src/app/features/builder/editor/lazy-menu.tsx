import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { type ReactNode, type RefObject, useId, useRef, useState } from "react";
import { MenuContent } from "../../../ui/menu-content";

export interface LazyMenuProps {
  /** The button's accessible name: a string, or the ids of elements that say it (`aria-labelledby`). */
  label: string | { labelledBy: (buttonId: string) => string };
  buttonClassName: string;
  buttonContent: ReactNode;
  title?: string | undefined;
  describedBy?: string | undefined;
  dataField?: string;
  align?: "start" | "end";
  menuClassName: string;
  /** What names the open menu (an element's id); the button by default. */
  menuLabelledBy?: string;
  /**
   * The menu's items, rendered only while it is open. `chosen()` says an item was chosen: focus is
   * then the item's business (a command may have moved it), and goes back to the button only if it
   * was left nowhere.
   */
  children(chosen: () => void): ReactNode;
}

/**
 * A button and its Radix dropdown menu, the menu's root mounted only while open. Radix mounts a
 * document keydown listener per menu root (which adds two more listeners on every keystroke): at
 * 300 rules, 330 roots cost every keystroke about a millisecond. The button therefore does what
 * Radix's trigger does (left press or Enter / Space / ArrowDown opens, a press while open closes,
 * focus returns to it on close), and the open menu is placed against a span of no width at the
 * button's edge.
 */
export function LazyMenu({
  label,
  buttonClassName,
  buttonContent,
  title,
  describedBy,
  dataField,
  align = "end",
  menuClassName,
  menuLabelledBy,
  children,
}: LazyMenuProps) {
  // How the menu was opened (null: closed). From the keyboard, focus goes into it: Radix knows the
  // keyboard is in use only from a document listener of its own, which a root mounted by this very
  // key press lacked.
  const [openedBy, setOpenedBy] = useState<"pointer" | "keyboard" | null>(null);
  const open = openedBy !== null;
  const button = useRef<HTMLButtonElement>(null);
  const ids = useId();
  const buttonId = `${ids}-button`;
  const menuId = `${ids}-menu`;
  return (
    <span className="fe-menu-host" data-align={align}>
      <button
        ref={button}
        id={buttonId}
        type="button"
        className={buttonClassName}
        aria-label={typeof label === "string" ? label : undefined}
        aria-labelledby={typeof label === "string" ? undefined : label.labelledBy(buttonId)}
        aria-describedby={describedBy}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        title={title}
        data-state={open ? "open" : "closed"}
        data-field={dataField}
        onPointerDown={(event) => {
          if (event.button !== 0 || event.ctrlKey) return;
          if (open) {
            setOpenedBy(null);
            return;
          }
          // Focus stays where it was, as with Radix's trigger.
          event.preventDefault();
          setOpenedBy("pointer");
        }}
        onKeyDown={(event) => {
          if (event.key !== "Enter" && event.key !== " " && event.key !== "ArrowDown") return;
          event.preventDefault();
          if (open && event.key !== "ArrowDown") setOpenedBy(null);
          else if (!open) setOpenedBy("keyboard");
        }}
      >
        {buttonContent}
      </button>
      {open ? (
        <OpenMenu
          menuId={menuId}
          labelledBy={menuLabelledBy ?? buttonId}
          button={button}
          byKeyboard={openedBy === "keyboard"}
          align={align}
          menuClassName={menuClassName}
          onClose={() => setOpenedBy(null)}
        >
          {children}
        </OpenMenu>
      ) : null}
    </span>
  );
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
function OpenMenu({
  menuId,
  labelledBy,
  button,
  byKeyboard,
  align,
  menuClassName,
  onClose,
  children,
}: {
  menuId: string;
  labelledBy: string;
  button: RefObject<HTMLButtonElement | null>;
  byKeyboard: boolean;
  align: "start" | "end";
  menuClassName: string;
  onClose(): void;
  children(chosen: () => void): ReactNode;
}) {
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
        })}
      </MenuContent>
    </DropdownMenu.Root>
  );
}
