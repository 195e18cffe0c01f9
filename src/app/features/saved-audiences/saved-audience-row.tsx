import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { memo, useEffect, useMemo, useRef } from "react";
import { describe } from "../../../contract/describe";
import { formatDateTime, formatNumber, formatRelative } from "../../lib/format";
import { MenuContent } from "../../ui/menu-content";
import { NameForm, type NameSubmitResult } from "./name-form";
import type { SavedAudience } from "./saved-audiences-store";

export type RowAction = "open" | "rename" | "duplicate" | "delete" | "export";

/**
 * One saved audience: its name (a button that opens it), the filter in plain English, the last
 * count and the dates; every action in a menu (Radix: arrow keys, Enter, Escape, typeahead).
 */
export const SavedAudienceRow = memo(function SavedAudienceRow({
  item,
  now,
  renaming,
  takenNames,
  focusRequested,
  onAction,
  onRename,
  onRenameDone,
  onFocused,
}: {
  item: SavedAudience;
  now: Date;
  renaming: boolean;
  /** Names of the other saved audiences (for Rename). */
  takenNames: readonly string[];
  /** Move focus to this row's name (after an undo brings it back). */
  focusRequested: boolean;
  onAction(action: RowAction, item: SavedAudience): void;
  onRename(item: SavedAudience, name: string): NameSubmitResult;
  onRenameDone(): void;
  onFocused(): void;
}) {
  const summary = useMemo(() => describe(item.tree), [item.tree]);
  const trigger = useRef<HTMLButtonElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  // Actions that move focus themselves (rename: to its field; delete: to the undo toast) tell the
  // menu not to return focus to its trigger when it closes. Rename starts only once the menu has
  // closed: while it is open, its focus trap would take focus back from the new field.
  const keepFocus = useRef(false);
  const renameOnClose = useRef(false);
  const wasRenaming = useRef(renaming);

  useEffect(() => {
    if (wasRenaming.current && !renaming) trigger.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);

  useEffect(() => {
    if (!focusRequested) return;
    openButton.current?.focus();
    onFocused();
  }, [focusRequested, onFocused]);

  const select = (action: RowAction) => () => {
    keepFocus.current = action === "rename" || action === "delete";
    if (action === "rename") renameOnClose.current = true;
    else onAction(action, item);
  };

  return (
    <li className="saved-item">
      <div className="saved-item-main">
        {renaming ? (
          <NameForm
            className="saved-item-rename"
            label={`Rename “${item.name}”`}
            defaultValue={item.name}
            submitLabel="Rename"
            taken={takenNames}
            onSubmit={(name) => onRename(item, name)}
            onCancel={onRenameDone}
          />
        ) : (
          <h3 className="saved-item-name">
            <button
              ref={openButton}
              type="button"
              className="saved-item-open"
              onClick={() => onAction("open", item)}
              aria-label={`Open ${item.name}`}
              title="Open this audience in the builder"
            >
              {item.name}
            </button>
          </h3>
        )}
        <p className="saved-item-summary" title={summary}>
          {summary}
        </p>
        <dl className="saved-item-facts">
          <div>
            <dt>Last count</dt>
            <dd>{item.lastCount === null ? "not counted" : `${formatNumber(item.lastCount)} people`}</dd>
          </div>
          <div>
            <dt>Saved</dt>
            <dd>
              <DateText iso={item.createdAt} now={now} />
            </dd>
          </div>
          {item.updatedAt !== item.createdAt ? (
            <div>
              <dt>Changed</dt>
              <dd>
                <DateText iso={item.updatedAt} now={now} />
              </dd>
            </div>
          ) : null}
        </dl>
      </div>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger asChild>
          <button
            ref={trigger}
            type="button"
            className="button button-secondary saved-item-menu-trigger"
            aria-label={`Actions for “${item.name}”`}
          >
            <span aria-hidden="true">Actions</span>
            <svg aria-hidden="true" viewBox="0 0 16 16" width="12" height="12">
              <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.75" />
            </svg>
          </button>
        </DropdownMenu.Trigger>
        <MenuContent
          className="saved-menu"
          align="end"
          onCloseAutoFocus={(event) => {
            if (keepFocus.current) event.preventDefault();
            keepFocus.current = false;
            if (renameOnClose.current) {
              renameOnClose.current = false;
              onAction("rename", item);
            }
          }}
        >
          <DropdownMenu.Item className="saved-menu-item" onSelect={select("open")}>
            Open
          </DropdownMenu.Item>
          <DropdownMenu.Item className="saved-menu-item" onSelect={select("rename")}>
            Rename…
          </DropdownMenu.Item>
          <DropdownMenu.Item className="saved-menu-item" onSelect={select("duplicate")}>
            Duplicate
          </DropdownMenu.Item>
          <DropdownMenu.Item className="saved-menu-item" onSelect={select("export")}>
            Export JSON
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="saved-menu-separator" />
          <DropdownMenu.Item className="saved-menu-item saved-menu-item-danger" onSelect={select("delete")}>
            Delete
          </DropdownMenu.Item>
        </MenuContent>
      </DropdownMenu.Root>
    </li>
  );
});

function DateText({ iso, now }: { iso: string; now: Date }) {
  const absolute = Number.isNaN(Date.parse(iso)) ? "Unknown date" : formatDateTime(iso);
  return (
    <time dateTime={iso} title={absolute}>
      {formatRelative(iso, now)}
      <span className="visually-hidden"> ({absolute})</span>
    </time>
  );
}
