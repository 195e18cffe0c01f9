import { queryOptions } from "@tanstack/react-query";
import type { FilterNodeInput, GroupInput } from "../../contract/filter";
import { call } from "./operations";

/**
 * How many people carry each value of a column, read from the insights breakdown (free on every
 * plan, cached by the proxy): the builder's suggestions with counts, and its check that a typed
 * value exists. Counts are over the whole dataset, not the audience being built, so they do not
 * change with every edit and one answer serves every rule on the column.
 */
export interface ValueCount {
  value: string;
  count: number;
}

/** Values are the dataset's; the service compares text without case. */
export const valueKey = (value: string) => value.trim().toLowerCase();

/** Values a presence check asks about per request: a breakdown lists 20 buckets, so none is left out. */
export const PRESENCE_CHUNK = 20;
/** A pasted list may hold thousands: only the first this many values are checked. */
export const PRESENCE_CHECKED_MAX = 200;

const VALUE_COUNTS_STALE_MS = 60 * 60 * 1000;

function everyoneWhere(...children: FilterNodeInput[]): GroupInput {
  return { type: "group", op: "AND", children };
}

async function breakdown(column: string, filter: GroupInput, signal: AbortSignal): Promise<ValueCount[]> {
  const answer = await call("insights", {
    body: { section: "breakdown", groupField: column, filter },
    signal,
  });
  if (answer.section !== "breakdown") return [];
  return answer.buckets.flatMap((bucket) =>
    typeof bucket.value === "string" ? [{ value: bucket.value, count: bucket.count }] : [],
  );
}

/** The most common values of `column` containing `text` (all of them when empty), with counts. */
export const valueSuggestionsQueryOptions = (column: string, text: string) =>
  queryOptions({
    queryKey: ["value-counts", "suggest", column, valueKey(text)] as const,
    queryFn: ({ signal }) =>
      breakdown(
        column,
        text.trim() === ""
          ? everyoneWhere()
          : everyoneWhere({ type: "condition", column, operator: "contains", value: text.trim() }),
        signal,
      ),
    staleTime: VALUE_COUNTS_STALE_MS,
    gcTime: VALUE_COUNTS_STALE_MS,
  });

/**
 * How many people carry each of `values` (at most PRESENCE_CHUNK): a value missing from the answer
 * matches no one.
 */
export const valuePresenceQueryOptions = (column: string, values: readonly string[]) =>
  queryOptions({
    queryKey: ["value-counts", "presence", column, ...values] as const,
    queryFn: ({ signal }) =>
      breakdown(
        column,
        everyoneWhere({ type: "condition", column, operator: "in", valueList: [...values] }),
        signal,
      ),
    staleTime: VALUE_COUNTS_STALE_MS,
    gcTime: VALUE_COUNTS_STALE_MS,
  });

/**
 * Existing values a typed one might have meant: the most common starting with its first letter
 * (where initials and typos of common values are found), and those starting like it or containing it.
 */
export const valueCandidatesQueryOptions = (column: string, typed: string) =>
  queryOptions({
    queryKey: ["value-counts", "near", column, valueKey(typed)] as const,
    queryFn: async ({ signal }) => {
      const text = typed.trim();
      const [byLetter, byStart] = await Promise.all([
        breakdown(
          column,
          everyoneWhere({ type: "condition", column, operator: "startsWith", value: text.slice(0, 1) }),
          signal,
        ),
        breakdown(
          column,
          {
            type: "group",
            op: "OR",
            children: [
              { type: "condition", column, operator: "startsWith", value: text.slice(0, 3) },
              { type: "condition", column, operator: "contains", value: text },
            ],
          },
          signal,
        ),
      ]);
      return [...byLetter, ...byStart];
    },
    staleTime: VALUE_COUNTS_STALE_MS,
    gcTime: VALUE_COUNTS_STALE_MS,
  });

/** The values of a list to check, deduplicated without case, in chunks of PRESENCE_CHUNK. */
export function presenceChunks(values: readonly string[]): string[][] {
  const byKey = new Map<string, string>();
  for (const value of values)
    if (value.trim() !== "" && !byKey.has(valueKey(value))) byKey.set(valueKey(value), value.trim());
  const unique = [...byKey.values()]
    .slice(0, PRESENCE_CHECKED_MAX)
    .sort((a, b) => valueKey(a).localeCompare(valueKey(b)));
  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += PRESENCE_CHUNK) chunks.push(unique.slice(i, i + PRESENCE_CHUNK));
  return chunks;
}
