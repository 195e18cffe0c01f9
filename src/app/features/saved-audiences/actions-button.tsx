import type { DropdownMenuContentProps } from "@radix-ui/react-dropdown-menu";
import { forwardRef, type RefObject } from "react";
import type { Audience } from "../../../contract/team";

/** A saved audience's Actions button: Radix's trigger once its menu's code is here; before, a press is kept (lazy-part.tsx). */
export const ActionsButton = forwardRef<HTMLButtonElement, { name: string; onClick?: () => void }>(
  function ActionsButton({ name, ...triggerProps }, ref) {
    return (
      <button
        ref={ref}
        type="button"
        className="button button-secondary saved-item-menu-trigger"
        aria-label={`Actions for “${name}”`}
        {...triggerProps}
      >
        <span aria-hidden="true">Actions</span>
        <svg aria-hidden="true" viewBox="0 0 16 16" width="12" height="12">
          <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.75" />
        </svg>
      </button>
    );
  },
);

export type RowAction =
  | "open"
  | "copy-link"
  | "rename"
  | "share"
  | "unshare"
  | "history"
  | "delete"
  | "export";

export interface SavedAudienceMenuProps {
  item: Audience;
  showHistory: boolean;
  trigger: RefObject<HTMLButtonElement | null>;
  onSelect(action: RowAction): () => void;
  onCloseAutoFocus: DropdownMenuContentProps["onCloseAutoFocus"];
}
