import { type Kysely, sql } from "kysely";
import Papa from "papaparse";
import type { FilterNode, GroupNode } from "../../contract/filter";
import { idsMatching } from "../../contract/in-audience";
import { VALUE_LIST_MAX } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { operationById } from "../../contract/routes";
import {
  EXCLUSIONS_MAX,
  SUPPRESSION_KINDS,
  type SuppressionKind,
  type SuppressionList,
} from "../../contract/spending";
import type { Tables } from "../db/schema";
import { type BufferedAnswer, problem } from "../http/answer";
import type { UpstreamClient } from "../upstream/upstream";
import { contactKey, ownedByEmail } from "./owned-store";

/**
 * The team's do-not-contact lists (spend/README.md, "Suppression lists"): entries normalised
 * as they are stored (domains lower-case without scheme, www or path; LinkedIn profiles as
 * `https://www.linkedin.com/in/<slug>`; emails and ids lower-case), and the filter conditions that
 * leave them out of every Export, estimate, review and Preview.
 */

type Db = Kysely<Tables>;

/** A value's kind by its shape, or why it is none. */
export function kindOf(value: string): SuppressionKind | string {
  const v = value.trim();
  if (/^pao_[\w-]+$/i.test(v)) return "personId";
  if (/^org_[\w-]+$/i.test(v)) return "companyId";
  if (/linkedin\.com\/in\//i.test(v)) return "linkedin";
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) return "email";
  if (/^(https?:\/\/)?(www\.)?([a-z0-9-]+\.)+[a-z]{2,}(\/\S*)?$/i.test(v)) return "domain";
  return "not a contact id (pao_…), company id (org_…), LinkedIn profile, email or domain";
}

