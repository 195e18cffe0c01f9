import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { describe, describeNode } from "../../contract/describe";
import type { FilterNode, GroupNode } from "../../contract/filter";
import { useLiveCount } from "../features/audience/count";
import { CountBadge } from "../features/audience/count-badge";
import { NodeCountButton } from "../features/audience/node-count-button";
import { SamplePanel } from "../features/audience/sample-panel";
import { useCompaniesBeingLookedUp, useCompanyNames } from "../features/builder/api/company-lookup";
import { absentWords } from "../features/builder/editor/absent-values-note";
import type { NodeAsideContext } from "../features/builder/editor/editor-context";
import { FilterEditor } from "../features/builder/editor/filter-editor";
import { type FilterEditorState, useFilterEditor } from "../features/builder/editor/use-filter-editor";
import { usePageUndoKeys } from "../features/builder/editor/use-page-undo-keys";
import { useAbsentValues } from "../features/builder/editor/use-values-that-exist";
import type { AddCondition } from "../features/insights/buckets";
import { OpenAudienceBar } from "../features/saved-audiences/open-audience-bar";
import { SavedAudiencesPanel } from "../features/saved-audiences/saved-audiences-panel";
import { refusedNode } from "../lib/filter/refusal";
import { andAtTop, nodeAt, valueCondition } from "../lib/filter/tree";
import { type CountablePart, countablePart, nodeProblems, toRequestFilter } from "../lib/filter/validate";
import {
  closeIfForeign,
  type OpenAudience,
  openAudienceFor,
  openAudienceStore,
  shortLink,
  useOpenAudience,
  withWorkingTree,
} from "../lib/open-audience";
import { useReopenRemembered } from "../lib/remembered-audience";
import { selectionAudienceOf, useSelectionAudience, useSelectionFollows } from "../lib/selection";
import { browserStorage } from "../lib/store";
import { type InitialTree, loadInitialTree, useWorkingTreePersistence } from "../lib/working-tree";
import { lazyPart } from "../ui/lazy-part";
import { Page } from "../ui/page";
import "./builder-page.css";

/**
 * Below the sample: its code is not in the Builder's first JavaScript, and is fetched right after
 * (lazy-part.tsx). Until then its card stands with its heading, so that the page does not jump.
 */
const InsightsPanel = lazyPart(
  () => import("../features/insights/insights-panel").then((m) => ({ default: m.InsightsPanel })),
  () => (
    <section className="card insights-panel" aria-labelledby="builder-insights-loading" aria-busy="true">
      <h2 className="card-title insights-title" id="builder-insights-loading">
        Insights
      </h2>
    </section>
  ),
);

/** Values are checked beside the count once editing has paused this long (as a typed value on its rule). */
const ABSENT_SETTLE_MS = 700;

/** Per-node count on demand, beside every node; module level so the editor's rows stay memoised. */
function nodeAside(node: FilterNode, context: NodeAsideContext) {
  // A rule with a problem cannot be counted alone: its reason is said beside its field (once), and
  // a rule not filled in yet says nothing at all.
  if (context.problems !== undefined || nodeProblems(node).length > 0) return null;
  return <NodeCountButton node={node} />;
}

/**
 * The screen a marketer lives in: the filter editor, the live count, the plain-English summary,
 * insights, the masked sample and saved audiences. It composes the builder, audience, insights and
 * saved-audiences features, which know nothing of each other; the working tree is kept in the URL
 * and storage, and the open saved audience in the core (lib/open-audience.ts).
 */
