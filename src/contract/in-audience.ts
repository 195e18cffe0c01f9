import { canonicalFilter } from "./canonical";
import type { GroupNode } from "./filter";
import { VALUE_LIST_MAX, VIEW_LIMIT } from "./inferred";

/**
 * Which of some contact ids are in an audience, found with free calls only (Count and View; no
 * credit is ever spent). Shared by the proxy (contacts the team owns, added free to an export) and
 * the app (people ticked in the sample, checked before any purchase).
 */

/** At most this many free Count and View calls to find which ids are in an audience. */
export const FREE_CALLS_MAX = 200;

/**
 * The audience narrowed to exactly these people: `RBID_PAO in [ids]` ANDed with it, in canonical
 * form (so that equal requests share a cache key). The audience of everyone is just the ids.
 */
export function withinIds(audience: GroupNode | null | undefined, ids: readonly string[]): GroupNode {
  const picked = {
    type: "condition" as const,
    column: "RBID_PAO",
    operator: "in" as const,
    valueList: [...ids],
  };
  const base = canonicalFilter(audience);
  const everyone = base.children.length === 0 && !base.negate;
  return canonicalFilter({
    type: "group",
    op: "AND",
    negate: false,
    children: everyone ? [picked] : [base, picked],
  });
}

export interface FreeCalls {
  /** How many people `filter` keeps (Count). */
  count(filter: GroupNode): Promise<number>;
  /** The RBID_PAO of every row `filter` keeps, when it keeps at most 100 (View, columns [RBID_PAO]). */
  list(filter: GroupNode): Promise<readonly unknown[]>;
}

/**
 * A Count of `audience AND RBID_PAO in [chunk]` settles a chunk wholly in (count = its size) or
 * wholly out (0) with one call; a partial chunk is split in halves, and one under 100 ids is listed
 * by a View. At most `maxCalls` calls: `complete` says whether every id was settled. Ids are matched
 * as the service matches them, without regard to case; `found` holds them as given.
 */
export async function idsInAudience(
  audience: GroupNode | null | undefined,
  ids: readonly string[],
  calls: FreeCalls,
  maxCalls = FREE_CALLS_MAX,
): Promise<{ found: string[]; complete: boolean }> {
  const found: string[] = [];
  let spent = 0;
  const queue: string[][] = [];
  for (let i = 0; i < ids.length; i += VALUE_LIST_MAX) queue.push(ids.slice(i, i + VALUE_LIST_MAX));
  while (queue.length > 0) {
    if (spent >= maxCalls) return { found, complete: false };
    const chunk = queue.shift()!;
    spent++;
    if (chunk.length < VIEW_LIMIT.max) {
      const byLower = new Map(chunk.map((id) => [id.toLowerCase(), id]));
      for (const listed of await calls.list(withinIds(audience, chunk))) {
        const id = byLower.get(String(listed).toLowerCase());
        if (id) found.push(id);
      }
      continue;
    }
    const n = await calls.count(withinIds(audience, chunk));
    if (n === 0) continue;
    if (n >= chunk.length) {
      found.push(...chunk);
      continue;
    }
    const half = Math.ceil(chunk.length / 2);
    queue.unshift(chunk.slice(0, half), chunk.slice(half));
  }
  return { found, complete: true };
}

/**
 * Which of these ids a filter keeps, by Count alone: a chunk counted 0 is out, one counted whole is
 * in, any other is halved down to single ids. No View is asked, so no daily sample budget can
 * shorten the answer: this is the check a purchase relies on (do-not-contact lists). Unbounded in
 * calls (about 2 × log2(1000) per id found, plus one per 1,000 ids); a failed call throws.
 */
export async function idsMatching(
  filter: GroupNode,
  ids: readonly string[],
  count: (filter: GroupNode) => Promise<number>,
): Promise<Set<string>> {
  // The service matches ids without regard to case or surrounding spaces: one question per person.
  const asGiven = new Map<string, string[]>();
  for (const id of ids) {
    const norm = id.trim().toLowerCase();
    asGiven.set(norm, [...(asGiven.get(norm) ?? []), id]);
  }
  const people = [...asGiven.keys()];
  const found = new Set<string>();
  const queue: string[][] = [];
  for (let i = 0; i < people.length; i += VALUE_LIST_MAX) queue.push(people.slice(i, i + VALUE_LIST_MAX));
  while (queue.length > 0) {
    const chunk = queue.shift()!;
    const n = await count(withinIds(filter, chunk));
    if (n === 0) continue;
    if (n >= chunk.length) {
      for (const person of chunk) for (const id of asGiven.get(person)!) found.add(id);
      continue;
    }
    const half = Math.ceil(chunk.length / 2);
    queue.unshift(chunk.slice(0, half), chunk.slice(half));
  }
  return found;
}
