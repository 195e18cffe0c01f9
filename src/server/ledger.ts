import type { Context, Hono } from "hono";
import { type Kysely, sql } from "kysely";
import { toValidationRecord } from "../contract/errors";
import { type LedgerAnswer, type LedgerQuery, ledgerQuery } from "../contract/ledger";
import { mayManageTeam, TEAM_CODES } from "../contract/team";
import type { Access } from "./access";
import { API_PREFIX } from "./allowlist";
import { fail, unprocessable } from "./answer";
import type { ProxyEnv } from "./context";
import type { Tables } from "./db/schema";

const STORE_DOWN =
  "The proxy cannot reach its database right now, so the ledger could not be read. Try again in a moment.";

/**
 * `GET /api/ledger?person=&month=YYYY-MM`: admins read everyone's spends, others their own (the
 * role as the database has it now: spending is money). Newest first, with totals.
 */
export function ledgerRoutes(app: Hono<ProxyEnv>, deps: { db: Kysely<Tables>; access: Access }) {
  app.get(`${API_PREFIX}/ledger`, async (c: Context<ProxyEnv>) => {
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
    return c.json(await deps.access.store(() => readLedger(deps.db, query), STORE_DOWN));
  });
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
