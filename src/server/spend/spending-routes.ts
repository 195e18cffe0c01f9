import type { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { toValidationRecord, validationError } from "../../contract/errors";
import { LEDGER_MONTH } from "../../contract/ledger";
import { capsUpdate } from "../../contract/spending";
import { mayManageTeam, TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { Tables } from "../db/schema";
import { API_PREFIX } from "../http/allowlist";
import { fail, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "../team/access";
import { changeCaps, currentMonth, readCaps, readSummary } from "./spending-policy";

const ROUTES_STORE_DOWN =
  "The proxy cannot reach its database right now, so the caps and the month's spending could not be read or saved. Try again in a moment.";

const summaryQuery = z.strictObject({
  month: z.string().regex(LEDGER_MONTH, "Give the month as YYYY-MM.").optional(),
});

/**
 * `GET /api/spending/caps` (everyone), `PUT /api/spending/caps` (admins; audited),
 * `GET /api/spending/summary?month=YYYY-MM` (admins everyone's; others their own).
 */
export function spendingRoutes(
  app: Hono<ProxyEnv>,
  deps: { db: Kysely<Tables>; access: Access; maxBodyBytes: number },
) {
  const { db, access } = deps;
  const store = <T>(work: () => Promise<T>) => access.store(work, ROUTES_STORE_DOWN);

  app.get(`${API_PREFIX}/spending/caps`, async (c) => {
    await access.confirm(c);
    return c.json(await store(() => readCaps(db)));
  });

  app.put(`${API_PREFIX}/spending/caps`, async (c) => {
    const person = await access.confirm(c);
    if (!mayManageTeam(person.role).ok)
      throw fail(403, "Only an admin can change the caps and approval thresholds.", {
        code: TEAM_CODES.roleRequired,
      });
    const raw = await readJsonBody(c, deps.maxBodyBytes);
    const parsed = capsUpdate.safeParse(raw);
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "body", raw));
    const { unknown } = await store(() => changeCaps(db, person.name, parsed.data));
    const first = unknown[0];
    if (first !== undefined) {
      const name = parsed.data.people![first]!.name;
      throw unprocessable(
        validationError(["body", "people", first, "name"], `nobody called ${name} is on the team`, name),
      );
    }
    return c.json(await store(() => readCaps(db)));
  });

  app.get(`${API_PREFIX}/spending/summary`, async (c) => {
    const person = await access.confirm(c);
    const parsed = summaryQuery.safeParse(c.req.query());
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "query", c.req.query()));
    const only = mayManageTeam(person.role).ok ? null : person.name;
    return c.json(await store(() => readSummary(db, parsed.data.month ?? currentMonth(), only)));
  });
}
