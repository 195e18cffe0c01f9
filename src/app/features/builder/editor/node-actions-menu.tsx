import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Fragment, memo, useContext, useRef, useState } from "react";
import { type CommandId, commandById, type EditorCommand, formatKey } from "../model/commands";
import { nodeAt, pathOfId } from "../model/tree";
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

export const NodeActionsMenu = memo(function NodeActionsMenu({
  nodeId,
  name,
}: {
  nodeId: string;
  /** The node as labels name it, e.g. "condition 2.1". */
  name: string;
}) {
  const [open, setOpen] = useState(false);
  const dispatch = useDispatch();
  const memory = useContext(FocusMemoryContext);
  // The chosen command runs once the menu has closed and released its focus trap, so that focus
  // can then move to the node the command acted on (the copy, the moved node, the successor...).
  const pending = useRef<CommandId | null>(null);
  return (
    <DropdownMenu.Root open={open} onOpenChange={setOpen} modal={false}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="fe-icon-button" aria-label={`Actions for ${name}`} data-field="menu">
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            <circle cx="3" cy="8" r="1.5" />
            <circle cx="8" cy="8" r="1.5" />
            <circle cx="13" cy="8" r="1.5" />
          </svg>
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          className="fe-menu"
          align="end"
          sideOffset={4}
          collisionPadding={8}
          onCloseAutoFocus={(event) => {
            const command = pending.current;
            pending.current = null;
            if (command === null) return;
            event.preventDefault();
            memory.current = "menu";
            dispatch.run(command, nodeId);
          }}
        >
          {open ? (
            <MenuItems
              nodeId={nodeId}
              onChoose={(command) => {
                pending.current = command;
              }}
            />
          ) : null}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
});

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
            <DropdownMenu.Label className="fe-menu-label">{section.title}</DropdownMenu.Label>
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
