import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import type { LazyPartProps } from "../../ui/lazy-part";
import { MenuContent } from "../../ui/menu-content";
import { ActionsButton, type SavedAudienceMenuProps } from "./actions-button";

/** A saved audience's actions in Radix's menu (its code loaded apart: see saved-audience-menu.tsx). */
export default function SavedAudienceActions({
  item,
  showHistory,
  trigger,
  onSelect,
  onCloseAutoFocus,
  askedEarly = false,
}: SavedAudienceMenuProps & LazyPartProps) {
  // Non-modal: a modal menu injects a <style> (scroll lock), which the page's CSP refuses.
  return (
    <DropdownMenu.Root modal={false} defaultOpen={askedEarly}>
      <DropdownMenu.Trigger asChild>
        <ActionsButton ref={trigger} name={item.name} />
      </DropdownMenu.Trigger>
      <MenuContent className="saved-menu" align="end" onCloseAutoFocus={onCloseAutoFocus}>
        <DropdownMenu.Item className="saved-menu-item" onSelect={onSelect("open")}>
          Open
        </DropdownMenu.Item>
        <DropdownMenu.Item className="saved-menu-item" onSelect={onSelect("copy-link")}>
          Copy link
        </DropdownMenu.Item>
        {item.canEdit ? (
          <DropdownMenu.Item className="saved-menu-item" onSelect={onSelect("rename")}>
            Rename…
          </DropdownMenu.Item>
        ) : null}
        {item.canManage ? (
          <DropdownMenu.Item
            className="saved-menu-item"
            onSelect={onSelect(item.shared ? "unshare" : "share")}
          >
            {item.shared ? "Make private" : "Share with the team"}
          </DropdownMenu.Item>
        ) : null}
        <DropdownMenu.Item className="saved-menu-item" onSelect={onSelect("history")}>
          {showHistory ? "Hide version history" : "Version history"}
        </DropdownMenu.Item>
        <DropdownMenu.Item className="saved-menu-item" onSelect={onSelect("export")}>
          Export JSON
        </DropdownMenu.Item>
        {item.canManage ? (
          <>
            <DropdownMenu.Separator className="saved-menu-separator" />
            <DropdownMenu.Item
              className="saved-menu-item saved-menu-item-danger"
              onSelect={onSelect("delete")}
            >
              Delete
            </DropdownMenu.Item>
          </>
        ) : null}
      </MenuContent>
    </DropdownMenu.Root>
  );
}
