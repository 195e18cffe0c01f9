import { useEffect } from "react";
import { commandForKey } from "../../../lib/filter/commands";

/**
 * Ctrl/Cmd+Z (and Shift+Z, Y) anywhere on the page undo and redo the filter's last edit, so that an
 * edit made from elsewhere (an Insights bar click adds a condition) is undone where it was made.
 * The editor handles its own keys; a text field elsewhere keeps its own undo.
 */
export function usePageUndoKeys(editor: { undo(): void; redo(): void }, editorSelector = ".fe") {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest(editorSelector)) return;
      if (target?.closest("input, textarea, select, [contenteditable='true'], [role='dialog']")) return;
      const command = commandForKey(event);
      if (command?.id !== "undo" && command?.id !== "redo") return;
      event.preventDefault();
      if (command.id === "undo") editor.undo();
      else editor.redo();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [editor.undo, editor.redo, editorSelector]);
}
