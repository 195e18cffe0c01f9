import "./saved-audiences.css";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { canonicalKey } from "../../../contract/canonical";
import { describe } from "../../../contract/describe";
import type { GroupNode } from "../../../contract/filter";
import { isEmptyTree } from "../../lib/filter/tree";
import { uniqueName } from "./audience-names";
import { ImportAudience } from "./import-audience";
import { NameForm, type NameSubmitResult } from "./name-form";
import { type RowAction, SavedAudienceRow } from "./saved-audience-row";
import {
  type SavedAudience,
  type SavedAudiencesStore,
  savedAudiencesStore,
  useSavedAudiences,
} from "./saved-audiences-store";
import { exportTreeJson } from "./tree-json";

export interface SavedAudiencesPanelProps {
  /** The audience being built. */
  currentTree: GroupNode;
  /** Its count, if known: saved with it. */
  currentCount: number | null;
  /** Replace the audience being built (Open, Import, or going back after either). */
  onOpen(tree: GroupNode): void;
  /** The store (tests); the app's localStorage store by default. */
  store?: SavedAudiencesStore;
}

interface Notice {
  text: string;
  tone: "info" | "error";
  /** Offered only while the current audience is still `whileKey` (so it never discards later edits). */
  action?: { label: string; run(): void; whileKey: string };
}

/** How often relative dates ("5 minutes ago") are refreshed. */
const CLOCK_MS = 60_000;

/**
 * Saved audiences: save the one being built under a name, open, rename, duplicate, delete (with
 * undo), export and import as JSON. Opening or importing replaces the audience being built; the
 * notice that follows offers to go back to it.
 */
