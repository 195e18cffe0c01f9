import { formatNumber } from "../../lib/format";
import { type CheckedSelection, LEFT_MARK, leftSentence } from "../../lib/selection-check";

/** How many selected people are listed by name before "and N more". */
export const SELECTED_PEOPLE_SHOWN = 50;

/**
 * The people ticked in the sample, as Checkout buys them: each marked still in this audience or no
 * longer in it (never bought), with the sentence that says how many left. Shown above the ways to
 * buy, so Enrich and Export are seen to take the same people.
 */
export function SelectedPeople({ selection }: { selection: CheckedSelection }) {
  const { ids, names, state, left, problem, recheck } = selection;
  if (ids.length === 0) return null;
  const gone = new Set(left);
  const shown = ids.slice(0, SELECTED_PEOPLE_SHOWN);
  const sentence = state === "checked" ? leftSentence(ids.length, left.length) : null;
  return (
    <div
      className="checkout-review checkout-selected"
      data-testid="selected-people"
      aria-busy={state === "checking"}
    >
      {sentence ? (
        <p className="notice-warning checkout-warning" role="status" data-testid="selection-left">
          {sentence}
        </p>
      ) : state === "checked" ? (
        <p className="hint-text checkout-hint" role="status">
          Everyone you selected is still in this audience.
        </p>
      ) : problem ? (
        <p className={state === "failed" ? "checkout-problem" : "hint-text checkout-hint"} role="status">
          {problem}
          {recheck ? (
            <>
              {" "}
              <button type="button" className="button button-secondary" onClick={recheck}>
                Check again
              </button>
            </>
          ) : null}
        </p>
      ) : null}
      <ul className="checkout-review-people" aria-label="People selected in the sample">
        {shown.map((id) => {
          const mark = state !== "checked" ? "unknown" : gone.has(id) ? "left" : "kept";
          return (
            <li key={id} className="checkout-review-person" data-mark={mark}>
              <span className="checkout-review-name">{names[id] ?? <span className="mono">{id}</span>}</span>
              <span className="checkout-review-mark" data-mark={mark}>
                {mark === "left" ? LEFT_MARK : mark === "kept" ? "In this audience" : "Not checked yet"}
              </span>
            </li>
          );
        })}
      </ul>
      {ids.length > shown.length ? (
        <p className="hint-text checkout-hint">
          and {formatNumber(ids.length - shown.length)} more
          {state === "checked"
            ? ` (${formatNumber(left.filter((id) => !shown.includes(id)).length)} of them no longer in this audience)`
            : ""}
          .
        </p>
      ) : null}
    </div>
  );
}
