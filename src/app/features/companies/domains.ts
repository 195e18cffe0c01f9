import { VALUE_LIST_MAX } from "../../../contract/inferred";
import { valueKey } from "../../api/value-counts";
import { formatNumber } from "../../lib/format";

/** Lists of company domains as people paste or upload them (a spreadsheet's column...). */

import { isDomain, normaliseDomain } from "../../../contract/domains";

/** What a pasted or uploaded list holds, and what was left out of it and why. */
export interface DomainList {
  /** Each domain once, normalised, in the order given; at most the limit. */
  domains: string[];
  /** Entries read (blank lines aside). */
  entries: number;
  blankLines: number;
  /** Entries naming a domain already listed (once normalised). */
  duplicates: number;
  /** Entries written as a web or email address, with www. or capitals, read as their domain. */
  shortened: number;
  /** Entries that are no domain, as written, each once. */
  notDomains: string[];
  /** Domains past the limit, left out. */
  overLimit: number;
  /** The most domains the list holds (a condition's list limit). */
  limit: number;
  /** A header row that was skipped ("Company,Domain"), and the column read, when there was one. */
  header: { line: string; column: string | null } | null;
}

/** The cells of one line of CSV (comma, semicolon or tab; double quotes kept together). */
function cellsOf(line: string): string[] {
  if (!/[,;\t]/.test(line)) return [line.trim()];
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"' && quoted && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "," || char === ";" || char === "\t")) {
      cells.push(cell);
      cell = "";
    } else cell += char;
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

/** `acme.com beta.io` is two entries; `Acme Inc` stays one (which is no domain). */
function spaced(cell: string): string[] {
  const parts = cell.split(/\s+/).filter((part) => part !== "");
  return parts.length > 1 && parts.every((part) => isDomain(normaliseDomain(part))) ? parts : [cell];
}

/** A header cell naming the column of domains: "Domain", "Company website", "URL"… */
const DOMAIN_HEADER = /^(company |account |organi[sz]ation )?(domain|website|web site|url|site)s?( name)?$/i;

/**
 * The domains of a pasted list or a file's text: one or more a line, separated by commas,
 * semicolons, tabs or spaces; a CSV file's header row is skipped, and when it names a column of
 * domains only that column is read. Never throws; thousands of lines take milliseconds.
 */
export function readDomainList(text: string, limit = VALUE_LIST_MAX): DomainList {
  const lines = text.split(/\r\n|\n|\r/);
  // A last line break ends the last line; it starts no blank one.
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const result: DomainList = {
    domains: [],
    entries: 0,
    blankLines: 0,
    duplicates: 0,
    shortened: 0,
    notDomains: [],
    overLimit: 0,
    limit,
    header: null,
  };
  const firstFull = lines.findIndex((line) => line.trim() !== "");
  let column: number | null = null;
  if (firstFull >= 0) {
    const line = lines[firstFull] ?? "";
    const cells = cellsOf(line);
    const named = cells.findIndex((cell) => DOMAIN_HEADER.test(cell));
    // A header names the domains' column ("Domain"), or is a CSV row without a domain ("Company,Country").
    const csvWithout = /[,;\t]/.test(line) && !cells.some((cell) => isDomain(normaliseDomain(cell)));
    if (named >= 0 || csvWithout) {
      column = named >= 0 ? named : null;
      result.header = { line: line.trim(), column: named >= 0 ? (cells[named] ?? null) : null };
    }
  }
  const seen = new Set<string>();
  const refused = new Set<string>();
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") {
      result.blankLines++;
      continue;
    }
    if (result.header && index === firstFull) continue;
    const cells = cellsOf(line);
    const entries = (column === null ? cells : [cells[column] ?? ""]).flatMap(spaced);
    for (const entry of entries) {
      const written = entry.trim();
      if (written === "") continue;
      result.entries++;
      const domain = normaliseDomain(written);
      if (!isDomain(domain)) {
        if (!refused.has(written)) {
          refused.add(written);
          result.notDomains.push(written);
        }
        continue;
      }
      if (domain !== written) result.shortened++;
      if (seen.has(domain)) {
        result.duplicates++;
        continue;
      }
      seen.add(domain);
      if (result.domains.length < limit) result.domains.push(domain);
      else result.overLimit++;
    }
  }
  return result;
}

/** The domains of a list the data holds (`counts`: people by `valueKey`, from `checkPresence`) and the rest. */
export function matchDomains(
  domains: readonly string[],
  counts: ReadonlyMap<string, number>,
): { matched: string[]; unmatched: string[]; people: number } {
  const matched: string[] = [];
  const unmatched: string[] = [];
  let people = 0;
  for (const domain of domains) {
    const count = counts.get(valueKey(domain));
    if (count === undefined) unmatched.push(domain);
    else {
      matched.push(domain);
      people += count;
    }
  }
  return { matched, unmatched, people };
}

const some = (values: readonly string[], shown = 5) =>
  values.length > shown
    ? `${values
        .slice(0, shown)
        .map((v) => `“${v}”`)
        .join(", ")} and ${formatNumber(values.length - shown)} more`
    : values.map((v) => `“${v}”`).join(", ");

const counted = (count: number, one: string, many: string) =>
  `${formatNumber(count)} ${count === 1 ? one : many}`;

/** What reading the list changed or left out, a sentence each, in plain words. */
export function listNotes(list: DomainList): string[] {
  const notes: string[] = [];
  if (list.header)
    notes.push(
      list.header.column
        ? `The header row “${list.header.line}” was skipped; the ${list.header.column} column was read.`
        : `The header row “${list.header.line}” was skipped.`,
    );
  if (list.blankLines > 0) notes.push(`${counted(list.blankLines, "blank line", "blank lines")} skipped.`);
  if (list.shortened > 0)
    notes.push(
      `${counted(list.shortened, "entry", "entries")} read as the domain alone (https://www.Acme.com/about as acme.com).`,
    );
  if (list.duplicates > 0)
    notes.push(`${counted(list.duplicates, "repeated domain", "repeated domains")} counted once.`);
  if (list.notDomains.length > 0)
    notes.push(
      `${counted(list.notDomains.length, "entry is not a domain", "entries are not domains")}, left out: ${some(list.notDomains)}.`,
    );
  if (list.overLimit > 0)
    notes.push(
      `${counted(list.overLimit, "domain", "domains")} past the first ${formatNumber(list.limit)} left out: a condition holds at most ${formatNumber(list.limit)}.`,
    );
  return notes;
}
