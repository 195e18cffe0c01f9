import { ChecklistButton, type ChecklistMenuProps } from "./checklist-button";
import { lazyPart } from "./lazy-part";

export type { ChecklistMenuProps };

/**
 * A button opening a list of options to tick, which stays open while several are ticked, and a last
 * item that goes back to the defaults (checklist-menu-radix.tsx). Radix's code is not in a screen's
 * first JavaScript: it is fetched right after (lazy-part.tsx).
 */
export const ChecklistMenu = lazyPart<ChecklistMenuProps>(
  () => import("./checklist-menu-radix"),
  ({ name, chosen, classPrefix }, ask) => (
    <ChecklistButton name={name} count={chosen.size} classPrefix={classPrefix} onClick={ask} />
  ),
);
