import { zodResolver } from "@hookform/resolvers/zod";
import { useCallback, useEffect, useId, useMemo } from "react";
import { useForm, useWatch } from "react-hook-form";
import { z } from "zod";
import { ENRICH_MAX_ENTRIES, type Plan, REVEALS, type Reveal } from "../../../contract/inferred";
import { maxContactCost } from "../../../contract/pricing";
import type { EnrichReview } from "../../../contract/spending";
import { useCredits } from "../../api/credits";
import { formatNumber } from "../../lib/format";
import {
  type CheckedSelection,
  leftSentence,
  selectedPeoplePhrase,
  selectionBlocked,
} from "../../lib/selection-check";
import { isWaiting } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { readableError } from "../../ui/status";
import { type EnrichBody, type EnrichResult, mergeEnrichResults, postEnrich } from "./api/enrich";
import { type EnrichReviewRequest, useEnrichReview } from "./api/review";
import { useAudienceLabel } from "./audience-label";
import { ConfirmStep } from "./confirm-step";
import { EnrichReviewView, enrichConfirmLabel } from "./enrich-review";
import { callsFor, chunkEntries, type ParsedEntries, parseEntries } from "./entries";
import { DEFAULT_PICKED_COLUMNS, deliveredColumns, requestColumns } from "./export-settings";
import { PolicyNote, policyConfirmLabel, policyProblem } from "./policy";
import { formatAmount, REVEAL_LABELS, revealPhrase } from "./pricing";
import { confirmable, PurchaseFormEnd, RowsPurchaseStatus } from "./purchase-form-parts";
import { RowsResultView } from "./rows-result";
import { lastEnrich, type RowsResult } from "./saved-results";
import { useRowsPurchase } from "./use-rows-purchase";

/** How many invalid entries are named before "and N more". */
const INVALID_SHOWN = 12;

const formSchema = z.object({
  source: z.enum(["selection", "list"]),
  list: z.string(),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
});
type EnrichForm = z.infer<typeof formSchema>;

interface Review {
  bodies: EnrichBody[];
  summary: string;
  entries: number;
  reveal: Reveal;
  source: "selection" | "list";
  /** The contact ids asked for (reviewed before the click: already yours, suppressed, new). */
  ids: readonly string[];
  /** Selected people no longer in the audience: listed as such, never sent. */
  left: readonly string[];
  /** Emails asked for: matched only when bought, so they are priced at most. */
  emails: number;
  columns: string[];
}

/** What the review is asked about: the people by id (at most 1,000), the reveal, the columns. */
function reviewRequestOf(review: Review | null): EnrichReviewRequest | null {
  if (!review || review.ids.length === 0 || review.ids.length > ENRICH_MAX_ENTRIES) return null;
  return { kind: "enrich", personIds: [...review.ids], reveal: review.reveal, columns: review.columns };
}

/** The purchase's sentence with what the review said ("…; 3 already yours, free; 1 suppressed, left out"). */
function withReview(summary: string, answer: EnrichReview | null): string {
  if (!answer) return summary;
  const parts: string[] = [];
  if (answer.alreadyYours.length > 0)
    parts.push(`${formatNumber(answer.alreadyYours.length)} already yours, free`);
  if (answer.suppressed.length > 0)
    parts.push(`${formatNumber(answer.suppressed.length)} suppressed, left out`);
  return parts.length > 0 ? `${summary}; ${parts.join("; ")}` : summary;
}

/** Why the selection cannot be enriched now (lib/selection-check.ts), or null when it can. */
const selectionProblem = (selection: CheckedSelection) =>
  selectionBlocked(selection, "Tick people of this audience in the Builder's sample, or paste a list.");

/** `12 ids and 3 emails` */
function entriesPhrase(ids: number, emails: number): string {
  const parts: string[] = [];
  if (ids > 0) parts.push(`${formatNumber(ids)} ${ids === 1 ? "id" : "ids"}`);
  if (emails > 0) parts.push(`${formatNumber(emails)} ${emails === 1 ? "email" : "emails"}`);
  return parts.length > 0 ? parts.join(" and ") : "nothing";
}