export function BuilderPage() {
  const [initial] = useState(startingPoint);
  const editor = useFilterEditor(initial.tree);
  const lookingUp = useCompaniesBeingLookedUp(editor.tree);
  // (Re-read as each lookup answers: useCompaniesBeingLookedUp follows them.)
  const companyNames = useCompanyNames();
  const counted = useCountedEditor(editor, lookingUp);
  const filter: GroupNode = useMemo(() => toRequestFilter(counted.tree), [counted.tree]);
  // The summary reads the tree as it is now, company being looked up or not.
  const summaryFilter = useMemo(() => toRequestFilter(editor.tree), [editor.tree]);
  const valid = counted.blocking === undefined;
  const blockedBy = useMemo(() => {
    if (!counted.blocking) return undefined;
    const node = nodeAt(counted.tree, counted.blocking.path);
    return node ? `${describeNode(node)}: ${counted.blocking.message}` : counted.blocking.message;
  }, [counted.blocking, counted.tree]);
  // What is counted, sampled and broken down while editing: the audience without its unfinished
  // and broken items, said beside the count (a purchase still needs the whole audience).
  const part = useMemo(() => countablePart(counted.tree, counted.problems), [counted]);
  const shown = part?.tree ?? filter;
  // Typed values that match no one, said beside the count as well as on their rules.
  const absent = absentWords(useAbsentValues(shown, ABSENT_SETTLE_MS));
  const leftOut = part
    ? [leftOutWords(part, counted.tree), absent].filter(Boolean).join(" ") || undefined
    : undefined;
  const { storageError, linkTooLong } = useWorkingTreePersistence(editor.tree);
  usePageUndoKeys(editor);
  // Typing waits for a pause longer than the person's own between keys; a discrete edit is counted at once.
  const countDelay = editor.typing ? editor.typingPauseMs : 0;
  const { count, isFetching: counting, isStale } = useLiveCount(filter, valid, { debounceMs: countDelay });
  // A count the service refused because of one rule (a 422 naming it) marks that rule, which the
  // count then leaves out, saying so. The same query as the badge's: no request of its own.
  const shownCount = useLiveCount(shown, part !== null, { debounceMs: countDelay });
  const refusal = useMemo(() => refusedNode(shown, shownCount.error), [shown, shownCount.error]);
  const { reportRefused } = editor.dispatch;
  useEffect(() => {
    if (refusal) reportRefused(refusal.node, refusal.reason);
  }, [refusal, reportRefused]);
  // What a save records as the audience's size: only a count of this very tree.
  const savedCount = !lookingUp && count !== null && !isStale && !counting ? count : null;
  // The open audience follows this tab's working tree, so a reload knows the tree is still its own.
  // Before paint: the bar and the link notice ask whether the tree belongs to the open audience, and
  // an edit must not show "Not saved yet" for a frame.
  const openAudience = useOpenAudience();
  useLayoutEffect(() => {
    if (!openAudience) return;
    const next = withWorkingTree(openAudience, editor.tree);
    if (next !== openAudience) openAudienceStore().set(next);
  }, [openAudience, editor.tree]);
  const openState = openAudienceFor(openAudience, editor.tree);
  // Ticks belong to the audience being built (the tree is always the open audience's here, as just
  // above): edits carry them along, opening another audience shows that one's own.
  const selectionAudience = useSelectionAudience(
    openAudience && withWorkingTree(openAudience, editor.tree),
    editor.tree,
  );
  const opening = useSelectionFollows(selectionAudience);
  const open = useCallback(
    (tree: GroupNode) => {
      // Called after the open audience is set to the one being opened.
      const next = openAudienceStore().get();
      opening(selectionAudienceOf(next && withWorkingTree(next, tree), tree));
      editor.replace(tree);
    },
    [editor.replace, opening],
  );
  // A new window, or a new sign-in: the audience this person had open comes back (and its tree,
  // when nothing is being built here).
  const reopening = useReopenRemembered(editor.dispatch.getTree, open);
  // A value picked in the insights narrows the whole audience: ANDed at the top (andAtTop wraps an
  // OR or negated root rather than widen it), one undoable step.
  const addCondition = useCallback<AddCondition>(
    (column, value) => {
      const tree = editor.dispatch.getTree();
      const result = andAtTop(tree, valueCondition(column, value));
      if (!result.ok) return { ok: false, error: result.error };
      if (result.tree === tree) return { ok: true, changed: false };
      editor.replace(result.tree);
      return { ok: true, changed: true };
    },
    [editor.dispatch, editor.replace],
  );

  return (
    <Page
      title="Builder"
      lead="Describe the people you want to reach and see how many there are, before you spend anything."
    >
      {initial.warning ? (
        <p className="builder-notice" role="status">
          {initial.warning}
        </p>
      ) : null}
      {initial.closed ? (
        <p className="builder-notice" role="status">
          “{initial.closed}” is no longer open here: the audience in this link or tab is a different one.
          Nothing was saved or deleted; open it again from Saved audiences.
        </p>
      ) : null}
      {storageError ? (
        <p className="builder-notice" role="alert">
          This browser would not keep your audience ({storageError}); copy the link to keep it.
        </p>
      ) : null}
      {linkTooLong ? (
        <LinkTooLong open={openState?.open ?? null} unsaved={openState?.unsaved ?? false} />
      ) : null}
      {/*
        Two panes from 1200 px: the filter (and what is saved) on the left, the audience on the right
        with its count pinned on top. Stacked below that, the count stays pinned above the filter.
      */}
      <div className="builder-panes">
        <div className="builder-filter-pane">
          <OpenAudienceBar currentTree={editor.tree} currentCount={savedCount} onOpen={open} />
          <FilterEditor editor={editor} label="Audience filter" renderNodeAside={nodeAside} />
          <section className="card builder-summary" aria-labelledby="summary-title">
            <h2 className="card-title" id="summary-title">
              In plain English
            </h2>
            <p>{describe(summaryFilter, companyNames)}</p>
          </section>
          <aside className="builder-saved" aria-label="Saved audiences">
            <SavedAudiencesPanel currentTree={editor.tree} currentCount={savedCount} onOpen={open} />
          </aside>
        </div>
        <section className="builder-audience-pane" aria-label="The audience">
          <div className="builder-count">
            <CountBadge
              filter={shown}
              valid={part !== null}
              blockedBy={blockedBy}
              leftOut={leftOut}
              debounceMs={countDelay}
            />
            {/* Stacked, the sample and insights come after the whole filter: one move away. */}
            <nav className="builder-jumps" aria-label="Jump to">
              <a href="#builder-sample">Sample</a>
              <a href="#builder-insights">Insights</a>
            </nav>
          </div>
          <div id="builder-sample" className="builder-anchor" />
          <SamplePanel
            filter={shown}
            valid={part !== null && !reopening}
            blockedBy={blockedBy}
            audience={selectionAudience}
          />
          <div id="builder-insights" className="builder-anchor" />
          <InsightsPanel
            filter={shown}
            valid={part !== null}
            blockedBy={blockedBy}
            countSettled={!counting}
            onAddCondition={addCondition}
          />
        </section>
      </div>
    </Page>
  );
}

