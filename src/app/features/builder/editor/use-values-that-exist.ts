import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { type Column, getColumn } from "../../../../contract/columns";
import type { FilterNode, GroupNode } from "../../../../contract/filter";
import { OPERATOR_READS } from "../../../../contract/inferred";
import { useColumnValues } from "../../../api/column-values";
import {
  presenceChunks,
  type ValueCount,
  valueCandidatesQueryOptions,
  valueKey,
  valuePresenceQueryOptions,
  valueSuggestionsQueryOptions,
} from "../../../api/value-counts";
import { formatNumber } from "../../../lib/format";
import { nearestValues } from "../../../lib/nearest-values";
import { useDebouncedValue } from "../../../lib/use-debounced-value";
import { readableError } from "../../../ui/status";

/** Values whose "no one" is explained with nearest values; the rest are only marked. */
const EXPLAINED_MAX = 3;

export interface Suggestion {
  value: string;
  /** "12,345 people" when known. */
  hint?: string;
}

function peopleHint(count: number | undefined): string | undefined {
  return count === undefined ? undefined : `${formatNumber(count)} ${count === 1 ? "person" : "people"}`;
}

/**
 * What a value field offers while typing: the column's values containing the text, most common
 * first, with how many people carry each. An enumerable column lists all its values (in their own
 * order: size bands stay in size order), counted where the answer knows them.
 */
export function useValueSuggestions(column: Column | undefined, text: string, wanted: boolean) {
  const offers = wanted && column?.categorical === true;
  const enumerable = column?.enumerable === true;
  const settledText = useDebouncedValue(text.trim(), 150);
  // The most common values (what a list opened on a value already there shows), and those
  // containing the typed text (what typing narrows to, beyond the most common).
  const common = useQuery({
    ...valueSuggestionsQueryOptions(column?.name ?? "", ""),
    enabled: offers,
  });
  const matching = useQuery({
    ...valueSuggestionsQueryOptions(column?.name ?? "", settledText),
    enabled: offers && settledText !== "",
    placeholderData: keepPreviousData,
  });
  const listed = useColumnValues(column?.name ?? "", { enabled: offers && enumerable });
  const suggestions = useMemo<Suggestion[] | undefined>(() => {
    if (!offers) return undefined;
    const counted = [...(common.data ?? []), ...(settledText !== "" ? (matching.data ?? []) : [])];
    const known = new Map(counted.map((entry) => [valueKey(entry.value), entry.count]));
    const values = enumerable
      ? (listed.data?.values ?? [])
      : [...new Map(counted.map((entry) => [valueKey(entry.value), entry.value])).values()];
    return values.map((value) => {
      const hint = peopleHint(known.get(valueKey(value)));
      return hint ? { value, hint } : { value };
    });
  }, [offers, enumerable, common.data, matching.data, settledText, listed.data]);
  // An enumerable column's list stands without its counts; any other column's list is its counts.
  const failed = enumerable ? (listed.isError ? listed.error : null) : common.isError ? common.error : null;
  const status = !offers
    ? undefined
    : failed
      ? `Could not load the values: ${readableError(failed)}`
      : (enumerable ? listed.isPending : common.isPending)
        ? "Loading values…"
        : undefined;
  return { suggestions, status };
}

export interface AbsentValue {
  value: string;
  /** Existing values it probably meant, most likely first. */
  nearest: ValueCount[];
}

export interface ValueCheck {
  /** People per value (by valueKey), once the check has answered. */
  counts: ReadonlyMap<string, number>;
  /** Values that match no one (in the order given), each with what it probably meant. */
  absent: AbsentValue[];
}

const NO_VALUES: readonly string[] = [];

/**
 * The values, of those the presence check asked about (`chunks`), that are not among the answers
 * (`present`, by valueKey): each once, trimmed, in the order given.
 */
function matchingNoOne(
  values: readonly string[],
  chunks: readonly string[][],
  present: { has(key: string): boolean },
): string[] {
  const checked = new Set(chunks.flat().map(valueKey));
  const missing = values.filter((v) => checked.has(valueKey(v)) && !present.has(valueKey(v)));
  return [...new Map(missing.map((v) => [valueKey(v), v.trim()])).values()];
}

/**
 * Every answer's entries as one text ("null" until all have answered): a value compared by text,
 * so that the memos below run only when an answer changes.
 */
function answersOf(results: readonly { isSuccess: boolean; data?: ValueCount[] | undefined }[]): string {
  if (results.length === 0 || !results.every((r) => r.isSuccess)) return "null";
  return JSON.stringify(results.flatMap((r) => r.data ?? []));
}

