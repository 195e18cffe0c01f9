import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Fragment, memo, type RefObject, useContext, useId, useRef, useState } from "react";
import { type CommandId, commandById, type EditorCommand, formatKey } from "../../../lib/filter/commands";
import { nodeAt, pathOfId } from "../../../lib/filter/tree";
import { MenuContent } from "../../../ui/menu-content";
import { FocusMemoryContext, PlatformContext, useDispatch } from "./editor-context";

/** The per-node menu: the model's commands (the same objects as the buttons and shortcuts), by section. */
const SECTIONS: readonly { title: string; commands: readonly CommandId[] }[] = [
  {
    title: "Add",
    commands: ["addCondition", "addGroup", "addTitleMatch", "addCompanyMatch", "addLookalike"],
  },
  { title: "Edit", commands: ["duplicate", "negate", "wrap", "unwrap", "remove"] },
  { title: "Move", commands: ["moveUp", "moveDown", "indent", "outdent"] },
];

const SECTION_COMMANDS: readonly { title: string; commands: readonly EditorCommand[] }[] = SECTIONS.map(
  (section) => ({ title: section.title, commands: section.commands.map(commandById) }),
);

/**
 * The node's actions button, and its menu while open. Radix mounts a document keydown listener per
 * menu root (which adds two more listeners on every keystroke), so the root is mounted only while
 * the menu is open: at 300 conditions, 330 roots cost every keystroke about a millisecond. The
 * button therefore does what Radix's trigger does (left press or Enter / Space / ArrowDown opens,
 * a press while open closes, focus returns to it on close), and the open menu is placed against a
 * span of no width at the button's right edge.
 */
export const NodeActionsMenu = memo(function NodeActionsMenu({
  nodeId,
  name,
}: {
  nodeId: string;
  /** The node as labels name it, e.g. "condition 2.1". */
  name: string;
}) {
  // How the menu was opened (null: closed). From the keyboard, focus goes to its first item: Radix
  // knows the keyboard is in use only from a document listener of its own, which a root mounted by
  // this very key press lacked.
  const [openedBy, setOpenedBy] = useState<"pointer" | "keyboard" | null>(null);
  const open = openedBy !== null;
  const button = useRef<HTMLButtonElement>(null);
  const ids = useId();
  const buttonId = `${ids}-button`;
  const menuId = `${ids}-menu`;
  return (
    <span className="fe-menu-host">
      <button
        ref={button}
        id={buttonId}
        type="button"
        className="fe-icon-button"
        aria-label={`Actions for ${name}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-state={open ? "open" : "closed"}
        data-field="menu"
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
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M1.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M6.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M11.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0" />
        </svg>
      </button>
      {open ? (
        <OpenMenu
          nodeId={nodeId}
          menuId={menuId}
          buttonId={buttonId}
          button={button}
          byKeyboard={openedBy === "keyboard"}
          onClose={() => setOpenedBy(null)}
        />
      ) : null}
    </span>
  );
});

/** What Radix's trigger would put on the anchor, left off: the button carries the menu's semantics. */
const ANCHOR_ONLY = {
  id: undefined,
  type: undefined,
  "aria-haspopup": undefined,
  "aria-expanded": undefined,
  "aria-controls": undefined,
} as const;

/** The Radix menu, mounted open; unmounted (by its button) once it closes. */
function OpenMenu({
  nodeId,
  menuId,
  buttonId,
  button,
  byKeyboard,
  onClose,
}: {
  nodeId: string;
  menuId: string;
  buttonId: string;
  button: RefObject<HTMLButtonElement | null>;
  byKeyboard: boolean;
  onClose(): void;
}) {
  const dispatch = useDispatch();
  const memory = useContext(FocusMemoryContext);
  // A command chosen runs at once (the menu closes in the same task) and moves focus to the node
  // it acted on (the copy, the moved node, the successor...), so the close leaves focus there.
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
        className="fe-menu"
        id={menuId}
        aria-labelledby={buttonId}
        align="end"
        onFocus={(event) => {
          // Radix focuses the menu itself on opening; from the keyboard, the first item instead.
          if (!byKeyboard || event.target !== event.currentTarget || entered.current) return;
          entered.current = true;
          event.preventDefault();
          event.currentTarget.querySelector<HTMLElement>('[role="menuitem"]:not([data-disabled])')?.focus();
        }}
        onInteractOutside={() => {
          outside.current = true;
        }}
        onCloseAutoFocus={(event) => {
          // Radix would focus its trigger, which is only the anchor: focus goes back to the button
          // unless it went outside, or the command took it (a refused one leaves it nowhere).
          event.preventDefault();
          const active = document.activeElement;
          const lost = active === null || active === document.body;
          if (chosen.current ? lost : !outside.current) button.current?.focus();
        }}
      >
        <MenuItems
          nodeId={nodeId}
          onChoose={(command) => {
            chosen.current = true;
            memory.current = "menu";
            dispatch.run(command, nodeId);
          }}
        />
      </MenuContent>
    </DropdownMenu.Root>
  );
}

/** Key specs as `aria-keyshortcuts` spells them ("Control+Shift+Z"). */
export function ariaKeys(keys: readonly string[], mac: boolean): string | undefined {
  if (keys.length === 0) return undefined;
  return keys.map((spec) => spec.replace("Mod", mac ? "Meta" : "Control")).join(" ");
}

/** Rendered only while the menu is open: reads the tree then, to say which commands apply here. */
function MenuItems({ nodeId, onChoose }: { nodeId: string; onChoose(command: CommandId): void }) {
  const dispatch = useDispatch();
  const { mac } = useContext(PlatformContext);
  const tree = dispatch.getTree();
  const path = pathOfId(tree, nodeId);
  if (!path) return null;
  const node = nodeAt(tree, path);
  const root = path.length === 0;
  return (
    <>
      {SECTION_COMMANDS.map((section, i) => {
        // Offered where they apply to this kind of node (disabled when not possible right now):
        // the root only adds and negates; only a group can be ungrouped; adding too deep is hidden.
        const commands = section.commands.filter((command) => {
          if (root && command.id !== "negate" && section.title !== "Add") return false;
          if (command.id === "unwrap" && node?.type !== "group") return false;
          if (section.title === "Add") return command.enabled(tree, path);
          return true;
        });
        if (commands.length === 0) return null;
        return (
          <Fragment key={section.title}>
            {i > 0 ? <DropdownMenu.Separator className="fe-menu-separator" /> : null}
            <DropdownMenu.Label className="menu-label fe-menu-label">{section.title}</DropdownMenu.Label>
            {commands.map((command) => (
              <DropdownMenu.Item
                key={command.id}
                className="fe-menu-item"
                disabled={!command.enabled(tree, path)}
                title={command.description}
                aria-keyshortcuts={ariaKeys(command.keys, mac)}
                onSelect={() => onChoose(command.id)}
              >
                <span>{command.label}</span>{" "}
                {command.keys[0] ? <kbd className="fe-kbd">{formatKey(command.keys[0], mac)}</kbd> : null}
              </DropdownMenu.Item>
            ))}
          </Fragment>
        );
      })}
    </>
  );
}
