import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import type { ComponentPropsWithoutRef } from "react";

/**
 * The content of every dropdown menu: portalled above the page, 4 px from its trigger, kept 8 px
 * inside the window, on the shared menu surface (ui/global.css). `className` adds the menu's own.
 */
export function MenuContent({ className, ...props }: ComponentPropsWithoutRef<typeof DropdownMenu.Content>) {
  return (
    <DropdownMenu.Portal>
      <DropdownMenu.Content
        sideOffset={4}
        collisionPadding={8}
        {...props}
        className={className ? `menu-surface ${className}` : "menu-surface"}
      />
    </DropdownMenu.Portal>
  );
}
