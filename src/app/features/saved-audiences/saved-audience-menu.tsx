import { lazyPart } from "../../ui/lazy-part";
import { ActionsButton, type SavedAudienceMenuProps } from "./actions-button";

export type { RowAction, SavedAudienceMenuProps } from "./actions-button";

/**
 * A saved audience's actions menu (saved-audience-actions.tsx). Its code (Radix's) is not in the
 * Builder's first JavaScript: it is fetched right after; until then its button keeps a press and the menu opens on arrival.
 */
export const SavedAudienceMenu = lazyPart<SavedAudienceMenuProps>(
  () => import("./saved-audience-actions"),
  ({ item, trigger }, ask) => <ActionsButton ref={trigger} name={item.name} onClick={ask} />,
);