export function SavedAudiencesPanel({
  currentTree,
  currentCount,
  onOpen,
  store: givenStore,
}: SavedAudiencesPanelProps) {
  const store = givenStore ?? savedAudiencesStore();
  const { items, unreadable } = useSavedAudiences(store);
  const id = useId();
  const [mode, setMode] = useState<"idle" | "save" | "import">("idle");
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [removed, setRemoved] = useState<SavedAudience[]>([]);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [suggestedName, setSuggestedName] = useState<string | null>(null);
  const now = useNow(CLOCK_MS);
  const heading = useRef<HTMLHeadingElement>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const importButton = useRef<HTMLButtonElement>(null);
  const undoButton = useRef<HTMLButtonElement>(null);
  const focusUndo = useRef(false);

  const names = useMemo(() => items.map((item) => item.name), [items]);
  const currentKey = useMemo(() => canonicalKey(currentTree), [currentTree]);
  const namesBesides = useMemo(() => {
    const byId = new Map<string, string[]>();
    for (const item of items)
      byId.set(
        item.id,
        names.filter((_, i) => items[i]?.id !== item.id),
      );
    return byId;
  }, [items, names]);

  useEffect(() => {
    if (focusUndo.current) undoButton.current?.focus();
    focusUndo.current = false;
  });

  /** Replaces the audience being built, offering to go back when something would be lost. */
  const openTree = useCallback(
    (tree: GroupNode, text: string) => {
      const previous = currentTree;
      onOpen(tree);
      const changed = !isEmptyTree(previous) && canonicalKey(previous) !== canonicalKey(tree);
      setNotice({
        text,
        tone: "info",
        action: changed
          ? {
              label: "Back to the previous audience",
              whileKey: canonicalKey(tree),
              run: () => {
                onOpen(previous);
                setNotice({ text: "Back to the audience you had before.", tone: "info" });
              },
            }
          : undefined,
      });
    },
    [currentTree, onOpen],
  );

  const onAction = useCallback(
    (action: RowAction, item: SavedAudience) => {
      switch (action) {
        case "open":
          setSuggestedName(item.name);
          openTree(item.tree, `Opened “${item.name}”.`);
          return;
        case "rename":
          setMode("idle");
          setRenamingId(item.id);
          return;
        case "duplicate": {
          const result = store.duplicate(item.id);
          setNotice(
            result.ok
              ? { text: `Duplicated as “${result.item.name}”.`, tone: "info" }
              : { text: result.error, tone: "error" },
          );
          return;
        }
        case "export": {
          const file = exportTreeJson(item.tree, item.name);
          setNotice({ text: `Downloaded “${item.name}” as ${file}.`, tone: "info" });
          return;
        }
        case "delete": {
          const result = store.remove(item.id);
          if (!result.ok) {
            setNotice({ text: result.error, tone: "error" });
            return;
          }
          if (renamingId === item.id) setRenamingId(null);
          focusUndo.current = true;
          setRemoved((list) => [result.item, ...list.filter((other) => other.id !== result.item.id)]);
          return;
        }
      }
    },
    [openTree, renamingId, store],
  );

  const onRename = useCallback(
    (item: SavedAudience, name: string): NameSubmitResult => {
      const result = store.rename(item.id, name);
      if (!result.ok) return result;
      setRenamingId(null);
      if (result.item.name !== item.name)
        setNotice({ text: `Renamed to “${result.item.name}”.`, tone: "info" });
      return { ok: true };
    },
    [store],
  );
  const onRenameDone = useCallback(() => setRenamingId(null), []);
  const onFocused = useCallback(() => setFocusId(null), []);

  const undo = (item: SavedAudience) => {
    const result = store.restore(item);
    setRemoved((list) => list.filter((other) => other.id !== item.id));
    if (!result.ok) {
      setNotice({ text: result.error, tone: "error" });
      return;
    }
    setFocusId(result.item.id);
    setNotice({ text: `Restored “${result.item.name}”.`, tone: "info" });
  };
  const dismiss = (item: SavedAudience) => {
    setRemoved((list) => list.filter((other) => other.id !== item.id));
    heading.current?.focus();
  };

  const closeForm = (button: HTMLButtonElement | null) => {
    setMode("idle");
    button?.focus();
  };

  const save = (name: string): NameSubmitResult => {
    const result = store.save(name, currentTree, currentCount);
    if (!result.ok) return result;
    setSuggestedName(null);
    setNotice({ text: `Saved “${result.item.name}”.`, tone: "info" });
    closeForm(saveButton.current);
    return { ok: true };
  };

  const exportCurrent = () => {
    const file = exportTreeJson(currentTree, null);
    setNotice({ text: `Downloaded the current audience as ${file}.`, tone: "info" });
  };

  return (
    <section className="saved-audiences" aria-labelledby={`${id}-title`}>
      <header className="saved-header">
        <h2 className="saved-title" id={`${id}-title`} ref={heading} tabIndex={-1}>
          Saved audiences{" "}
          <span className="saved-title-count">{items.length === 0 ? "" : `(${items.length})`}</span>
        </h2>
        <div className="saved-toolbar">
          <button
            ref={saveButton}
            type="button"
            className="button button-primary"
            aria-expanded={mode === "save"}
            onClick={() => {
              setRenamingId(null);
              setMode(mode === "save" ? "idle" : "save");
            }}
          >
            Save as…
          </button>
          <button
            ref={importButton}
            type="button"
            className="button button-secondary"
            aria-expanded={mode === "import"}
            onClick={() => setMode(mode === "import" ? "idle" : "import")}
          >
            Import…
          </button>
          <button type="button" className="button button-secondary" onClick={exportCurrent}>
            Export JSON
          </button>
        </div>
      </header>

      {mode === "save" ? (
        <NameForm
          className="saved-save-form"
          label="Name this audience"
          defaultValue={uniqueName(suggestedName ?? shortDescription(currentTree), names)}
          submitLabel="Save"
          taken={names}
          onSubmit={save}
          onCancel={() => closeForm(saveButton.current)}
        />
      ) : null}

      {mode === "import" ? (
        <ImportAudience
          onCancel={() => closeForm(importButton.current)}
          onImported={(tree, name) => {
            setMode("idle");
            setSuggestedName(name ?? null);
            openTree(
              tree,
              `Opened the imported audience${name ? ` “${name}”` : ""}. It is not in this list until you save it.`,
            );
            importButton.current?.focus();
          }}
        />
      ) : null}

      <div className="saved-live" role="status" aria-live="polite">
        {notice ? (
          <div className={`saved-notice saved-notice-${notice.tone}`}>
            <span>{notice.text}</span>
            {notice.action && notice.action.whileKey === currentKey ? (
              <button type="button" className="button button-quiet" onClick={notice.action.run}>
                {notice.action.label}
              </button>
            ) : null}
            <button
              type="button"
              className="button button-quiet saved-notice-close"
              aria-label="Dismiss message"
              onClick={() => setNotice(null)}
            >
              ×
            </button>
          </div>
        ) : null}
      </div>

      {removed.length > 0 ? (
        <ul className="saved-toasts" aria-label="Deleted audiences">
          {removed.map((item, index) => (
            <li key={item.id} className="saved-toast">
              <span>Deleted “{item.name}”.</span>
              <button
                ref={index === 0 ? undoButton : undefined}
                type="button"
                className="button button-secondary"
                onClick={() => undo(item)}
                aria-label={`Undo delete of “${item.name}”`}
              >
                Undo
              </button>
              <button
                type="button"
                className="button button-quiet"
                onClick={() => dismiss(item)}
                aria-label={`Dismiss: delete “${item.name}” for good`}
              >
                Dismiss
              </button>
            </li>
          ))}
        </ul>
      ) : null}

      {unreadable > 0 ? (
        <p className="notice-warning saved-note">
          {unreadable === 1
            ? "One saved audience could not be read by this version of the app."
            : `${unreadable} saved audiences could not be read by this version of the app.`}{" "}
          It is kept on this device, unchanged.
        </p>
      ) : null}

      {items.length === 0 ? (
        <p className="saved-empty muted">
          Nothing saved yet. Save the audience you are building to come back to it later, or import one.
        </p>
      ) : (
        <ul className="saved-list">
          {items.map((item) => (
            <SavedAudienceRow
              key={item.id}
              item={item}
              now={now}
              renaming={renamingId === item.id}
              takenNames={namesBesides.get(item.id) ?? names}
              focusRequested={focusId === item.id}
              onAction={onAction}
              onRename={onRename}
              onRenameDone={onRenameDone}
              onFocused={onFocused}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

/** A default name from the filter itself, cut at a word near 60 characters. */
function shortDescription(tree: GroupNode): string {
  const text = describe(tree);
  if (text.length <= 60) return text;
  const cut = text.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).replace(/[\s,(]+$/, "")}…`;
}

/** The current time, refreshed every `ms`. */
function useNow(ms: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
