import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { describe } from "../../contract/describe";
import { toValidationRecord } from "../../contract/errors";
import type { GroupNode } from "../../contract/filter";
import {
  LEDGER_OPERATION_WORDS,
  type LedgerAnswer,
  type LedgerEntry,
  type LedgerQuery,
  ledgerQuery,
} from "../../contract/ledger";
import { mayManageTeam, TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { Tables } from "../db/schema";
import { API_PREFIX } from "../http/allowlist";
import { fail, unprocessable } from "../http/answer";
import type { Access } from "../team/access";
import { readLedger } from "./ledger-store";

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
  "Filter as JSON",
  "For",
  "Rows",
  "Rows already the team's (free)",
  "Credits estimated",
  "Credits charged",
  "Outcome",
  "Key ends in",
];

/**
 * The ledger as CSV: a header row in plain words, one row per entry, CRLF line ends; a purchase's
 * filter in words ("Country is Germany and Job level is Director") and, for machines, as JSON.
 */
export function ledgerCsv(ledger: LedgerAnswer): string {
  const lines = [LEDGER_CSV_HEADER.map(csvCell)];
  for (const e of ledger.entries)
    lines.push(
      [
        e.at,
        e.person,
        LEDGER_OPERATION_WORDS[e.operation] ?? e.operation,
        e.audienceName ?? "",
        // Finance reads the words; a machine, the service's own tree beside them.
        e.filter === null ? "" : describe(e.filter as GroupNode),
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
