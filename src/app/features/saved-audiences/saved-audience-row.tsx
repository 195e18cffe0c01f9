import { memo, useEffect, useMemo, useRef } from "react";
import { describe } from "../../../contract/describe";
import type { Audience } from "../../../contract/team";
import { formatDateTime, formatNumber, formatRelative } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { NameForm, type NameSubmitResult } from "./name-form";
import { type RowAction, SavedAudienceMenu } from "./saved-audience-menu";

export type { RowAction };

import { VersionHistory } from "./version-history";

/**
 * One saved audience: its name (a button that opens it), whose it is and who sees it, the filter in
 * plain English, the last count, the version and who saved it when; every action in a menu (Radix:
 * arrow keys, Enter, Escape, typeahead). Only what the person may do is offered: Rename with
 * `canEdit`, Share / Make private and Delete with `canManage`.
 */
export const SavedAudienceRow = memo(function SavedAudienceRow({
  item,
  now,
  me,
  isOpen,
  renaming,
  showHistory,
  focusRequested,
  onAction,
  onRename,
  onRenameDone,
  onFocused,
  onRestore,
}: {
  item: Audience;
  now: Date;
  /** Who is here (the owner's name is followed by "(you)"). */
  me: string;
  /** It is the audience open in the Builder. */
  isOpen: boolean;
  renaming: boolean;
  showHistory: boolean;
  /** Move focus to this row's name (after an undo brings it back). */
  focusRequested: boolean;
  onAction(action: RowAction, item: Audience): void;
  onRename(item: Audience, name: string): Promise<NameSubmitResult>;
  onRenameDone(): void;
  onFocused(): void;
  onRestore(item: Audience, version: number): void;
}) {
  const summary = useMemo(() => describe(item.filter), [item.filter]);
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
    <li className="saved-item" data-open={isOpen ? "true" : undefined}>
      <div className="saved-item-main">
        {renaming ? (
          <NameForm
            className="saved-item-rename"
            label={`Rename “${item.name}”`}
            defaultValue={item.name}
            submitLabel="Rename"
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
            {isOpen ? <span className="saved-item-open-mark">open in the Builder</span> : null}
          </h3>
        )}
        <p className="saved-item-who">
          <span>
            <span className="saved-item-owner">{personLabel(item.owner)}</span>
            {item.owner === me ? <span className="muted"> (you)</span> : null}
          </span>
          <span className={`saved-badge ${item.shared ? "saved-badge-shared" : "saved-badge-private"}`}>
            {item.shared ? "Shared" : "Private"}
          </span>
        </p>
        <p className="saved-item-summary" title={summary}>
          {summary}
        </p>
        <dl className="saved-item-facts">
          <div>
            <dt>Last count</dt>
            <dd>{item.lastCount === null ? "not counted" : `${formatNumber(item.lastCount)} people`}</dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd className="saved-item-version">{item.version}</dd>
          </div>
          <div className="saved-item-updated">
            <dt>Updated by</dt>
            <dd>
              {personLabel(item.updatedBy)}, <DateText iso={item.updatedAt} now={now} />
            </dd>
          </div>
        </dl>
      </div>
      <SavedAudienceMenu
        item={item}
        showHistory={showHistory}
        trigger={trigger}
        onSelect={select}
        onCloseAutoFocus={(event) => {
          if (keepFocus.current) event.preventDefault();
          keepFocus.current = false;
          if (renameOnClose.current) {
            renameOnClose.current = false;
            onAction("rename", item);
          }
        }}
      />
      {showHistory ? (
        <VersionHistory audience={item} now={now} onRestore={(version) => onRestore(item, version)} />
      ) : null}
    </li>
  );
});

export function DateText({ iso, now }: { iso: string; now: Date }) {
  const absolute = Number.isNaN(Date.parse(iso)) ? "Unknown date" : formatDateTime(iso);
  return (
    <time dateTime={iso} title={absolute}>
      {formatRelative(iso, now)}
      <span className="visually-hidden"> ({absolute})</span>
    </time>
  );
}
