import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { canonicalFilter, canonicalKey } from "../../contract/canonical";
import type { FilterNodeInput, GroupInput, GroupNode } from "../../contract/filter";
import { ApiError } from "./api-error";
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

/** The values of `column` among the people `filter` keeps, most common first (20 at most), with their people. */
export async function breakdown(
  column: string,
  filter: GroupInput,
  signal?: AbortSignal,
): Promise<ValueCount[]> {
  const answer = await call("insights", {
    body: { section: "breakdown", groupField: column, filter },
    ...(signal ? { signal } : {}),
  });
  if (answer.section !== "breakdown") return [];
  return answer.buckets.flatMap((bucket) =>
    typeof bucket.value === "string" ? [{ value: bucket.value, count: bucket.count }] : [],
  );
}

/**
 * The companies of the contact data named `name` (the service compares without case), by `key`:
 * their ids (`RBID_ORG`) or website domains (`DOMAIN_ORG`), most people first, with their people.
 * Free; companies without that key are not among them.
 */
export function companiesNamed(
  name: string,
  key: "RBID_ORG" | "DOMAIN_ORG",
  signal?: AbortSignal,
): Promise<ValueCount[]> {
  return breakdown(key, peopleOfCompanyNamed(name), signal);
}

/** Everyone at a company named `name` (any case): what questions about that company ask over. */
export function peopleOfCompanyNamed(name: string): GroupInput {
  return everyoneWhere({ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: name });
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
 * matches no one. Over the whole dataset, or over the people of `within` (an audience) when given.
 */
export const valuePresenceQueryOptions = (column: string, values: readonly string[], within?: GroupNode) =>
  queryOptions({
    queryKey: ["value-counts", "presence", column, within ? canonicalKey(within) : null, ...values] as const,
    queryFn: ({ signal }) => {
      const present: FilterNodeInput = { type: "condition", column, operator: "in", valueList: [...values] };
      return breakdown(
        column,
        within ? everyoneWhere(canonicalFilter(within), present) : everyoneWhere(present),
        signal,
      );
    },
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

/**
 * The values of a list to check, deduplicated without case, in chunks of PRESENCE_CHUNK: the first
 * `max` of them (the Builder checks what a person reads; a target-account list is checked whole).
 */
export function presenceChunks(values: readonly string[], max = PRESENCE_CHECKED_MAX): string[][] {
  const byKey = new Map<string, string>();
  for (const value of values)
    if (value.trim() !== "" && !byKey.has(valueKey(value))) byKey.set(valueKey(value), value.trim());
  const unique = [...byKey.values()].slice(0, max).sort((a, b) => valueKey(a).localeCompare(valueKey(b)));
  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += PRESENCE_CHUNK) chunks.push(unique.slice(i, i + PRESENCE_CHUNK));
  return chunks;
}

/** How far a long presence check has got. */
export interface PresenceProgress {
  /** Values answered so far, of `total`. */
  checked: number;
  total: number;
  /** Seconds the rate limit asked to wait before the next try; null while nothing waits. */
  waitSeconds: number | null;
}

export interface CheckPresenceOptions {
  signal?: AbortSignal;
  /** Chunks asked at once: few, so that the team's other calls keep their turn in the proxy's queue. */
  concurrency?: number;
  onProgress?: (progress: PresenceProgress) => void;
  within?: GroupNode;
}

/** Tries of one chunk the rate limit may refuse before the check gives up. */
const RATE_LIMITED_TRIES = 6;
const DEFAULT_WAIT_SECONDS = 5;

function pause(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, seconds * 1000);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/**
 * Which of many values carry people, chunk by chunk through `valuePresenceQueryOptions` (free, and
 * cached: the Builder's checks and a second run share the answers), a few at a time so a long list
 * neither floods the proxy nor holds up the page. A 429 waits as long as it says and tries again;
 * any other failure rejects (the chunks that answered stay cached, so running it again resumes).
 * Resolves to each present value's count, by `valueKey`; rejects with the signal's reason when
 * aborted, asking nothing more.
 */
export async function checkPresence(
  queryClient: QueryClient,
  column: string,
  chunks: readonly (readonly string[])[],
  { signal, concurrency = 2, onProgress, within }: CheckPresenceOptions = {},
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  let checked = 0;
  let next = 0;
  const report = (waitSeconds: number | null) => onProgress?.({ checked, total, waitSeconds });

  const askOne = async (chunk: readonly string[]) => {
    for (let tries = 1; ; tries++) {
      signal?.throwIfAborted();
      try {
        return await queryClient.fetchQuery(valuePresenceQueryOptions(column, chunk, within));
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === "rate-limited") || tries >= RATE_LIMITED_TRIES)
          throw error;
        const seconds = error.retryAfter ?? DEFAULT_WAIT_SECONDS;
        report(seconds);
        await pause(seconds, signal);
      }
    }
  };
  let failed = false;
  const worker = async () => {
    while (next < chunks.length && !failed) {
      const chunk = chunks[next++] ?? [];
      try {
        for (const entry of await askOne(chunk)) counts.set(valueKey(entry.value), entry.count);
      } catch (error) {
        failed = true; // the other workers stop asking
        throw error;
      }
      checked += chunk.length;
      report(null);
    }
  };
  report(null);
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, chunks.length)) }, worker));
  signal?.throwIfAborted();
  return counts;
}
