import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { canonicalKey } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import { inAudienceQueryOptions } from "../api/in-audience";
import { formatNumber } from "./format";
import type { SelectionSnapshot } from "./selection";
import { useDebouncedValue } from "./use-debounced-value";

/**
 * The one rule for buying what was ticked: before any purchase, the selected people are checked
 * against the audience being bought (free calls, api/in-audience.ts); those no longer in it are
 * marked and left out, so that Enrich (by contact id) and Export (the audience AND the ids) buy
 * exactly the same people.
 */

export type SelectionCheckState =
  /** Nobody is selected. */
  | "none"
  /** The audience has unfinished rules: who is in it cannot be asked yet. */
  | "unfinished"
  | "checking"
  | "failed"
  | "checked";

export interface CheckedSelection {
  /** Every selected id, oldest first. */
  readonly ids: readonly string[];
  /** The names the sample showed for them. */
  readonly names: Readonly<Record<string, string>>;
  readonly state: SelectionCheckState;
  /** Still in the audience: the only ones a purchase takes (empty until checked). */
  readonly kept: readonly string[];
  /** No longer in the audience: marked, never bought (empty until checked). */
  readonly left: readonly string[];
  /** Why the selection cannot be bought now (not checked yet, or the check failed), in words. */
  readonly problem: string | null;
  /** Asks again after a failure. */
  readonly recheck: (() => void) | null;
}

/** The selection split by what the check `found` in the audience, in the order ticked. */
export function splitSelection(
  ids: readonly string[],
  found: Iterable<string>,
): { kept: string[]; left: string[] } {
  const inside = new Set(found);
  return { kept: ids.filter((id) => inside.has(id)), left: ids.filter((id) => !inside.has(id)) };
}

/** A selection checked and found as `found` (tests and callers that already know). */
export function checkedSelection(
  ids: readonly string[],
  found: Iterable<string> = ids,
  names: Readonly<Record<string, string>> = {},
): CheckedSelection {
  return {
    ids,
    names,
    state: ids.length === 0 ? "none" : "checked",
    ...splitSelection(ids, found),
    problem: null,
    recheck: null,
  };
}

/**
 * "4 of 5 selected people left the audience after your edits; 1 will be bought." Null when nobody
 * left.
 */
export function leftSentence(selected: number, left: number): string | null {
  if (left <= 0) return null;
  const kept = selected - left;
  const bought = kept === 0 ? "no one will be bought" : `${formatNumber(kept)} will be bought`;
  const who =
    selected === 1
      ? "The 1 selected person"
      : `${formatNumber(left)} of ${formatNumber(selected)} selected people`;
  return `${who} left the audience after your edits; ${bought}.`;
}

/**
 * Who a purchase of the selection takes, for its review and the ledger: "the 5 people selected in
 * the sample"; with people who left, "the 1 person selected in the sample still in this audience
 * (4 who left it are not bought)".
 */
export function selectedPeoplePhrase(kept: number, left: number): string {
  const people = `${formatNumber(kept)} ${kept === 1 ? "person" : "people"} selected in the sample`;
  if (left === 0) return `the ${people}`;
  return `the ${people} still in this audience (${formatNumber(left)} who left it ${left === 1 ? "is" : "are"} not bought)`;
}

/**
 * Why no one of the selection can be bought now, or null when its `kept` people can: nobody is
 * selected, the check has not answered (or failed), or everyone left. `instead` says what to do.
 */
export function selectionBlocked(selection: CheckedSelection, instead: string): string | null {
  if (selection.ids.length === 0) return `No one is selected. ${instead}`;
  if (selection.state !== "checked") return selection.problem;
  if (selection.kept.length === 0)
    return `${leftSentence(selection.ids.length, selection.left.length)} ${instead}`;
  return null;
}

/** The mark of a person who left, in Checkout's lists and the sample's. */
export const LEFT_MARK = "No longer in this audience";

/**
 * The selection checked against `audience` (the filter as sent; `valid` false while it has
 * unfinished rules). Asked again whenever the audience or the selection changes.
 */
export function useCheckedSelection(
  audience: GroupNode,
  valid: boolean,
  selection: Pick<SelectionSnapshot, "ids" | "names">,
): CheckedSelection {
  const { ids, names } = selection;
  const asked = valid && ids.length > 0;
  const query = useQuery({ ...inAudienceQueryOptions(audience, ids), enabled: asked });
  const { data, error, refetch } = query;
  return useMemo((): CheckedSelection => {
    const base = { ids, names, kept: [], left: [], recheck: null };
    if (ids.length === 0) return { ...base, state: "none", problem: null };
    if (!valid)
      return {
        ...base,
        state: "unfinished",
        problem:
          "Who of the people you selected is still in this audience can be checked once its rules are finished.",
      };
    if (data) return checkedSelection(ids, data, names);
    if (error)
      return {
        ...base,
        state: "failed",
        problem: `Who of the people you selected is still in this audience could not be checked, so they cannot be bought yet: ${error.message}`,
        recheck: () => void refetch(),
      };
    return {
      ...base,
      state: "checking",
      problem: "Checking who of the people you selected is still in this audience…",
    };
  }, [ids, names, valid, data, error, refetch]);
}

/** How long the audience and the ticks must stay unchanged before the Builder checks them. */
export const SELECTION_CHECK_SETTLE_MS = 800;

/**
 * The Builder's check: `useCheckedSelection` once the audience (by canonical key) and the ticks
 * have stayed unchanged for a moment, so typing and ticking ask nothing per keystroke or tick.
 * Null while they settle.
 */
export function useSettledCheckedSelection(
  audience: GroupNode,
  valid: boolean,
  selection: Pick<SelectionSnapshot, "ids" | "names">,
): CheckedSelection | null {
  const key = canonicalKey(audience);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the audience.
  const now = useMemo(() => ({ key, audience, valid, selection }), [key, valid, selection]);
  const settled = useDebouncedValue(now, SELECTION_CHECK_SETTLE_MS);
  const checked = useCheckedSelection(settled.audience, settled.valid, settled.selection);
  return settled === now ? checked : null;
}