/**
 * What the count, the sample and the insights are asked for: the editor's tree, except while a
 * lookalike's company is being looked up, when the last tree before it stands (sent as it is, an
 * unknown company would only be refused, and a sample drawn for nothing).
 */
function useCountedEditor(editor: FilterEditorState, lookingUp: boolean) {
  const live = { tree: editor.tree, problems: editor.problems, blocking: editor.blocking };
  const held = useRef(live);
  if (!lookingUp && (held.current.tree !== live.tree || held.current.problems !== live.problems))
    held.current = live;
  return held.current;
}

/**
 * What the count leaves out, in words: "1 rule unfinished, not counted"; "Founded: the lower end
 * (2020) is above the upper end (1990): swap them, or nobody matches. Counted without it."
 */
function leftOutWords(part: CountablePart, tree: GroupNode): string | undefined {
  const { unfinished, broken } = part;
  const sentences: string[] = [];
  if (unfinished > 0)
    sentences.push(`${unfinished} ${unfinished === 1 ? "rule" : "rules"} unfinished, not counted.`);
  const [first] = broken;
  if (first) {
    const node = nodeAt(tree, first.path);
    const what = node ? describeNode(node) : "An item";
    const more =
      broken.length > 1 ? ` (and ${broken.length - 1} more item${broken.length > 2 ? "s" : ""})` : "";
    sentences.push(`${what}${more}: ${first.message} Counted without ${broken.length > 1 ? "them" : "it"}.`);
  }
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/**
 * The tree to start with (working-tree.ts), and the open audience kept only if that tree is its own:
 * a link from elsewhere, or another tab's audience read from shared storage, must not be saved
 * into it by a later Save.
 */
function startingPoint(): InitialTree & { closed?: string } {
  const initial = loadInitialTree(window.location, browserStorage());
  const closed = closeIfForeign(openAudienceStore(), initial.tree);
  return closed === null ? initial : { ...initial, closed };
}

/** The tree is too large for a link: a saved audience still has its short link. */
function LinkTooLong({ open, unsaved }: { open: OpenAudience | null; unsaved: boolean }) {
  const [copied, setCopied] = useState(false);
  if (!open)
    return (
      <p className="builder-notice" role="status">
        This audience is too large for a link; it is still kept in this browser. Save it to get a short link
        your team can open.
      </p>
    );
  const link = shortLink(open.id);
  return (
    <p className="builder-notice" role="status">
      This audience is too large for a link; it is kept in this browser, and its short link opens the saved “
      {open.name}”{unsaved ? " (without your unsaved changes: save them first)" : ""}: <code>{link}</code>{" "}
      <button
        type="button"
        className="button button-quiet"
        onClick={() =>
          void navigator.clipboard.writeText(link).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : "Copy short link"}
      </button>
    </p>
  );
}
