import { useId, useState } from "react";
import type { SuppressionList } from "../../../contract/spending";
import { formatDateTime, formatNumber } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { ConfirmButtons } from "../../ui/confirm-buttons";
import { useDeleteList } from "./api/lists";
import { EntriesBrowser } from "./entries-browser";
import { ImportForm } from "./import-form";
import { kindCounts, listRefusal } from "./suppression-words";

type Open = null | "browse" | "add" | "delete";

/**
 * One list: its name, who made it and when, how many entries of each kind; browse its entries,
 * and (buyers and admins) add entries or delete it, each opened below it, deletion confirmed.
 */
export function ListItem({
  list,
  canChange,
  onDeleted,
}: {
  list: SuppressionList;
  canChange: boolean;
  onDeleted: (name: string) => void;
}) {
  const id = useId();
  const [open, setOpen] = useState<Open>(null);
  const remove = useDeleteList();
  const toggle = (what: Exclude<Open, null>) => {
    remove.reset();
    setOpen((was) => (was === what ? null : what));
  };
  const counts = kindCounts(list);
  return (
    <li className="sup-list" data-testid="suppression-list" aria-labelledby={`${id}-name`}>
      <div className="sup-list-head">
        <div>
          <h3 className="sup-list-name" id={`${id}-name`}>
            {list.name}
          </h3>
          <p className="muted sup-small">
            {formatNumber(list.entries)} {list.entries === 1 ? "entry" : "entries"} · made by{" "}
            {personLabel(list.createdBy)},{" "}
            <time dateTime={list.createdAt}>{formatDateTime(list.createdAt)}</time>
          </p>
        </div>
        <div className="sup-actions">
          <button
            type="button"
            className="button button-secondary"
            aria-expanded={open === "browse"}
            onClick={() => toggle("browse")}
          >
            {open === "browse" ? "Hide entries" : "Browse entries"}{" "}
            <span className="visually-hidden">of {list.name}</span>
          </button>
          {canChange ? (
            <>
              <button
                type="button"
                className="button button-secondary"
                aria-expanded={open === "add"}
                onClick={() => toggle("add")}
              >
                Add entries <span className="visually-hidden">to {list.name}</span>
              </button>
              <button
                type="button"
                className="button button-quiet sup-danger"
                aria-expanded={open === "delete"}
                onClick={() => toggle("delete")}
              >
                Delete… <span className="visually-hidden">{list.name}</span>
              </button>
            </>
          ) : null}
        </div>
      </div>
      {counts.length > 0 ? (
        <dl className="sup-counts" aria-label={`What ${list.name} holds`}>
          {counts.map((c) => (
            <div key={c.kind} data-kind={c.kind}>
              <dt>{c.words}</dt>
              <dd>{formatNumber(c.count)}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted sup-small">The list is empty.</p>
      )}
      {open === "browse" ? <EntriesBrowser list={list} /> : null}
      {open === "add" ? <ImportForm list={list} /> : null}
      {open === "delete" ? (
        <fieldset className="sup-confirm">
          <legend className="visually-hidden">Delete {list.name}</legend>
          <p>
            Delete <strong>{list.name}</strong> and its {formatNumber(list.entries)}{" "}
            {list.entries === 1 ? "entry" : "entries"}? From the next purchase on, these contacts are no
            longer left out, and exports may include them. This cannot be undone.
          </p>
          <ConfirmButtons
            className="sup-actions"
            label={`Delete ${list.name}`}
            busyLabel="Deleting…"
            busy={remove.isPending}
            danger
            onConfirm={() => remove.mutate(list.id, { onSuccess: () => onDeleted(list.name) })}
            onCancel={() => setOpen(null)}
            cancelDisabled={remove.isPending}
          />
          {remove.isError ? (
            <p className="sup-error" role="alert">
              {listRefusal(remove.error, "delete")}
            </p>
          ) : null}
        </fieldset>
      ) : null}
    </li>
  );
}
