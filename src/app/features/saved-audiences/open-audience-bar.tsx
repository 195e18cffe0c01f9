import "./saved-audiences.css";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import type { GroupNode } from "../../../contract/filter";
import type { Audience } from "../../../contract/team";
import {
  AUDIENCES_QUERY_KEY,
  audienceErrorText,
  createAudience,
  isMissingAudience,
  updateAudience,
  versionConflictOf,
} from "../../api/audiences";
import {
  describeConflict,
  openAudienceFor,
  openAudienceOf,
  openAudienceStore,
  openIfStill,
  savedByWhen,
  saveInPlace,
  stillOpen,
  useOpenAudience,
} from "../../lib/open-audience";
import { personLabel } from "../../lib/roles";

type Status =
  | { kind: "idle" }
  | { kind: "saving" }
  /** `id`: the audience it speaks of (shown only while that one is open). */
  | { kind: "saved"; text: string; id: string }
  | { kind: "conflict"; current: Audience }
  | { kind: "error"; text: string; id: string };

/**
 * The open audience above the Builder: its name, whether the tree has unsaved changes, and Save
 * (a PUT carrying the version it replaces). A newer version saved by someone else is never
 * overwritten silently: the bar says who saved it and when, and offers three ways on: overwrite it
 * with mine, save mine as a new audience, or open theirs (discarding mine).
 */