/**
 * Checks that typed values exist in a categorical column, once they have settled (`settleMs`: a
 * single value being typed waits longer than a list's chips, added whole). Nothing is said until
 * every chunk has answered, so a value is never called absent while its answer is on its way.
 */
export function useValuesThatExist(
  column: Column | undefined,
  values: readonly string[] | undefined,
  settleMs: number,
): ValueCheck {
  const checks = column?.categorical === true;
  const key = JSON.stringify(checks ? (values ?? NO_VALUES) : NO_VALUES);
  const settledKey = useDebouncedValue(key, settleMs);
  const settled = useMemo(() => JSON.parse(settledKey) as string[], [settledKey]);
  const name = column?.name ?? "";
  const chunks = useMemo(() => presenceChunks(settled), [settled]);
  const presence = useQueries({
    queries: chunks.map((chunk) => ({ ...valuePresenceQueryOptions(name, chunk), enabled: checks })),
    combine: answersOf,
  });
  const counts = useMemo(
    () =>
      new Map(((JSON.parse(presence) as ValueCount[] | null) ?? []).map((e) => [valueKey(e.value), e.count])),
    [presence],
  );
  const absentValues = useMemo(
    () => (chunks.length === 0 || presence === "null" ? [] : matchingNoOne(settled, chunks, counts)),
    [chunks, presence, settled, counts],
  );
  const near = useQueries({
    queries: absentValues
      .slice(0, EXPLAINED_MAX)
      .map((value) => ({ ...valueCandidatesQueryOptions(name, value), enabled: checks })),
    combine: (results) => JSON.stringify(results.map((r) => r.data ?? [])),
  });
  const absent = useMemo(() => {
    const candidates = JSON.parse(near) as ValueCount[][];
    return absentValues.map((value, index) => ({
      value,
      nearest: nearestValues(value, candidates[index] ?? []),
    }));
  }, [absentValues, near]);
  return { counts, absent };
}

/** A rule's values that match no one, as the count beside the editor says them. */
export interface AbsentInRule {
  /** "list": one of the values of a list (counted without it); "eq" / "ne": the rule's one value. */
  reads: "list" | "eq" | "ne";
  values: string[];
}

/** The rules whose values are checked (categorical columns, equality or a list), with those values. */
function checkedRules(tree: GroupNode): { column: string; reads: AbsentInRule["reads"]; values: string[] }[] {
  const rules: { column: string; reads: AbsentInRule["reads"]; values: string[] }[] = [];
  const visit = (node: FilterNode) => {
    if (node.type === "group") node.children.forEach(visit);
    if (node.type !== "condition" || getColumn(node.column)?.categorical !== true) return;
    const list = OPERATOR_READS[node.operator] === "list";
    if (list && node.valueList && node.valueList.length > 0)
      rules.push({ column: node.column, reads: "list", values: [...node.valueList] });
    else if ((node.operator === "eq" || node.operator === "ne") && String(node.value ?? "").trim() !== "")
      rules.push({ column: node.column, reads: node.operator, values: [String(node.value)] });
  };
  visit(tree);
  return rules;
}

/**
 * Every rule's values that match no one, over the whole audience tree, for the count to say
 * ("“UK” matches no one; counted without it."). The same presence checks as each rule's own
 * (useValuesThatExist), so no request of their own once the rules have asked; said only once every
 * check of a rule has answered.
 */
export function useAbsentValues(tree: GroupNode, settleMs: number): AbsentInRule[] {
  const now = useMemo(() => JSON.stringify(checkedRules(tree)), [tree]);
  const key = useDebouncedValue(now, settleMs);
  const rules = useMemo(() => JSON.parse(key) as ReturnType<typeof checkedRules>, [key]);
  const asked = useMemo(() => rules.map((rule) => ({ rule, chunks: presenceChunks(rule.values) })), [rules]);
  const answers = useQueries({
    queries: asked.flatMap(({ rule, chunks }) =>
      chunks.map((chunk) => valuePresenceQueryOptions(rule.column, chunk)),
    ),
    combine: (results) => JSON.stringify(results.map((r) => (r.isSuccess ? r.data : null))),
  });
  return useMemo(() => {
    const each = JSON.parse(answers) as (ValueCount[] | null)[];
    let at = 0;
    const found: AbsentInRule[] = [];
    for (const { rule, chunks } of asked) {
      const mine = each.slice(at, at + chunks.length);
      at += chunks.length;
      if (mine.length === 0 || mine.some((answer) => answer === null)) continue;
      const present = new Set(mine.flatMap((answer) => answer ?? []).map((e) => valueKey(e.value)));
      const values = matchingNoOne(rule.values, chunks, present);
      if (values.length > 0) found.push({ reads: rule.reads, values });
    }
    return found;
  }, [answers, asked]);
}
