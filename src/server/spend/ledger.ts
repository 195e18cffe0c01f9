import type { Context, Hono } from "hono";
import { type Kysely, sql } from "kysely";
import { toValidationRecord } from "../../contract/errors";
import {
  LEDGER_OPERATION_WORDS,
  type LedgerAnswer,
  type LedgerEntry,
  type LedgerQuery,
  ledgerQuery,
} from "../../contract/ledger";
import { mayManageTeam, TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { LedgerOutcome, Tables } from "../db/schema";
import { pgJson, pgText } from "../db/storable";
import { API_PREFIX } from "../http/allowlist";
import { fail, unprocessable } from "../http/answer";
import type { Access } from "../team/access";

/** One spend's row, as every spend path writes it (inside the journal's commit of its outcome). */
export interface LedgerRowValues {
  person: string;
  operation: string;
  audienceName: string | null;
  /** The filter bought from (Preview, Export); null otherwise. */
  filter: unknown;
  /** What a verification or company search was for; null otherwise. */
  detail: string | null;
  rows: number;
  rowsFree: number;
  estimated: number | null;
  charged: number | null;
  outcome: LedgerOutcome;
  /** The journal entry's id, and the Idempotency-Key's last four characters. */
  keyHash: string;
  keyLast4: string;
}

export async function writeLedgerRow(trx: Kysely<Tables>, v: LedgerRowValues): Promise<void> {
  // An outcome not known, recorded by the retry that found it cut off (which did not price it):
  // its estimate is the hold the first attempt made, deleted in this same transaction.
  let estimated = v.estimated;
  if (estimated === null && v.outcome === "unknown") {
    const held = await trx
      .selectFrom("spend_holds")
      .select("credits")
      .where("entry_id", "=", v.keyHash)
      .executeTakeFirst();
    estimated = held ? Number(held.credits) : null;
  }
  await trx
    .insertInto("ledger")
    .values({
      at: sql<Date>`now()` as never,
      person: v.person,
      operation: v.operation,
      audience_name: pgText(v.audienceName),
      filter: v.filter === null || v.filter === undefined ? null : pgJson(v.filter),
      detail: pgText(v.detail),
      rows: v.rows,
      rows_free: v.rowsFree,
      credits_estimated: estimated,
      credits_charged: v.charged,
      outcome: v.outcome,
      key_hash: v.keyHash,
      key_last4: v.keyLast4,
    })
    .execute();
}

const STORE_DOWN =
  "The proxy cannot reach its database right now, so the ledger could not be read. Try again in a moment.";

/**
 * `GET /api/ledger?person=&month=YYYY-MM`: admins read everyone's spends, others their own (the
 * role as the database has it now: spending is money). Newest first, with totals.
 */
export function ledgerRoutes(app: Hono<ProxyEnv>, deps: { db: Kysely<Tables>; access: Access }) {
  /** The query, with the role's rule applied: others than admins read their own rows only. */
  const allowed = async (c: Context<ProxyEnv>): Promise<LedgerQuery> => {
    const person = await deps.access.confirm(c);
    const parsed = ledgerQuery.safeParse(c.req.query());
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "query", c.req.query()));
    const query = parsed.data;
    if (!mayManageTeam(person.role).ok) {
      if (query.person !== undefined && query.person !== person.name)
        throw fail(403, "Only an admin can read another person's spending.", {
          code: TEAM_CODES.roleRequired,
        });
      query.person = person.name;
    }
    return query;
  };
  app.get(`${API_PREFIX}/ledger`, async (c: Context<ProxyEnv>) => {
    const query = await allowed(c);
    return c.json(await deps.access.store(() => readLedger(deps.db, query), STORE_DOWN));
  });
  // The same rows as a spreadsheet (RFC 4180), e.g. `ledger-2026-11-bo.csv`.
  app.get(`${API_PREFIX}/ledger.csv`, async (c: Context<ProxyEnv>) => {
    const query = await allowed(c);
    const ledger = await deps.access.store(() => readLedger(deps.db, query), STORE_DOWN);
    const name = ["ledger", query.month, query.person].filter(Boolean).join("-");
    return new Response(ledgerCsv(ledger), {
      status: 200,
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name}.csv"`,
        "cache-control": "no-store",
      },
    });
  });
}

const OUTCOME_WORDS: Record<LedgerEntry["outcome"], string> = {
  charged: "Charged",
  free: "Free",
  refused: "Refused by the data service",
  unknown: "Not known (check the balance)",
  pending: "Under way (charged when it completes)",
};
export const LEDGER_CSV_HEADER = [
  "Date and time (UTC)",
  "Person",
  "Purchase",
  "Audience",
  "Filter",
  "For",
  "Rows",
  "Rows already the team's (free)",
  "Credits estimated",
  "Credits charged",
  "Outcome",
  "Key ends in",
];

/** The ledger as CSV: a header row in plain words, one row per entry, CRLF line ends. */
export function ledgerCsv(ledger: LedgerAnswer): string {
  const lines = [LEDGER_CSV_HEADER.map(csvCell)];
  for (const e of ledger.entries)
    lines.push(
      [
        e.at,
        e.person,
        LEDGER_OPERATION_WORDS[e.operation] ?? e.operation,
        e.audienceName ?? "",
        e.filter === null ? "" : JSON.stringify(e.filter),
        e.detail ?? "",
        e.rows,
        e.rowsFree,
        e.creditsEstimated ?? "",
        e.creditsCharged ?? "",
        OUTCOME_WORDS[e.outcome] ?? e.outcome,
        e.keyLast4,
      ].map(csvCell),
    );
  return lines.map((cells) => `${cells.join(",")}\r\n`).join("");
}

/**
 * One cell: numbers as they are; text that a spreadsheet would run as a formula (starting with =,
 * +, -, @, a tab or a carriage return) gets a leading apostrophe; quoted when it holds a comma, a
 * quote or a line break (quotes doubled).
 */
export function csvCell(value: string | number): string {
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export async function readLedger(db: Kysely<Tables>, query: LedgerQuery): Promise<LedgerAnswer> {
  let select = db.selectFrom("ledger").selectAll();
  if (query.person !== undefined) select = select.where("person", "=", query.person);
  if (query.month !== undefined) {
    const [year, month] = query.month.split("-").map(Number) as [number, number];
    const from = new Date(Date.UTC(year, month - 1, 1));
    const to = new Date(Date.UTC(year, month, 1));
    select = select.where("at", ">=", from).where("at", "<", to);
  }
  const rows = await select.orderBy("at", "desc").orderBy(sql`id`, "desc").execute();
  const entries = rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    person: r.person,
    operation: r.operation,
    audienceName: r.audience_name,
    filter: r.filter ?? null,
    rows: r.rows,
    rowsFree: r.rows_free,
    creditsEstimated: r.credits_estimated === null ? null : Number(r.credits_estimated),
    creditsCharged: r.credits_charged === null ? null : Number(r.credits_charged),
    outcome: r.outcome,
    keyLast4: r.key_last4,
    detail: r.detail ?? null,
  }));
  return {
    entries,
    totals: {
      entries: entries.length,
      rows: entries.reduce((n, e) => n + e.rows, 0),
      rowsFree: entries.reduce((n, e) => n + e.rowsFree, 0),
      creditsCharged: entries.reduce((n, e) => n + (e.creditsCharged ?? 0), 0),
      unknown: entries.filter((e) => e.outcome === "unknown").length,
    },
  };
}
