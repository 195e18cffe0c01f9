import "./saved-audiences.css";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { canonicalKey } from "../../../contract/canonical";
import { describe } from "../../../contract/describe";
import type { GroupNode } from "../../../contract/filter";
import type { Audience } from "../../../contract/team";
import {
  AUDIENCES_QUERY_KEY,
  audienceErrorText,
  getAudience,
  isMissingAudience,
  useAudiences,
  useCreateAudience,
  useDeleteAudience,
  useRestoreAudienceVersion,
  useUndeleteAudience,
  useUpdateAudience,
  versionConflictOf,
} from "../../api/audiences";
import { useSession } from "../../api/session";
import { isEmptyTree } from "../../lib/filter/tree";
import {
  followChange,
  type OpenAudience,
  openAudienceOf,
  openAudienceStore,
  openIfStill,
  sentenceStart,
  shortLink,
  stillOpen,
  useOpenAudience,
} from "../../lib/open-audience";
import { personLabel } from "../../lib/roles";
import { ImportAudience } from "./import-audience";
import { LeftBehindNotice } from "./left-behind";
import { NameForm, type NameSubmitResult } from "./name-form";
import { type RowAction, SavedAudienceRow } from "./saved-audience-row";
import { exportTreeJson } from "./tree-json";
import { useMoveBrowserAudiences } from "./use-move-browser-audiences";

export interface SavedAudiencesPanelProps {
  /** The audience being built. */
  currentTree: GroupNode;
  /** Its count, if known: saved with it. */
  currentCount: number | null;
  /** Replace the audience being built (Open, Import, Restore, or going back after one). */
  onOpen(tree: GroupNode): void;
}

interface Notice {
  text: string;
  tone: "info" | "error";
  /** Offered only while the current audience is still `whileKey` (so it never discards later edits). */
  action?: { label: string; run(): void; whileKey: string };
}

/** How often relative dates ("5 minutes ago") are refreshed. */
const CLOCK_MS = 60_000;

/** A 404 on an audience, in words. */
const MISSING =
  "This audience no longer exists, or it is private to the person who saved it (it may have been deleted or made private meanwhile).";

/**
 * The team's saved audiences (the server's list: the person's own and those shared with the team):
 * save the one being built as a new audience (private or shared), open, copy its short link,
 * rename, share or make private, see and restore its versions, delete (with undo), export and
 * import as JSON. Opening, importing or restoring replaces the audience being built; the notice
 * that follows offers to go back to it. Audiences saved in this browser by earlier versions are
 * moved here once (see lib/browser-audiences.ts).
 */
