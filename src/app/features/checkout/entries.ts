import { ENRICH_MAX_ENTRIES } from "../../../contract/inferred";

/**
 * Lists people paste to enrich: ids (`RBID_PAO`) and emails, in any mix, separated by spaces, new
 * lines, commas or semicolons. Entries are checked and de-duplicated here, so the count shown before
 * confirming is the count paid for, and lists longer than one call takes are split.
 */

/** What an id looks like: letters, digits, `_` or `-`, at most 64 characters. */
const ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;
/** A plain address: something, one @, a domain with a dot; no spaces. At most 320 characters. */
const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+\.[^@\s.]+$/;
const EMAIL_MAX = 320;

export interface ParsedEntries {
  /** Ids, each once, in the order pasted. */
  ids: string[];
  /** Emails, each once (compared without case), as first pasted. */
  emails: string[];
  /** Entries dropped because they were already in the list. */
  duplicates: number;
  /** Entries that are neither an id nor an email, each once, in the order pasted. */
  invalid: string[];
}

/** Quotes and angle brackets around an entry (`"a@b.com"`, `<a@b.com>`) are not part of it. */
function unwrap(entry: string): string {
  return entry.replace(/^["'<(]+/, "").replace(/[">')]+$/, "");
}

export function parseEntries(text: string): ParsedEntries {
  const ids: string[] = [];
  const emails: string[] = [];
  const invalid: string[] = [];
  const seenIds = new Set<string>();
  const seenEmails = new Set<string>();
  const seenInvalid = new Set<string>();
  let duplicates = 0;
  for (const raw of text.split(/[\s,;]+/)) {
    const entry = unwrap(raw.trim());
    if (entry === "") continue;
    if (entry.includes("@")) {
      const key = entry.toLowerCase();
      if (entry.length > EMAIL_MAX || !EMAIL_SHAPE.test(entry)) {
        if (!seenInvalid.has(entry)) invalid.push(entry);
        seenInvalid.add(entry);
      } else if (seenEmails.has(key)) duplicates += 1;
      else {
        seenEmails.add(key);
        emails.push(entry);
      }
    } else if (!ID_SHAPE.test(entry)) {
      if (!seenInvalid.has(entry)) invalid.push(entry);
      seenInvalid.add(entry);
    } else if (seenIds.has(entry)) duplicates += 1;
    else {
      seenIds.add(entry);
      ids.push(entry);
    }
  }
  return { ids, emails, duplicates, invalid };
}

/** The lists of one Enrich call; an empty list is left out of the request. */
export interface EnrichLists {
  personIds?: string[];
  emails?: string[];
}

/**
 * Splits ids and emails into consecutive calls of at most `max` entries in all (ids first, then
 * emails, order kept), so that a long list is several calls whose results are merged.
 */
export function chunkEntries(
  ids: readonly string[],
  emails: readonly string[],
  max: number = ENRICH_MAX_ENTRIES,
): EnrichLists[] {
  const all: { kind: "id" | "email"; value: string }[] = [
    ...ids.map((value) => ({ kind: "id" as const, value })),
    ...emails.map((value) => ({ kind: "email" as const, value })),
  ];
  const chunks: EnrichLists[] = [];
  const size = Math.max(1, Math.floor(max));
  for (let start = 0; start < all.length; start += size) {
    const part = all.slice(start, start + size);
    const personIds = part.filter((e) => e.kind === "id").map((e) => e.value);
    const partEmails = part.filter((e) => e.kind === "email").map((e) => e.value);
    chunks.push({
      ...(personIds.length > 0 ? { personIds } : {}),
      ...(partEmails.length > 0 ? { emails: partEmails } : {}),
    });
  }
  return chunks;
}

/** How many calls a list of `entries` takes. */
export function callsFor(entries: number, max: number = ENRICH_MAX_ENTRIES): number {
  return entries <= 0 ? 0 : Math.ceil(entries / max);
}