function ListSummary({ parsed, id }: { parsed: ParsedEntries; id: string }) {
  const total = parsed.ids.length + parsed.emails.length;
  const calls = callsFor(total);
  return (
    <div className="checkout-list-summary" id={id} aria-live="polite">
      <p>
        {total === 0
          ? "No ids or emails yet."
          : `${entriesPhrase(parsed.ids.length, parsed.emails.length)} to enrich`}
        {parsed.duplicates > 0
          ? `; ${formatNumber(parsed.duplicates)} ${parsed.duplicates === 1 ? "duplicate" : "duplicates"} removed`
          : ""}
        {calls > 1
          ? `; sent as ${formatNumber(calls)} calls of at most ${formatNumber(ENRICH_MAX_ENTRIES)}`
          : ""}
        .
      </p>
      {parsed.invalid.length > 0 ? (
        <p className="checkout-problem">
          {formatNumber(parsed.invalid.length)} {parsed.invalid.length === 1 ? "entry is" : "entries are"}{" "}
          neither an id nor an email and will be left out:{" "}
          <span className="mono">{parsed.invalid.slice(0, INVALID_SHOWN).join(", ")}</span>
          {parsed.invalid.length > INVALID_SHOWN
            ? ` and ${formatNumber(parsed.invalid.length - INVALID_SHOWN)} more`
            : ""}
          .
        </p>
      ) : null}
    </div>
  );
}

/** The answers of a purchase as the result kept on this device. */
function toRowsResult(results: EnrichResult[], purchase: PendingPurchase): RowsResult {
  const merged = mergeEnrichResults(results);
  const first = purchase.calls[0]?.body as EnrichBody | undefined;
  const reveal = first?.reveal ?? "none";
  const unsent = purchase.calls.slice(results.length).reduce((sum, call) => {
    const body = call.body as EnrichBody;
    return sum + (body.personIds?.length ?? 0) + (body.emails?.length ?? 0);
  }, 0);
  return {
    v: 1,
    at: new Date().toISOString(),
    summary: purchase.summary,
    reveal,
    columns: deliveredColumns(first?.columns ?? null, reveal),
    rows: merged.rows,
    notFound: merged.notFound,
    creditsCharged: merged.creditsCharged,
    creditsRemaining: merged.creditsRemaining,
    unsent,
  };
}

/**
 * Enrich: the full rows of chosen people, now. The people are those ticked in the sample, or a
 * pasted list of ids and emails (checked, de-duplicated, counted, split in calls of at most 1,000).
 * Before confirming: the reveal, the most it can cost on this plan and the balance. After: the
 * rows, who was not found, and a CSV.
 */