export function OpenAudienceBar({
  currentTree,
  currentCount,
  onOpen,
}: {
  currentTree: GroupNode;
  currentCount: number | null;
  /** Replace the tree being built (Open theirs). */
  onOpen(tree: GroupNode): void;
}) {
  const id = useId();
  const store = openAudienceStore();
  const stored = useOpenAudience(store);
  // The same belonging check as Checkout's: a tree that is not the open audience's (one opened
  // while a save was under way, another tab's) shows no audience, so Save cannot write it there.
  const state = openAudienceFor(stored, currentTree);
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const choice = useRef<HTMLDivElement>(null);

  // A conflict takes the focus, so that a keyboard or screen reader user meets the choice at once.
  useEffect(() => {
    if (status.kind === "conflict") choice.current?.focus();
  }, [status.kind]);

  // The saved message lasts until the next edit.
  const unsaved = state?.unsaved ?? false;
  useEffect(() => {
    if (unsaved) setStatus((s) => (s.kind === "saved" ? { kind: "idle" } : s));
  }, [unsaved]);

  if (!state) {
    return (
      <section className="open-audience open-audience-none" aria-label="Open audience">
        <p className="open-audience-hint">
          <span className="open-audience-label">Not saved yet.</span>{" "}
          <span className="muted">Use “Save as new…” under Saved audiences to keep it and share it.</span>
        </p>
      </section>
    );
  }
  const { open } = state;
  // A conflict belongs to the audience it was met on: another one opened since drops it.
  const conflict = status.kind === "conflict" && status.current.id === open.id ? status.current : null;

  const refresh = () => void queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY });

  const save = async (replacing?: number) => {
    setStatus({ kind: "saving" });
    const outcome = await saveInPlace(
      { open, tree: currentTree, lastCount: currentCount, replacing },
      { update: updateAudience, conflictOf: versionConflictOf },
    );
    refresh();
    // Another audience was opened (or this one closed, restored...) while the PUT was under way:
    // its answer is about an audience no longer open here, and must not come back over the tree
    // now in the Builder. The list shows the new version.
    if (!stillOpen(store.get(), open)) {
      setStatus({ kind: "idle" });
      return;
    }
    if (outcome.kind === "saved") {
      store.set(outcome.open);
      setStatus({
        kind: "saved",
        text: `Saved “${outcome.audience.name}” as version ${outcome.audience.version}.`,
        id: outcome.audience.id,
      });
    } else if (outcome.kind === "conflict") setStatus({ kind: "conflict", current: outcome.current });
    else
      setStatus({
        kind: "error",
        text: isMissingAudience(outcome.error)
          ? `“${open.name}” could not be saved: it no longer exists, or it is no longer shared with you. Use “Save as new…” to keep your changes.`
          : `“${open.name}” could not be saved: ${audienceErrorText(outcome.error)}`,
        id: open.id,
      });
  };

  const saveAsNew = async () => {
    setStatus({ kind: "saving" });
    try {
      const audience = await createAudience({
        name: open.name,
        filter: currentTree,
        shared: false,
        lastCount: currentCount,
      });
      // Opened only if the person is still on the audience the copy was made from (see save).
      if (!openIfStill(store, open, openAudienceOf(audience, currentTree))) {
        setStatus({ kind: "idle" });
        refresh();
        return;
      }
      setStatus({
        kind: "saved",
        text: `Saved your changes as a new audience “${audience.name}” (private; share or rename it in the list).`,
        id: audience.id,
      });
    } catch (error) {
      setStatus({
        kind: "error",
        text: `Your changes could not be saved: ${audienceErrorText(error)}`,
        id: open.id,
      });
    }
    refresh();
  };

  const openTheirs = (current: Audience) => {
    store.set(openAudienceOf(current));
    onOpen(current.filter);
    setStatus({
      kind: "saved",
      text: `Opened version ${current.version} of “${current.name}”.`,
      id: current.id,
    });
  };

  const close = () => {
    store.set(null);
    setStatus({ kind: "idle" });
  };

  return (
    <section
      className="open-audience"
      aria-label="Open audience"
      data-unsaved={state.unsaved ? "true" : "false"}
    >
      <div className="open-audience-line">
        <span className="open-audience-label">Open audience</span>
        <strong className="open-audience-name" id={`${id}-name`} title={open.name}>
          {open.name}
        </strong>
        {state.unsaved ? (
          <span className="open-audience-unsaved">Unsaved changes</span>
        ) : (
          <span className="open-audience-saved">Saved</span>
        )}
        <span className="open-audience-actions">
          <button
            type="button"
            className="button button-primary"
            onClick={() => void save()}
            disabled={!state.unsaved || status.kind === "saving" || conflict !== null}
            aria-describedby={`${id}-name`}
          >
            {status.kind === "saving" ? "Saving…" : "Save"}
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={close}
            title="Keep building without this saved audience open (nothing is deleted)"
          >
            Close
          </button>
        </span>
      </div>
      <p className="open-audience-facts muted">
        Version {open.version} · {open.shared ? "shared with the team" : "private"} · owner{" "}
        {personLabel(open.owner)} · updated by {savedByWhen(personLabel(open.updatedBy), open.updatedAt)}
      </p>
      <div role="status" aria-live="polite" className="open-audience-status">
        {status.kind === "saved" && status.id === open.id ? <p>{status.text}</p> : null}
      </div>
      {status.kind === "error" && status.id === open.id ? (
        <p className="open-audience-error" role="alert">
          {status.text}
        </p>
      ) : null}
      {conflict ? (
        <div
          className="notice-warning notice-stack"
          role="alertdialog"
          aria-labelledby={`${id}-conflict-title`}
          aria-describedby={`${id}-conflict-text`}
          tabIndex={-1}
          ref={choice}
        >
          <h3 className="open-audience-conflict-title" id={`${id}-conflict-title`}>
            Someone saved a newer version
          </h3>
          <p id={`${id}-conflict-text`}>
            {describeConflict(open, conflict, new Date(), personLabel)} Your changes are not saved yet. What
            should happen?
          </p>
          <div className="open-audience-conflict-actions">
            <button
              type="button"
              className="button button-secondary"
              onClick={() => void save(conflict.version)}
            >
              Overwrite with mine
            </button>
            <button type="button" className="button button-secondary" onClick={() => void saveAsNew()}>
              Save mine as a new audience
            </button>
            <button type="button" className="button button-secondary" onClick={() => openTheirs(conflict)}>
              Open theirs (discard my changes)
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
