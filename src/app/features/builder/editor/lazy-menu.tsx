import { type ReactNode, useId, useRef, useState } from "react";
import { lazyPart } from "../../../ui/lazy-part";
import type { MenuParts, OpenMenuProps } from "./open-menu";

export type { MenuParts };

/** The open menu's code (Radix's): not in the Builder's first JavaScript, fetched right after it (lazy-part.tsx). */
const OpenMenu = lazyPart<OpenMenuProps>(() => import("./open-menu"));

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
   * was left nowhere. `Menu` holds Radix's parts (Item, Label, RadioGroup...).
   */
  children(chosen: () => void, Menu: MenuParts): ReactNode;
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