export function EnrichPanel({ selection }: { selection: CheckedSelection }) {
  const audienceLabel = useAudienceLabel();
  const credits = useCredits();
  const plan: Plan | null = credits.data?.plan ?? null;
  const listId = useId();
  const listHintId = useId();
  const { purchase, review, setReview, result } = useRowsPurchase<EnrichResult, Review>({
    kind: "enrich",
    send: (body, key) => postEnrich(body as EnrichBody, key, audienceLabel),
    store: lastEnrich,
    toResult: toRowsResult,
  });
  const { state } = purchase;

  const form = useForm<EnrichForm>({
    resolver: zodResolver(formSchema),
    defaultValues: {
      source: selection.ids.length > 0 ? "selection" : "list",
      list: "",
      reveal: "email",
      columns: [...DEFAULT_PICKED_COLUMNS],
    },
  });
  const source = useWatch({ control: form.control, name: "source" });
  const list = useWatch({ control: form.control, name: "list" });
  const parsed = useMemo(() => parseEntries(list), [list]);

  const names = selection.names;

  const reviewOf = useCallback(
    (values: EnrichForm): Review | null => {
      let ids: readonly string[];
      let emails: readonly string[] = [];
      let left: readonly string[] = [];
      let who: string;
      if (values.source === "selection") {
        // Only the people still in the audience, as checked: the same ones an export of them takes.
        if (selectionProblem(selection)) return null;
        ids = selection.kept;
        left = selection.left;
        who = selectedPeoplePhrase(ids.length, left.length);
      } else {
        const entries = parseEntries(values.list);
        ids = entries.ids;
        emails = entries.emails;
        who = `${entriesPhrase(ids.length, emails.length)} from your list`;
      }
      const entries = ids.length + emails.length;
      if (entries === 0) return null;
      const columns = requestColumns(values.columns);
      const bodies = chunkEntries(ids, emails).map((lists) => ({ ...lists, reveal: values.reveal, columns }));
      return {
        bodies,
        summary: `${who}, ${revealPhrase(values.reveal)}`,
        entries,
        reveal: values.reveal,
        source: values.source,
        ids,
        left,
        emails: emails.length,
        columns,
      };
    },
    [selection],
  );

  const submit = form.handleSubmit((values) => {
    const next = reviewOf(values);
    if (!next) {
      form.setError(values.source === "list" ? "list" : "source", {
        message:
          values.source === "list"
            ? "Paste at least one id or email."
            : (selectionProblem(selection) ?? "No one is selected."),
      });
      return;
    }
    setReview(next);
  });

  // The selection changed (ticked in another tab, cleared, checked again) while the confirm step is
  // open: what is confirmed follows it, and so does the review.
  const selectionKey = `${selection.state}:${selection.kept.join("\n")}|${selection.left.join("\n")}`;
  useEffect(() => {
    if (review?.source !== "selection") return;
    if (`checked:${review.ids.join("\n")}|${review.left.join("\n")}` === selectionKey) return;
    setReview(reviewOf(form.getValues()));
  }, [selectionKey, review, form, reviewOf, setReview]);

  const reviewRequest = useMemo(() => reviewRequestOf(review), [review]);
  const reviewed = useEnrichReview(reviewRequest);

  const busy = purchase.busy;
  const blocking = state.phase === "sending" || isWaiting(state) || state.phase === "approval";
  const maxCost = review && plan ? maxContactCost(review.entries, review.reveal, plan) : 0;
  const balance = credits.data?.credits ?? null;
  // The review of these very people (a placeholder of other ones is never priced from).
  const answer = reviewRequest && reviewed.data && !reviewed.isPlaceholderData ? reviewed.data : null;
  const emailsCost = review && plan ? maxContactCost(review.emails, review.reveal, plan) : 0;
  const cost = answer ? answer.credits + emailsCost : maxCost;
  const reviewProblem =
    reviewRequest && reviewed.error && !answer
      ? `What this enrichment would do could not be checked, so it cannot be confirmed yet: ${readableError(reviewed.error)}`
      : null;
  const baseLabel = review
    ? answer
      ? enrichConfirmLabel(answer, plan, emailsCost, review.emails)
      : `Confirm and enrich ${formatNumber(review.entries)}`
    : "";
  const confirmLabel = answer ? policyConfirmLabel(answer.policy, cost, plan, baseLabel) : baseLabel;

  return (
    <div className="checkout-panel-body">
      <RowsPurchaseStatus
        purchase={purchase}
        plan={plan}
        what="the enrichment"
        againLabel="Enrich them again…"
        changeLabel="Change the purchase"
        onChange={() => setReview(null)}
      />

      {review && confirmable(state.phase, blocking) ? (
        <ConfirmStep
          title="Confirm the enrichment"
          facts={[
            { label: "People", value: review.summary },
            {
              label: "Entries",
              value: `${formatNumber(review.entries)}${review.bodies.length > 1 ? ` (in ${review.bodies.length} calls)` : ""}`,
            },
            { label: "Reveal", value: REVEAL_LABELS[review.reveal] },
          ]}
          exact={false}
          credits={cost}
          plan={plan}
          balance={balance}
          problem={
            reviewProblem ??
            (answer && answer.toBuy.length + answer.alreadyYours.length + review.emails === 0
              ? "Nothing to get: every one of them is on one of your team's do-not-contact lists."
              : null) ??
            (answer ? policyProblem(answer.policy) : null) ??
            (plan === "PAYG" && balance !== null && cost > balance
              ? `At most ${formatAmount(cost, plan)}, and your balance is ${formatAmount(balance, plan)}: if most entries are found with what you reveal, the purchase is refused and nothing is charged. Enrich fewer people, or reveal less.`
              : null)
          }
          // An answer kept from before (asked again now) is not what Confirm is pressed on.
          pending={reviewRequest !== null && (!answer || reviewed.isFetching) && !reviewProblem}
          confirmLabel={confirmLabel}
          busy={busy}
          onConfirm={() => purchase.confirm(review.bodies, withReview(review.summary, answer))}
          onBack={() => setReview(null)}
        >
          {reviewRequest && !answer && !reviewProblem ? (
            <p className="hint-text checkout-hint" role="status">
              Checking who is already yours and who is on a do-not-contact list…
            </p>
          ) : null}
          {reviewProblem ? (
            <div className="checkout-actions">
              <button
                type="button"
                className="button button-secondary"
                onClick={() => void reviewed.refetch()}
              >
                Check again
              </button>
            </div>
          ) : null}
          {answer && reviewRequest ? (
            <>
              <EnrichReviewView
                review={answer}
                plan={plan}
                ids={reviewRequest.personIds}
                left={review.left}
                names={names}
                noun={review.source === "selection" ? "selected" : "ids in your list"}
                updating={reviewed.isFetching}
              />
              {review.emails > 0 ? (
                <p className="hint-text checkout-hint">
                  {formatNumber(review.emails)} {review.emails === 1 ? "email is" : "emails are"} matched only
                  when bought: priced here at most ({formatAmount(emailsCost, plan)}); one that is already
                  yours is not charged again.
                </p>
              ) : null}
              <PolicyNote policy={answer.policy} />
            </>
          ) : null}
          {review.ids.length > ENRICH_MAX_ENTRIES ? (
            <p className="hint-text checkout-hint">
              More than {formatNumber(ENRICH_MAX_ENTRIES)} ids cannot be checked one by one before the
              purchase; people already yours are still served free and suppressed ones left out when bought.
            </p>
          ) : null}
        </ConfirmStep>
      ) : null}

      {!review && !blocking ? (
        <form className="form checkout-form" onSubmit={submit} noValidate>
          <fieldset className="checkout-fieldset">
            <legend className="field-label">Who</legend>
            <div className="checkout-choices">
              <label className="checkout-choice">
                <input
                  type="radio"
                  value="selection"
                  disabled={selection.ids.length === 0}
                  {...form.register("source")}
                />
                <span className="checkout-choice-text">
                  <span className="checkout-choice-label">
                    {selection.state === "checked" && selection.left.length > 0
                      ? `The ${formatNumber(selection.kept.length)} still in this audience, of the ${formatNumber(selection.ids.length)} selected in the sample`
                      : `The ${formatNumber(selection.ids.length)} selected in the sample`}
                  </span>
                  <span className="hint-text checkout-choice-hint">
                    {selection.ids.length === 0
                      ? "Tick rows in the Builder's sample to choose people."
                      : selection.state !== "checked"
                        ? selection.problem
                        : (leftSentence(selection.ids.length, selection.left.length) ??
                          "The people you ticked, by their contact id.")}
                  </span>
                </span>
              </label>
              <label className="checkout-choice">
                <input type="radio" value="list" {...form.register("source")} />
                <span className="checkout-choice-text">
                  <span className="checkout-choice-label">A list of ids or emails</span>
                  <span className="hint-text checkout-choice-hint">
                    Paste contact ids (they start with pao_) or email addresses.
                  </span>
                </span>
              </label>
            </div>
            {form.formState.errors.source ? (
              <p className="checkout-problem" role="alert">
                {form.formState.errors.source.message}
              </p>
            ) : null}
          </fieldset>

          {source === "list" ? (
            <div className="field">
              <label className="field-label" htmlFor={listId}>
                Ids or emails
              </label>
              <textarea
                id={listId}
                className="input checkout-textarea"
                rows={6}
                spellCheck={false}
                placeholder={"pao_0123456789ab\njane.doe@example.com"}
                aria-describedby={listHintId}
                aria-invalid={form.formState.errors.list ? true : undefined}
                {...form.register("list")}
              />
              <p className="hint-text checkout-hint">
                One per line, or separated by commas, semicolons or spaces. Duplicates count once.
              </p>
              <ListSummary parsed={parsed} id={listHintId} />
              {form.formState.errors.list ? (
                <p className="checkout-problem" role="alert">
                  {form.formState.errors.list.message}
                </p>
              ) : null}
            </div>
          ) : null}

          <PurchaseFormEnd
            form={form}
            plan={plan}
            submitLabel="Review the purchase"
            // The check of who is still in the audience answers in a moment: wait for it.
            submitDisabled={source === "selection" && selection.state === "checking"}
            hint="Nothing is charged until you confirm on the next step."
          />
        </form>
      ) : null}

      {result ? (
        <RowsResultView
          result={result}
          plan={plan}
          title="Enriched rows"
          filePrefix="enriched"
          onClear={() => lastEnrich.set(null)}
        />
      ) : null}
    </div>
  );
}
