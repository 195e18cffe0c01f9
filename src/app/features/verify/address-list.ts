import Papa from "papaparse";
import { VERIFY_BATCH_MAX } from "../../../contract/inferred";
import { formatNumber } from "../../lib/format";

/**
 * Lists of addresses as people bring them: pasted (one per line, or separated by commas,
 * semicolons or spaces) or in a file (.csv, .json, .txt). Pure functions, read in the browser
 * before anything is sent, so the screen can show the count and the problems first.
 */

/** The seed: "Batch is advised for lists of 10 or more addresses; real-time for single lookups." */
export const BATCH_ADVISED_FROM = 10;

/** Most addresses in one job (inferred; the service's own limit). */
export const BATCH_MAX = VERIFY_BATCH_MAX;

/**
 * The proxy refuses bodies over 1 MiB (its default MAX_BODY_BYTES) with a 413; the multipart
 * wrapping takes a few hundred bytes of that.
 */
export const UPLOAD_MAX_BYTES = 1024 * 1024 - 2048;

/** A plausible address: one `@`, no spaces, a dot in the domain. The service has the final word. */
const EMAIL = /^[^@\s,;<>()"]+@[^@\s,;<>()"]+\.[^@\s,;<>()".]+$/;

export function looksLikeEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value) && !value.includes("..");
}

/** Quotes, angle brackets and a `mailto:` around an address (`"Jane" <jane@x.com>`). */
function unwrap(entry: string): string {
  return entry
    .trim()
    .replace(/^mailto:/i, "")
    .replace(/^[<"'([]+/, "")
    .replace(/[>"')\].]+$/, "");
}

export interface AddressList {
  /** Distinct plausible addresses, first spelling kept, in the order given. */
  addresses: string[];
  /** Repeats of an address already in the list (case ignored). */
  duplicates: number;
  /** Entries that are not addresses, each once, as typed. */
  invalid: string[];
  /** Non-blank entries in all. */
  entries: number;
}

/** Splits on new lines, commas, semicolons and whitespace; dedupes case-insensitively. */
export function parseAddressList(text: string): AddressList {
  return analyseEntries(text.split(/[\s,;]+/));
}

/** The same analysis over entries already split (the cells of a file's address column). */
export function analyseEntries(raw: readonly string[]): AddressList {
  const seen = new Set<string>();
  const invalidSeen = new Set<string>();
  const addresses: string[] = [];
  const invalid: string[] = [];
  let duplicates = 0;
  let entries = 0;
  for (const item of raw) {
    const trimmed = item.trim();
    if (trimmed === "") continue;
    entries += 1;
    const address = unwrap(trimmed);
    if (!looksLikeEmail(address)) {
      if (!invalidSeen.has(trimmed)) {
        invalidSeen.add(trimmed);
        invalid.push(trimmed);
      } else duplicates += 1;
      continue;
    }
    const key = address.toLowerCase();
    if (seen.has(key)) {
      duplicates += 1;
      continue;
    }
    seen.add(key);
    addresses.push(address);
  }
  return { addresses, duplicates, invalid, entries };
}

// ---------------------------------------------------------------------------------------- Files

export type ListFileKind = "csv" | "json" | "txt";

export function listFileKind(filename: string): ListFileKind | null {
  const match = /\.(csv|json|txt)$/i.exec(filename.trim());
  return match ? (match[1]!.toLowerCase() as ListFileKind) : null;
}

export type ListFileResult =
  | {
      ok: true;
      kind: ListFileKind;
      /**
       * What the service will check, one result each: every non-blank value of the address
       * column (.csv, .json: the file is sent as it is), or the distinct addresses (.txt, which the
       * service does not take: the app sends them as a one-column CSV).
       */
      entries: string[];
      list: AddressList;
    }
  | { ok: false; error: string };

/** Header names taken as the address column (the service reads the same ones). */
const EMAIL_COLUMNS = new Set(["email", "email_address", "e-mail", "email_address_per"]);

/**
 * Reads a list file the way the service will: a CSV's first row is a header when no cell of it
 * holds an `@`; the address column is the one the header names, else the first with an `@`.
 * A JSON file is an array of addresses, of `{ "email": ... }` objects, or `{ "emails": [...] }`.
 */
export function parseListFile(filename: string, text: string): ListFileResult {
  const kind = listFileKind(filename);
  if (!kind) return { ok: false, error: "Choose a .csv, .json or .txt file." };
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let values: string[];
  if (kind === "txt") {
    const list = parseAddressList(body);
    return finish(kind, list.addresses, list);
  }
  if (kind === "csv") {
    const read = csvValues(body);
    if ("error" in read) return { ok: false, error: read.error };
    values = read.values;
  } else {
    const read = jsonValues(body);
    if ("error" in read) return { ok: false, error: read.error };
    values = read.values;
  }
  const entries = values.map((v) => v.trim()).filter((v) => v !== "");
  return finish(kind, entries, analyseEntries(entries));
}

function finish(kind: ListFileKind, entries: string[], list: AddressList): ListFileResult {
  if (entries.length === 0) return { ok: false, error: "The file contains no email addresses." };
  if (entries.length > BATCH_MAX)
    return {
      ok: false,
      error: `The file holds ${formatNumber(entries.length)} addresses; one job takes at most ${formatNumber(BATCH_MAX)}. Split it into smaller files.`,
    };
  return { ok: true, kind, entries, list };
}

function csvValues(text: string): { values: string[] } | { error: string } {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: "greedy" });
  const quote = parsed.errors.find((e) => e.type === "Quotes");
  if (quote)
    return {
      error: `The CSV has a quoted field that is never closed${quote.row === undefined ? "" : ` (row ${quote.row + 1})`}.`,
    };
  const rows = parsed.data.filter((row) => row.some((cell) => cell.trim() !== ""));
  const [first] = rows;
  if (!first) return { values: [] };
  const hasHeader = !first.some((cell) => cell.includes("@"));
  const data = hasHeader ? rows.slice(1) : rows;
  const named = hasHeader ? first.findIndex((cell) => EMAIL_COLUMNS.has(cell.trim().toLowerCase())) : -1;
  let column = named;
  if (column === -1)
    for (const row of data) {
      const index = row.findIndex((cell) => cell.includes("@"));
      if (index !== -1 && (column === -1 || index < column)) column = index;
    }
  if (column === -1) return { values: [] };
  return { values: data.map((row) => row[column] ?? "") };
}

function jsonValues(text: string): { values: string[] } | { error: string } {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { error: "The file is not valid JSON." };
  }
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const list = Array.isArray(document)
    ? document
    : isRecord(document) && Array.isArray(document.emails)
      ? document.emails
      : null;
  if (!list)
    return {
      error:
        'Expected a JSON list of addresses, a list of objects with an "email" field, or {"emails": [...]}.',
    };
  const values: string[] = [];
  for (const [index, entry] of list.entries()) {
    const value = typeof entry === "string" ? entry : isRecord(entry) ? entry.email : undefined;
    if (typeof value !== "string")
      return { error: `Entry ${index + 1} of the list is neither an address nor an object with an "email".` };
    values.push(value);
  }
  return { values };
}

/** A one-column CSV (`email` header) of `addresses`: how a pasted list or a .txt file is sent. */
export function addressesCsv(addresses: readonly string[]): string {
  return ["email", ...addresses].map((line) => `${line}\r\n`).join("");
}

/** `pasted-2025-05-01-1402.csv`: a name that says where the job came from. */
export function pastedListName(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `pasted-list-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}.csv`;
}