export function SavedAudiencesPanel({ currentTree, currentCount, onOpen }: SavedAudiencesPanelProps) {
  const audiences = useAudiences();
  const items = audiences.data ?? [];
  const openStore = openAudienceStore();
  const open = useOpenAudience(openStore);
  const queryClient = useQueryClient();
  const create = useCreateAudience();
  const update = useUpdateAudience();
  const remove = useDeleteAudience();
  const undelete = useUndeleteAudience();
  const restore = useRestoreAudienceVersion();
  const { report: moveReport, left: leftInBrowser } = useMoveBrowserAudiences();
  // Local mode (nobody signs in): the proxy saves as "local".
  const me = useSession().data?.user ?? "local";
  const id = useId();
  const [mode, setMode] = useState<"idle" | "save" | "import">("idle");
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const [historyId, setHistoryId] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [removed, setRemoved] = useState<Audience[]>([]);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [suggestedName, setSuggestedName] = useState<string | null>(null);
  const now = useNow(CLOCK_MS);
  const heading = useRef<HTMLHeadingElement>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const importButton = useRef<HTMLButtonElement>(null);
  const undoButton = useRef<HTMLButtonElement>(null);
  const focusUndo = useRef(false);
  /** The open-audience records closed because their audience was deleted: Undo reopens them. */
  const closedByDelete = useRef(new Map<string, OpenAudience>());
  /** Counts the trees this panel put in the Builder: an answer from before one must not be applied. */
  const replaced = useRef(0);

  const currentKey = useMemo(() => canonicalKey(currentTree), [currentTree]);

  useEffect(() => {
    if (focusUndo.current) undoButton.current?.focus();
    focusUndo.current = false;
  });

  /**
   * Replaces the audience being built (and the open audience), offering to go back to both when
   * something would be lost.
   */
  const openTree = useCallback(
    (tree: GroupNode, text: string, nextOpen: OpenAudience | null) => {
      const previous = currentTree;
      const previousOpen = openStore.get();
      replaced.current++;
      openStore.set(nextOpen);
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
                openStore.set(previousOpen);
                onOpen(previous);
                setNotice({ text: "Back to the audience you had before.", tone: "info" });
              },
            }
          : undefined,
      });
    },
    [currentTree, onOpen, openStore],
  );

  /** Notes a change this person made on the server, following it in the open audience. */
  const changed = useCallback(
    (replaced: number, audience: Audience) => {
      const next = followChange(openStore.get(), replaced, audience);
      if (next !== openStore.get()) openStore.set(next);
    },
    [openStore],
  );

  /** The sentence of a failed write: a conflict says who changed it. */
  const failure = useCallback(
    (error: unknown, what: string): string => {
      const current = versionConflictOf(error);
      if (current) {
        void queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY });
        return `${sentenceStart(current.updatedBy, personLabel)} changed “${current.name}” meanwhile (version ${current.version}); the list now shows it. ${what} again if you still want to.`;
      }
      if (isMissingAudience(error)) return MISSING;
      return audienceErrorText(error);
    },
    [queryClient],
  );

  const onAction = useCallback(
    (action: RowAction, item: Audience) => {
      switch (action) {
        case "open":
          void (async () => {
            // The latest version, not the list's (which may be a few seconds old).
            let latest: Audience;
            try {
              latest = await getAudience(item.id);
            } catch (error) {
              setNotice({
                text: isMissingAudience(error) ? MISSING : audienceErrorText(error),
                tone: "error",
              });
              void queryClient.invalidateQueries({ queryKey: AUDIENCES_QUERY_KEY });
              return;
            }
            setSuggestedName(latest.name);
            openTree(
              latest.filter,
              `Opened “${latest.name}” (version ${latest.version}).`,
              openAudienceOf(latest),
            );
          })();
          return;
        case "copy-link": {
          const link = shortLink(item.id);
          const who = item.shared
            ? ""
            : ` (private: only ${personLabel(item.owner)} can open it until it is shared)`;
          void copyText(link).then((copied) =>
            setNotice({
              text: `${copied ? "Copied the link" : "The link (copy it from here)"} to “${item.name}”: ${link}${who}`,
              tone: "info",
            }),
          );
          return;
        }
        case "rename":
          setMode("idle");
          setRenamingId(item.id);
          return;
        case "share":
        case "unshare": {
          const shared = action === "share";
          update.mutate(
            { id: item.id, body: { version: item.version, shared } },
            {
              onSuccess: (audience) => {
                changed(item.version, audience);
                setNotice({
                  text: shared
                    ? `“${audience.name}” is shared with the team: everyone can open and edit it.`
                    : `“${audience.name}” is private: only ${personLabel(audience.owner)} can see it.`,
                  tone: "info",
                });
              },
              onError: (error) =>
                setNotice({ text: failure(error, shared ? "Share it" : "Make it private"), tone: "error" }),
            },
          );
          return;
        }
        case "history":
          setHistoryId((current) => (current === item.id ? null : item.id));
          return;
        case "export": {
          const file = exportTreeJson(item.filter, item.name);
          setNotice({ text: `Downloaded “${item.name}” as ${file}.`, tone: "info" });
          return;
        }
        case "delete":
          remove.mutate(item.id, {
            onSuccess: () => {
              if (renamingId === item.id) setRenamingId(null);
              // The open audience is gone: close it, so the bar no longer offers a Save that can only
              // fail. The tree stays in the Builder, not saved yet; Undo reopens it.
              const open = openStore.get();
              if (open?.id === item.id) {
                closedByDelete.current.set(item.id, open);
                openStore.set(null);
              }
              focusUndo.current = true;
              setRemoved((list) => [item, ...list.filter((other) => other.id !== item.id)]);
            },
            onError: (error) => setNotice({ text: failure(error, "Delete it"), tone: "error" }),
          });
          return;
      }
    },
    [openTree, renamingId, update, remove, changed, failure, queryClient, openStore],
  );

  const onRename = useCallback(
    async (item: Audience, name: string): Promise<NameSubmitResult> => {
      if (name === item.name) {
        setRenamingId(null);
        return { ok: true };
      }
      try {
        const audience = await update.mutateAsync({ id: item.id, body: { version: item.version, name } });
        changed(item.version, audience);
        setRenamingId(null);
        setNotice({ text: `Renamed to “${audience.name}”.`, tone: "info" });
        return { ok: true };
      } catch (error) {
        return { ok: false, error: failure(error, "Rename it") };
      }
    },
    [update, changed, failure],
  );
  const onRenameDone = useCallback(() => setRenamingId(null), []);
  const onFocused = useCallback(() => setFocusId(null), []);

  const onRestore = useCallback(
    (item: Audience, version: number) => {
      restore.mutate(
        { id: item.id, body: { version: item.version, restore: version } },
        {
          onSuccess: (audience) => {
            openTree(
              audience.filter,
              `Restored version ${version} of “${audience.name}” as version ${audience.version}, and opened it.`,
              openAudienceOf(audience),
            );
          },
          onError: (error) => setNotice({ text: failure(error, "Restore it"), tone: "error" }),
        },
      );
    },
    [restore, openTree, failure],
  );

  const undo = (item: Audience) => {
    setRemoved((list) => list.filter((other) => other.id !== item.id));
    undelete.mutate(item.id, {
      onSuccess: (audience) => {
        // Reopen it when the delete closed it and nothing else was opened since.
        const closed = closedByDelete.current.get(audience.id);
        closedByDelete.current.delete(audience.id);
        const reopened = closed !== undefined && openIfStill(openStore, null, closed);
        setFocusId(audience.id);
        setNotice({
          text: reopened ? `Restored “${audience.name}” and reopened it.` : `Restored “${audience.name}”.`,
          tone: "info",
        });
      },
      onError: (error) => setNotice({ text: failure(error, "Undo it"), tone: "error" }),
    });
  };
  const dismiss = (item: Audience) => {
    setRemoved((list) => list.filter((other) => other.id !== item.id));
    heading.current?.focus();
  };

  const closeForm = (button: HTMLButtonElement | null) => {
    setMode("idle");
    button?.focus();
  };

  const save = async (name: string, shared: boolean): Promise<NameSubmitResult> => {
    const basedOn = openStore.get();
    const generation = replaced.current;
    try {
      const audience = await create.mutateAsync({
        name,
        filter: currentTree,
        shared,
        lastCount: currentCount,
      });
      // Opened only if the Builder still holds the tree it was saved from: another audience opened,
      // imported or restored meanwhile must not become this one's (a later Save would write it here).
      const still = stillOpen(openStore.get(), basedOn) && generation === replaced.current;
      if (still) openStore.set(openAudienceOf(audience, currentTree));
      setSuggestedName(null);
      setNotice({
        text: still
          ? `Saved “${audience.name}” (${audience.shared ? "shared with the team" : "private"}). Save keeps it up to date from now on.`
          : `Saved “${audience.name}” (${audience.shared ? "shared with the team" : "private"}); open it from the list to keep working on it.`,
        tone: "info",
      });
      closeForm(saveButton.current);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: audienceErrorText(error) };
    }
  };

  const exportCurrent = () => {
    const file = exportTreeJson(currentTree, open?.name ?? null);
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
            Save as new…
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
          defaultValue={suggestedName ?? shortDescription(currentTree)}
          submitLabel="Save"
          shareLabel="Share with the team (everyone can open and edit it)"
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
              null,
            );
            importButton.current?.focus();
          }}
        />
      ) : null}

      <div className="saved-live" role="status" aria-live="polite">
        {moveReport ? (
          <div className={`saved-notice saved-notice-${moveReport.tone}`} data-testid="saved-moved">
            <span>{moveReport.text}</span>
          </div>
        ) : null}
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

      {leftInBrowser ? (
        <LeftBehindNotice
          left={leftInBrowser}
          onOpen={(entry) => {
            setSuggestedName(entry.name);
            openTree(
              entry.tree,
              `Opened “${entry.name}” from this browser. It is not in the team's list until you save it (Save as new…).`,
              null,
            );
          }}
        />
      ) : null}

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
                // A delete is soft: Dismiss only hides this message; the server keeps the audience and
                // its versions (deleted), so it can still be undeleted.
                aria-label={`Dismiss this message: “${item.name}” stays deleted, kept on the server with its versions`}
                title="Hide this message. The audience stays deleted; the server keeps it and its versions."
              >
                Dismiss
              </button>
            </li>
          ))}
        </ul>
      ) : null}

      {audiences.isPending ? <p className="muted">Loading the saved audiences…</p> : null}
      {audiences.error ? (
        <p className="saved-notice saved-notice-error" role="alert">
          <span>The saved audiences could not be loaded: {audienceErrorText(audiences.error)}</span>
          <button type="button" className="button button-quiet" onClick={() => void audiences.refetch()}>
            Try again
          </button>
        </p>
      ) : null}

      {audiences.data && items.length === 0 ? (
        <p className="saved-empty muted">
          Nothing saved yet. Save the audience you are building to come back to it later, share it with the
          team, or import one.
        </p>
      ) : null}
      {items.length > 0 ? (
        <ul className="saved-list">
          {items.map((item) => (
            <SavedAudienceRow
              key={item.id}
              item={item}
              now={now}
              me={me}
              isOpen={open?.id === item.id}
              renaming={renamingId === item.id}
              showHistory={historyId === item.id}
              focusRequested={focusId === item.id}
              onAction={onAction}
              onRename={onRename}
              onRenameDone={onRenameDone}
              onFocused={onFocused}
              onRestore={onRestore}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** Copies to the clipboard; false where the browser refuses (no permission, not a secure context). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
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
export function useNow(ms: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
