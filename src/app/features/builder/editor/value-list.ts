import { VALUE_LIST_MAX } from "../../../../contract/inferred";
import { formatNumber } from "../../../lib/format";

/** Splits typed or pasted text into list entries: commas, semicolons, newlines and tabs separate. */
export function splitList(text: string): string[] {
  return text
    .split(/[,;\t\r\n]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

export interface MergeResult {
  list: string[];
  /** Entries already present (or repeated in the paste), left out. */
  duplicates: number;
  /** Entries beyond VALUE_LIST_MAX, left out. */
  dropped: number;
}

/**
 * Adds entries to a list: deduplicated (case-insensitively, as the service compares text), in
 * order, up to `max` entries in all.
 */
export function mergeIntoList(
  current: readonly string[],
  added: readonly string[],
  max: number = VALUE_LIST_MAX,
): MergeResult {
  const seen = new Set(current.map((entry) => entry.toLowerCase()));
  const list = [...current];
  let duplicates = 0;
  let dropped = 0;
  for (const entry of added) {
    const key = entry.toLowerCase();
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    if (list.length >= max) {
      dropped++;
      continue;
    }
    seen.add(key);
    list.push(entry);
  }
  return { list, duplicates, dropped };
}

/** A sentence about what a merge left out, or null when it kept everything. */
export function mergeMessage(result: MergeResult, max: number = VALUE_LIST_MAX): string | null {
  const parts: string[] = [];
  if (result.dropped > 0)
    parts.push(
      `A list holds at most ${formatNumber(max)} values: ${formatNumber(result.dropped)} ${
        result.dropped === 1 ? "was" : "were"
      } left out.`,
    );
  if (result.duplicates > 0)
    parts.push(`${formatNumber(result.duplicates)} duplicate${result.duplicates === 1 ? "" : "s"} skipped.`);
  return parts.length > 0 ? parts.join(" ") : null;
}

/** A whole number as the service takes it (the contract's list check: up to 15 digits). */
export function parseWholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^-?\d{1,15}$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : null;
}

/** Characters of values a folded list names before "+N" says the rest. */
const FOLDED_CHARS = 30;

/**
 * A folded list in words, readable without opening it: its first values (at least one, as many as
 * fit about FOLDED_CHARS) and how many more ("Germany, France" and 1 more).
 */
export function foldedList(values: readonly string[]): { names: string; more: number } {
  const names: string[] = [];
  let used = 0;
  for (const value of values) {
    if (names.length > 0 && used + value.length > FOLDED_CHARS) break;
    names.push(value);
    used += value.length + 2;
  }
  return { names: names.join(", "), more: values.length - names.length };
}
