import type { Plan } from "../../../contract/inferred";
import type { EnrichReview } from "../../../contract/spending";
import { formatNumber } from "../../lib/format";
import { LEFT_MARK, leftSentence } from "../../lib/selection-check";
import { formatAmount } from "./pricing";

/** How many people are listed by name before "and N more". */
export const REVIEW_PEOPLE_SHOWN = 50;

export type ReviewMark = "owned" | "suppressed" | "new";
export const MARK_WORDS: Record<ReviewMark, string> = {
  owned: "Already yours",
  suppressed: "Suppressed",
  new: "New",
};

/**
 * "5 selected: 3 already yours (free), 1 suppressed (on a do-not-contact list, left out), 1 to
 * buy: up to 2 credits". `noun` says where the people come from ("selected", "in your list").
 */
export function enrichReviewSentence(review: EnrichReview, plan: Plan | null, noun = "selected"): string {
  const parts: string[] = [];
  if (review.alreadyYours.length > 0)
    parts.push(`${formatNumber(review.alreadyYours.length)} already yours (free)`);
  if (review.suppressed.length > 0)
    parts.push(`${formatNumber(review.suppressed.length)} suppressed (on a do-not-contact list, left out)`);
  parts.push(
    review.toBuy.length > 0
      ? `${formatNumber(review.toBuy.length)} to buy: up to ${formatAmount(review.credits, plan)}`
      : "nothing to buy",
  );
  return `${formatNumber(review.selected)} ${noun}: ${parts.join(", ")}`;
}

/**
 * Confirm's label for an enrichment: what it costs, or "Get the 5 (free)" when every one is already
 * the team's.
 */
export function enrichConfirmLabel(
  review: EnrichReview,
  plan: Plan | null,
  extraCredits = 0,
  extraEntries = 0,
): string {
  const free = review.alreadyYours.length;
  // Emails in a pasted list are matched when bought: counted with the new ones, priced at most.
  const buy = review.toBuy.length + extraEntries;
  if (buy === 0 && free === 0) return "Nothing to get";
  if (buy === 0 && extraCredits === 0) return `Get the ${formatNumber(free)} (free)`;
  const cost = formatAmount(review.credits + extraCredits, plan);
  return `Confirm: buy ${formatNumber(buy)} new for up to ${cost}${free > 0 ? `, get ${formatNumber(free)} free` : ""}`;
}

/** Each reviewed person's mark, by id. */
export function marksOf(review: EnrichReview): Map<string, ReviewMark> {
  const marks = new Map<string, ReviewMark>();
  for (const id of review.toBuy) marks.set(id, "new");
  for (const id of review.alreadyYours) marks.set(id, "owned");
  for (const id of review.suppressed) marks.set(id, "suppressed");
  return marks;
}

/**
 * What an enrichment will do, before the click: the sentence, then the people (by name where the
 * sample showed them, else by contact id), each marked Already yours / Suppressed / New, and the
 * selected people no longer in the audience, marked as such (never sent).
 */
export function EnrichReviewView({
  review,
  plan,
  ids,
  left = [],
  names,
  noun,
  updating,
}: {
  review: EnrichReview;
  plan: Plan | null;
  /** The people reviewed, in the order chosen. */
  ids: readonly string[];
  /** Selected people who left the audience: not reviewed, not bought. */
  left?: readonly string[];
  names: Readonly<Record<string, string>>;
  noun: string;
  updating: boolean;
}) {
  const marks = marksOf(review);
  const shown = ids.slice(0, REVIEW_PEOPLE_SHOWN);
  const leftShown = left.slice(0, Math.max(0, REVIEW_PEOPLE_SHOWN - shown.length));
  const leftWords = leftSentence(ids.length + left.length, left.length);
  return (
    <div className="checkout-review" data-testid="enrich-review" aria-busy={updating}>
      <p className="checkout-review-sentence" data-testid="enrich-review-sentence">
        {enrichReviewSentence(review, plan, noun)}.{updating ? " Updating…" : ""}
      </p>
      {leftWords ? (
        <p className="hint-text checkout-hint" data-testid="enrich-review-left">
          {leftWords}
        </p>
      ) : null}
      <ul className="checkout-review-people" aria-label="Who is bought, who is free, who is left out">
        {shown.map((id) => {
          const mark = marks.get(id);
          const name = names[id];
          return (
            <li key={id} className="checkout-review-person" data-mark={mark ?? "unknown"}>
              <span className="checkout-review-name">{name ?? <span className="mono">{id}</span>}</span>
              <span className="checkout-review-mark" data-mark={mark ?? "unknown"}>
                {mark ? MARK_WORDS[mark] : "Not reviewed"}
              </span>
            </li>
          );
        })}
        {leftShown.map((id) => (
          <li key={id} className="checkout-review-person" data-mark="left">
            <span className="checkout-review-name">{names[id] ?? <span className="mono">{id}</span>}</span>
            <span className="checkout-review-mark" data-mark="left">
              {LEFT_MARK}
            </span>
          </li>
        ))}
      </ul>
      {ids.length > shown.length ? (
        <p className="hint-text checkout-hint">
          and {formatNumber(ids.length - shown.length)} more ({formatNumber(review.alreadyYours.length)}{" "}
          already yours, {formatNumber(review.suppressed.length)} suppressed,{" "}
          {formatNumber(review.toBuy.length)} new in all).
        </p>
      ) : null}
      {left.length > leftShown.length ? (
        <p className="hint-text checkout-hint">
          and {formatNumber(left.length - leftShown.length)} more no longer in this audience.
        </p>
      ) : null}
      {review.suppressed.length > 0 ? (
        <p className="hint-text checkout-hint">
          Suppressed people are on one of your team's do-not-contact lists: they are not sent and cost
          nothing.
        </p>
      ) : null}
    </div>
  );
}