/** The stored form of a value of this kind, or null when it is not one. */
export function normalise(kind: SuppressionKind, value: string): string | null {
  const v = value.trim();
  if (v === "") return null;
  switch (kind) {
    case "personId":
      return /^pao_[\w-]+$/i.test(v) ? v.toLowerCase() : null;
    case "companyId":
      return /^org_[\w-]+$/i.test(v) ? v.toLowerCase() : null;
    case "email":
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? v.toLowerCase() : null;
    case "domain": {
      const host = v
        .toLowerCase()
        .replace(/^[a-z]+:\/\//, "")
        .replace(/^www\./, "")
        .replace(/[/?#].*$/, "")
        .replace(/:\d+$/, "")
        .replace(/\.$/, "");
      return /^([a-z0-9-]+\.)+[a-z]{2,}$/.test(host) ? host : null;
    }
    case "linkedin": {
      const m = /linkedin\.com\/in\/([^/?#\s]+)/i.exec(v);
      if (!m) return null;
      let slug = m[1]!;
      try {
        slug = decodeURIComponent(slug);
      } catch {}
      return `https://www.linkedin.com/in/${slug.toLowerCase()}`;
    }
  }
}

/** A header cell that names a kind (a CSV's first row). */
function headerKind(cell: string): SuppressionKind | null {
  const h = cell
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
  if (/^(domain|domainorg|website|companydomain|domains|url)$/.test(h)) return "domain";
  if (/^(companyid|rbidorg|orgid|companyids)$/.test(h)) return "companyId";
  if (/^(personid|contactid|rbidpao|paoid|personids|contactids)$/.test(h)) return "personId";
  if (/^(linkedin|linkedinurl|linkedinurlper|linkedinprofile)$/.test(h)) return "linkedin";
  if (/^(email|emailaddress|emailaddressper|emails|mail)$/.test(h)) return "email";
  return null;
}

export interface ParsedEntries {
  entries: { kind: SuppressionKind; value: string }[];
  rejected: { line: number; value: string; reason: string }[];
}

/**
 * Pasted lines or a CSV file's text. A first row with a cell naming a kind ("domain", "email",
 * "RBID_PAO", …) is a header: those columns are read as that kind. Otherwise every non-empty cell
 * is read by its shape.
 */
export function parseEntries(text: string): ParsedEntries {
  const rows = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { skipEmptyLines: false }).data;
  const out: ParsedEntries = { entries: [], rejected: [] };
  const header = rows[0]?.map(headerKind) ?? [];
  const hasHeader = header.some((k) => k !== null);
  const take = (line: number, cell: string, kind: SuppressionKind | null) => {
    const raw = cell.trim();
    if (raw === "") return;
    const k = kind ?? kindOf(raw);
    if (!(SUPPRESSION_KINDS as readonly string[]).includes(k)) {
      out.rejected.push({ line, value: raw.slice(0, 200), reason: k });
      return;
    }
    const value = normalise(k as SuppressionKind, raw);
    if (value === null)
      out.rejected.push({
        line,
        value: raw.slice(0, 200),
        reason: `not a valid ${wordOf(k as SuppressionKind)}`,
      });
    else out.entries.push({ kind: k as SuppressionKind, value });
  };
  rows.forEach((row, i) => {
    if (hasHeader && i === 0) return;
    if (hasHeader)
      row.forEach((cell, j) => {
        const kind = header[j];
        if (kind) take(i + 1, cell, kind);
      });
    else for (const cell of row) take(i + 1, cell, null);
  });
  return out;
}

const wordOf = (k: SuppressionKind) =>
  ({
    domain: "domain",
    companyId: "company id",
    personId: "contact id",
    linkedin: "LinkedIn profile",
    email: "email address",
  })[k];

export async function listOf(db: Db, id: string): Promise<SuppressionList | null> {
  const list = await db.selectFrom("suppression_lists").selectAll().where("id", "=", id).executeTakeFirst();
  if (!list) return null;
  const counts = await db
    .selectFrom("suppression_entries")
    .select(["kind", sql<string>`count(*)`.as("n")])
    .where("list_id", "=", id)
    .groupBy("kind")
    .execute();
  return shape(list, counts);
}

function shape(
  list: { id: string; name: string; created_by: string; created_at: Date | string },
  counts: { kind: string; n: string | number }[],
): SuppressionList {
  const byKind = Object.fromEntries(SUPPRESSION_KINDS.map((k) => [k, 0])) as Record<SuppressionKind, number>;
  for (const c of counts) byKind[c.kind as SuppressionKind] = Number(c.n);
  return {
    id: list.id,
    name: list.name,
    createdBy: list.created_by,
    createdAt: new Date(list.created_at).toISOString(),
    counts: byKind,
    entries: Object.values(byKind).reduce((a, b) => a + b, 0),
  };
}

export async function addEntries(
  db: Db,
  listId: string,
  parsed: ParsedEntries,
): Promise<{ added: number; duplicates: number }> {
  const unique = new Map(parsed.entries.map((e) => [`${e.kind}\n${e.value}`, e]));
  let added = 0;
  const all = [...unique.values()];
  for (let i = 0; i < all.length; i += 2000) {
    const chunk = all.slice(i, i + 2000).map((e) => ({ list_id: listId, kind: e.kind, value: e.value }));
    const inserted = await db
      .insertInto("suppression_entries")
      .values(chunk)
      .onConflict((oc) => oc.columns(["list_id", "kind", "value"]).doNothing())
      .returning("value")
      .execute();
    added += inserted.length;
  }
  return { added, duplicates: parsed.entries.length - added };
}

export interface Suppressed {
  /** Normalised values by kind, over every list of the team. */
  byKind: Record<SuppressionKind, string[]>;
  /** Contact ids of owned contacts whose delivered email is on a list. */
  emailIds: string[];
  /** Emails on a list that match no contact the team owns (the service shows no address before purchase). */
  emailsUnmatched: number;
  /** The domains of those emails: their companies' people are left out, the person not being knowable. */
  emailDomains: string[];
}

/** Everything on the team's lists, emails mapped to the owned contacts they match. */
export async function readSuppressed(db: Db): Promise<Suppressed> {
  const rows = await db.selectFrom("suppression_entries").select(["kind", "value"]).distinct().execute();
  const byKind = Object.fromEntries(SUPPRESSION_KINDS.map((k) => [k, [] as string[]])) as Record<
    SuppressionKind,
    string[]
  >;
  for (const r of rows) byKind[r.kind].push(r.value);
  let emailIds: string[] = [];
  let matchedEmails = new Set<string>();
  if (byKind.email.length > 0) {
    const found = await ownedByEmail(db, byKind.email);
    emailIds = [...new Set(found.map((f) => f.id))];
    matchedEmails = new Set(found.map((f) => f.email));
  }
  const unmatched = byKind.email.filter((e) => !matchedEmails.has(e));
  const emailDomains = new Set<string>();
  for (const email of unmatched) {
    const domain = normalise("domain", email.slice(email.lastIndexOf("@") + 1));
    if (domain !== null) emailDomains.add(domain);
  }
  return { byKind, emailIds, emailsUnmatched: unmatched.length, emailDomains: [...emailDomains].sort() };
}

export const hasSuppressed = (s: Suppressed) =>
  s.emailIds.length > 0 ||
  s.emailDomains.length > 0 ||
  (["domain", "companyId", "personId", "linkedin"] as const).some((k) => s.byKind[k].length > 0);

/** `column in [values]`, split into lists the contract admits. */
export function inLists(
  column: string,
  values: readonly string[],
  operator: "in" | "notIn" = "in",
): FilterNode[] {
  const out: FilterNode[] = [];
  for (let i = 0; i < values.length; i += VALUE_LIST_MAX)
    out.push({
      type: "condition",
      column,
      operator,
      valueList: values.slice(i, i + VALUE_LIST_MAX),
    } as FilterNode);
  return out;
}

/**
 * `(DOMAIN_ORG in … OR RBID_ORG in … OR RBID_PAO in … OR LINKEDIN_URL_PER in …)`, or null if empty.
 * A listed address nobody the team owns has is matched by its domain: the service keeps addresses
 * out of every filter (they are what is paid for), so its person cannot be told from colleagues
 * before a purchase, and none of them is bought rather than one bought and withheld.
 */
export function suppressedMatch(s: Suppressed): GroupNode | null {
  const children = [
    ...inLists("DOMAIN_ORG", [...new Set([...s.byKind.domain, ...s.emailDomains])]),
    ...inLists("RBID_ORG", s.byKind.companyId),
    ...inLists("RBID_PAO", [...new Set([...s.byKind.personId, ...s.emailIds])]),
    ...inLists("LINKEDIN_URL_PER", s.byKind.linkedin),
  ];
  if (children.length === 0) return null;
  return { type: "group", op: "OR", negate: false, children } as GroupNode;
}

/** The filter AND every extra node: the original root becomes the first child. */
export function andAll(
  filter: GroupNode | null | undefined,
  extra: FilterNode[],
): GroupNode | null | undefined {
  if (extra.length === 0) return filter;
  const children: FilterNode[] = filter ? [filter, ...extra] : extra;
  return { type: "group", op: "AND", negate: false, children } as GroupNode;
}

/** The filter without anything on the team's lists. */
export function withoutSuppressed(filter: GroupNode | null | undefined, s: Suppressed) {
  const match = suppressedMatch(s);
  return match ? andAll(filter, [{ ...match, negate: true }]) : filter;
}

/** The entries the lists put in a purchase's filter (what `suppressedMatch` sends). */
export function exclusionsOf(s: Suppressed): number {
  return (
    new Set([...s.byKind.domain, ...s.emailDomains]).size +
    s.byKind.companyId.length +
    new Set([...s.byKind.personId, ...s.emailIds]).size +
    s.byKind.linkedin.length
  );
}

/**
 * The refusal of a purchase whose filter would carry more than EXCLUSIONS_MAX exclusions (the
 * lists, and `owned` ids an export leaves out), or null when it is within the budget.
 */
export function exclusionsRefusal(s: Suppressed, owned = 0): BufferedAnswer | null {
  const listed = exclusionsOf(s);
  if (listed + owned <= EXCLUSIONS_MAX) return null;
  const n = (x: number) => x.toLocaleString("en");
  const parts = [
    `the do-not-contact lists: ${n(listed)}`,
    ...(owned > 0 ? [`contacts the team owns: ${n(owned)}`] : []),
  ];
  return problem(
    422,
    `This purchase would have to leave out ${n(listed + owned)} entries in its request (${parts.join("; ")}), more than the ${n(EXCLUSIONS_MAX)} the proxy sends in one request. Nothing was sent and nothing charged. ` +
      (owned > 0
        ? "Choose to buy owned contacts again, or shorten the do-not-contact lists"
        : "Shorten the do-not-contact lists") +
      " (one company domain covers all of its people).",
  );
}

/** What cannot be applied before a purchase, in plain words (none when nothing of the kind). */
export function suppressionNotes(s: Suppressed): string[] {
  if (s.emailsUnmatched === 0) return [];
  const n = s.emailsUnmatched;
  const domains = s.emailDomains.slice(0, 3).join(", ") + (s.emailDomains.length > 3 ? ", …" : "");
  return [
    `${n} suppressed email ${n === 1 ? "address matches" : "addresses match"} no contact the team has bought. The data service shows no address before a purchase, so ${n === 1 ? "that person" : "those people"} cannot be told apart from ${n === 1 ? "their" : "their"} colleagues: everyone at ${domains} is left out. To buy people there, replace the address on the list with that person's contact id or LinkedIn profile.`,
  ];
}

/** Every list of the team, newest first, with its counts. */
export async function allLists(db: Db): Promise<SuppressionList[]> {
  const all = await db.selectFrom("suppression_lists").selectAll().orderBy("created_at", "desc").execute();
  const counts = await db
    .selectFrom("suppression_entries")
    .select(["list_id", "kind", sql<string>`count(*)`.as("n")])
    .groupBy(["list_id", "kind"])
    .execute();
  return all.map((l) =>
    shape(
      l,
      counts.filter((x) => x.list_id === l.id),
    ),
  );
}

export async function createList(
  db: Db,
  list: { id: string; name: string; createdBy: string },
): Promise<void> {
  await db
    .insertInto("suppression_lists")
    .values({
      id: list.id,
      name: list.name,
      created_by: list.createdBy,
      created_at: sql<Date>`now()` as never,
    })
    .execute();
}

/** A list's name; null when there is no such list. */
export async function listName(db: Db, id: string): Promise<string | null> {
  const list = await db
    .selectFrom("suppression_lists")
    .select("name")
    .where("id", "=", id)
    .executeTakeFirst();
  return list?.name ?? null;
}

/** Deletes a list (its entries with it); its name, or null when there was no such list. */
export async function deleteList(db: Db, id: string): Promise<string | null> {
  const list = await db
    .deleteFrom("suppression_lists")
    .where("id", "=", id)
    .returning("name")
    .executeTakeFirst();
  return list?.name ?? null;
}

/** A page of 500 of a list's entries in (kind, value) order, after `after` (`kind\nvalue`). */
export async function entriesPage(
  db: Db,
  id: string,
  kind: SuppressionKind | undefined,
  after: string | undefined,
): Promise<{ entries: { kind: SuppressionKind; value: string }[]; next: string | null }> {
  let q = db
    .selectFrom("suppression_entries")
    .select(["kind", "value"])
    .where("list_id", "=", id)
    .orderBy("kind")
    .orderBy("value")
    .limit(501);
  if (kind) q = q.where("kind", "=", kind);
  if (after) {
    const [k, ...rest] = after.split("\n");
    const v = rest.join("\n");
    q = q.where(sql<boolean>`(kind, value) > (${k}, ${v})`);
  }
  const rows = await q.execute();
  const entries = rows.slice(0, 500);
  const last = entries.at(-1);
  return { entries, next: rows.length > 500 && last ? `${last.kind}\n${last.value}` : null };
}

/** A free Count (exact) of a filter; throws when it did not answer (CountRefused: a 4xx refusal). */
export type CountOf = (filter: GroupNode) => Promise<number>;

/** The service answered a free Count with a refusal of its filter (400 or 422). */
export class CountRefused extends Error {
  constructor(readonly status: number) {
    super(`a free Count was refused (${status})`);
  }
}

/**
 * Which of these contact ids are on the team's lists: by id (and owned emails) directly, by
 * company, domain, LinkedIn profile and the domains of listed addresses through free Counts of
 * `RBID_PAO in [ids] AND suppressed` (`idsMatching`: counts, never a View, so no daily sample
 * budget can shorten it). Throws when a Count fails: nothing may be bought unchecked.
 */
export async function suppressedAmong(
  count: CountOf,
  s: Suppressed,
  ids: readonly string[],
): Promise<Set<string>> {
  const direct = new Set([...s.byKind.personId, ...s.emailIds.map((e) => e.toLowerCase())]);
  const found = new Set(ids.filter((id) => direct.has(contactKey(id))));
  const byRow: Suppressed = { ...s, byKind: { ...s.byKind, personId: [] }, emailIds: [] };
  const match = suppressedMatch(byRow);
  if (!match) return found;
  const rest = [...new Set(ids.filter((id) => !found.has(id)))];
  for (const id of await idsMatching(match, rest, count)) found.add(id);
  return found;
}

/** A test of an Enrich's emails against the lists: exactly, or by their domain. */
export function suppressedEmail(s: Suppressed): (email: string) => boolean {
  const emails = new Set(s.byKind.email);
  const domains = new Set(s.byKind.domain);
  return (email) => {
    const e = contactKey(email);
    if (emails.has(e)) return true;
    const domain = normalise("domain", e.slice(e.lastIndexOf("@") + 1));
    return domain !== null && domains.has(domain);
  };
}

/**
 * A test of a delivered row against the lists (its contact id, company id, domain, LinkedIn profile
 * or email): an Enrich by email learns who a person is only from the row the service delivers, so
 * a row of someone on a list is kept from the buyer there (it was charged: the review says so).
 */
export function suppressedRow(s: Suppressed): (row: Record<string, unknown>) => boolean {
  const sets = {
    personId: new Set([...s.byKind.personId, ...s.emailIds]),
    companyId: new Set(s.byKind.companyId),
    domain: new Set(s.byKind.domain),
    linkedin: new Set(s.byKind.linkedin),
    email: new Set(s.byKind.email),
  };
  const columns: [keyof typeof sets, string][] = [
    ["personId", "RBID_PAO"],
    ["companyId", "RBID_ORG"],
    ["domain", "DOMAIN_ORG"],
    ["linkedin", "LINKEDIN_URL_PER"],
    ["email", "EMAIL_ADDRESS_PER"],
  ];
  return (row) =>
    columns.some(([kind, column]) => {
      const value = row[column];
      if (typeof value !== "string" || sets[kind].size === 0) return false;
      const stored = normalise(kind, value);
      return stored !== null && sets[kind].has(stored);
    });
}

/** A free Count (exact) through the proxy's client: the number, or throws when it did not answer 200. */
export function freeCount(client: UpstreamClient): CountOf {
  return async (filter) => {
    const op = operationById("count");
    const outcome = await client.send({
      op,
      target: op.path,
      body: { kind: "json", text: JSON.stringify({ filter, mode: "exact" }) },
      stream: false,
    });
    // Only a refusal of the filter itself: a plan's 403, a 404 or a 413 says nothing of the filter.
    if (outcome.kind === "answer" && (outcome.status === 400 || outcome.status === 422))
      throw new CountRefused(outcome.status);
    if (outcome.kind !== "answer" || outcome.status !== 200)
      throw new Error("a free Count to check the do-not-contact lists did not answer");
    const parsed = responses.count.safeParse(JSON.parse(outcome.text));
    if (!parsed.success) throw new Error("a free Count to check the do-not-contact lists could not be read");
    return parsed.data.count;
  };
}
