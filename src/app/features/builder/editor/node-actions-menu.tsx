import { Fragment, memo, useContext } from "react";
import { type CommandId, commandById, type EditorCommand, formatKey } from "../../../lib/filter/commands";
import { nodeAt, pathOfId } from "../../../lib/filter/tree";
import { FocusMemoryContext, PlatformContext, useDispatch } from "./editor-context";
import { LazyMenu, type MenuParts } from "./lazy-menu";

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

/** The node's actions button, and its menu while open (mounted only then: see LazyMenu). */
export const NodeActionsMenu = memo(function NodeActionsMenu({
  nodeId,
  name,
}: {
  nodeId: string;
  /** The node as labels name it, e.g. "condition 2.1". */
  name: string;
}) {
  return (
    <LazyMenu
      label={`Actions for ${name}`}
      buttonClassName="fe-icon-button"
      buttonContent={
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M1.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M6.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0M11.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0 -3 0" />
        </svg>
      }
      dataField="menu"
      menuClassName="fe-menu"
    >
      {(chosen, Menu) => <CommandItems nodeId={nodeId} Menu={Menu} onChosen={chosen} />}
    </LazyMenu>
  );
});

/**
 * The commands, run at once when chosen (the menu closes in the same task); a command moves focus
 * to the node it acted on (the copy, the moved node, the successor...), so the close leaves it there.
 */
function CommandItems({ nodeId, Menu, onChosen }: { nodeId: string; Menu: MenuParts; onChosen(): void }) {
  const dispatch = useDispatch();
  const memory = useContext(FocusMemoryContext);
  return (
    <MenuItems
      nodeId={nodeId}
      Menu={Menu}
      onChoose={(command) => {
        onChosen();
        memory.current = "menu";
        dispatch.run(command, nodeId);
      }}
    />
  );
}

/** Key specs as `aria-keyshortcuts` spells them ("Control+Shift+Z"). */
export function ariaKeys(keys: readonly string[], mac: boolean): string | undefined {
  if (keys.length === 0) return undefined;
  return keys.map((spec) => spec.replace("Mod", mac ? "Meta" : "Control")).join(" ");
}

/** Rendered only while the menu is open: reads the tree then, to say which commands apply here. */
function MenuItems({
  nodeId,
  Menu,
  onChoose,
}: {
  nodeId: string;
  Menu: MenuParts;
  onChoose(command: CommandId): void;
}) {
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
            {i > 0 ? <Menu.Separator className="fe-menu-separator" /> : null}
            <Menu.Label className="menu-label fe-menu-label">{section.title}</Menu.Label>
            {commands.map((command) => (
              <Menu.Item
                key={command.id}
                className="fe-menu-item"
                disabled={!command.enabled(tree, path)}
                title={command.description}
                aria-keyshortcuts={ariaKeys(command.keys, mac)}
                onSelect={() => onChoose(command.id)}
              >
                <span>{command.label}</span>{" "}
                {command.keys[0] ? <kbd className="fe-kbd">{formatKey(command.keys[0], mac)}</kbd> : null}
              </Menu.Item>
            ))}
          </Fragment>
        );
      })}
    </>
  );
}
