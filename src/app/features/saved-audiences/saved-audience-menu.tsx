import type { DropdownMenuContentProps } from "@radix-ui/react-dropdown-menu";
import type { RefObject } from "react";
import type { Audience } from "../../../contract/team";
import { lazyPart } from "../../ui/lazy-part";
import { ActionsButton } from "./actions-button";

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

/**
 * A saved audience's actions menu (saved-audience-actions.tsx). Its code (Radix's) is not in the
 * Builder's first JavaScript: it is fetched right after; its button stands alone until then.
 */
export const SavedAudienceMenu = lazyPart<SavedAudienceMenuProps>(
  () => import("./saved-audience-actions"),
  ({ item, trigger }, ask) => <ActionsButton ref={trigger} name={item.name} onClick={ask} />,
);
