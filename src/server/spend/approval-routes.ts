import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { toValidationRecord } from "../../contract/errors";
import { APPROVAL_STATES, denyBody } from "../../contract/spending";
import { ALLOWED_ROLES, mayManageTeam, type Role, TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { Tables } from "../db/schema";
import { API_PREFIX } from "../http/allowlist";
import { fail, ProxyProblem, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "../team/access";
import { audit } from "../team/audit";
import { roleOf } from "../team/people-store";
import {
  type ApprovalRow,
  approvalById,
  approvalNotFound,
  approvalOf,
  credits,
  listApprovals,
  markDenied,
  type RunApproved,
  type RunResult,
  recordRun,
  withOutcomesNow,
} from "./approvals";

/** The approval requests over HTTP: every read and change through approvals.ts. */

const STORE_DOWN =
  "The proxy cannot reach its database right now, so the approval requests could not be read or changed. Try again in a moment.";

const listQuery = z.strictObject({ state: z.enum(APPROVAL_STATES).optional() });

/** The spending policy as approvals use it: an admin's approval checks the caps again and holds. */
export interface ApprovalPolicy {
  approve(id: string, by: string): Promise<{ row: ApprovalRow; estimate: number }>;
}

export interface ApprovalDeps {
  db: Kysely<Tables>;
  access: Access;
  policy: ApprovalPolicy;
  run: RunApproved;
  maxBodyBytes: number;
}

async function confirmAdmin(c: Context<ProxyEnv>, access: Access, what: string) {
  const person = await access.confirm(c);
  c.set("caller", person.name);
  c.set("role", person.role);
  if (!mayManageTeam(person.role).ok)
    throw fail(403, `Only an admin can ${what}; you are signed in as ${article(person.role)}.`, {
      code: TEAM_CODES.roleRequired,
    });
  return person;
}

const article = (role: Role) => (role === "admin" ? "an admin" : role === "buyer" ? "a buyer" : "an analyst");

/**
 * `GET /api/approvals` (admins all, others their own; `?state=`), `POST /api/approvals/:id/approve`
 * and `/deny` (admins; nobody approves their own request).
 */
export function approvalRoutes(app: Hono<ProxyEnv>, deps: ApprovalDeps) {
  const { db, access } = deps;
  const store = <T>(work: () => Promise<T>) => access.store(work, STORE_DOWN);
  const load = async (id: string) => {
    const row = await store(() => approvalById(db, id));
    if (!row) throw approvalNotFound();
    return row;
  };

  app.get(`${API_PREFIX}/approvals`, async (c) => {
    const person = await access.confirm(c);
    const parsed = listQuery.safeParse(c.req.query());
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "query", c.req.query()));
    const admin = mayManageTeam(person.role).ok;
    const rows = await store(async () =>
      withOutcomesNow(
        db,
        await listApprovals(db, { requestedBy: admin ? undefined : person.name, state: parsed.data.state }),
      ),
    );
    return c.json({ approvals: rows.map(approvalOf) });
  });

  app.post(`${API_PREFIX}/approvals/:id/approve`, async (c) => {
    const admin = await confirmAdmin(c, access, "approve a purchase");
    const row = await load(c.req.param("id"));
    if (row.requested_by === admin.name)
      throw fail(403, "You asked for this purchase, so another admin must approve it.", {
        code: TEAM_CODES.roleRequired,
      });
    // Run as the requester: they must still be on the team and allowed to buy.
    const role = await store(() => roleOf(db, row.requested_by));
    if (!role || !(ALLOWED_ROLES.spend as readonly Role[]).includes(role))
      throw fail(
        409,
        `${row.requested_by} can no longer buy (removed from the team, or now an analyst), so this purchase was not run. Deny it instead.`,
      );
    const { row: approved, estimate } = await store(() => deps.policy.approve(row.id, admin.name));
    let result: RunResult;
    try {
      result = await deps.run({
        operation: approved.operation,
        caller: approved.requested_by,
        key: approved.idempotency_key,
        fingerprint: approved.fingerprint,
        body: JSON.parse(approved.body) as Record<string, unknown>,
        headers: JSON.parse(approved.headers) as Record<string, string>,
        query: approved.query ? (JSON.parse(approved.query) as Record<string, string>) : {},
        file:
          approved.file === null
            ? undefined
            : new File([Buffer.from(approved.file, "base64")], approved.file_name ?? "upload", {
                type: approved.file_type ?? "",
              }),
        estimate,
      });
    } catch (error) {
      if (!(error instanceof ProxyProblem)) throw error;
      result = { answer: error.answer, outcome: "nothing-done" };
    }
    await store(() => recordRun(db, row.id, result));
    return c.json(approvalOf(await load(row.id)));
  });

  app.post(`${API_PREFIX}/approvals/:id/deny`, async (c) => {
    const admin = await confirmAdmin(c, access, "deny a purchase");
    const raw = await readJsonBody(c, deps.maxBodyBytes);
    const parsed = denyBody.safeParse(raw ?? {});
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "body", raw));
    const reason = parsed.data.reason?.trim() || null;
    const row = await load(c.req.param("id"));
    const denied = await store(() =>
      db.transaction().execute(async (trx) => {
        const updated = await markDenied(trx, row.id, admin.name, reason ? `Denied: ${reason}` : "Denied.");
        if (updated)
          await audit(trx, {
            actor: admin.name,
            action: "approval.deny",
            target: row.requested_by,
            summary: `denied ${row.summary} (up to ${credits(Number(row.credits_estimated))} credits)${reason ? `: ${reason}` : ""}`,
          });
        return updated;
      }),
    );
    if (!denied) {
      const now = await load(row.id);
      throw fail(
        409,
        now.state === "denied"
          ? `This request was already denied by ${now.decided_by ?? "an admin"}.`
          : `This request was already approved by ${now.decided_by ?? "an admin"}, so it can no longer be denied.`,
      );
    }
    return c.json(approvalOf(denied));
  });
}
