import { randomUUID } from "node:crypto";
import type { Context, Hono } from "hono";
import { type Kysely, type Selectable, sql } from "kysely";
import { z } from "zod";
import { toValidationRecord } from "../../contract/errors";
import { APPROVAL_STATES, type Approval, denyBody } from "../../contract/spending";
import { ALLOWED_ROLES, mayManageTeam, type Role, TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { ApprovalTable, Tables } from "../db/schema";
import { pgText } from "../db/storable";
import { API_PREFIX } from "../http/allowlist";
import { type BufferedAnswer, fail, ProxyProblem, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "../team/access";
import { audit } from "../team/audit";
import type { SpendScope, WorkOutcome } from "./spend-journal";
import type { ToolFile } from "./tool-purchases";

/** What a purchase is, as the policy reads it (the body as it will be sent). */
export interface SpendRequest {
  scope: SpendScope;
  fingerprint: string;
  body: Record<string, unknown>;
  /** Request headers that change what is bought (lower-case names). */
  headers: Record<string, string>;
  /** The query as validated (verification's `metadata`), and an upload as sent (batch verification). */
  query?: Record<string, string>;
  file?: ToolFile;
}

/**
 * Approval requests (spend/README.md, "Caps and approvals"): a purchase above its buyer's
 * threshold is stored whole (operation, Idempotency-Key, request hash, body, the headers that change
 * it) and waits for an admin other than the requester. Approved, the proxy runs it itself through
 * the journal under the requester's name and key, so it runs once, and the requester sending the
 * same key again gets the journal's answer.
 */
export type ApprovalRow = Selectable<ApprovalTable>;

export const credits = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

export function approvalNotFound() {
  return fail(404, "There is no such approval request.");
}

export async function findApproval(db: Kysely<Tables>, entryId: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom("approvals").selectAll().where("entry_id", "=", entryId).executeTakeFirst();
}

/** Made once per (requester, key): a request sent twice at once finds the first one's. */
export async function createApproval(
  trx: Kysely<Tables>,
  input: {
    entryId: string;
    request: SpendRequest;
    estimate: number;
    summary: string;
    audienceName: string | null;
  },
): Promise<{ row: ApprovalRow; created: boolean }> {
  const { request } = input;
  const inserted = await trx
    .insertInto("approvals")
    .values({
      id: randomUUID(),
      entry_id: input.entryId,
      requested_by: request.scope.caller,
      requested_at: sql<Date>`now()` as never,
      operation: request.scope.operation,
      idempotency_key: request.scope.key,
      fingerprint: request.fingerprint,
      body: JSON.stringify(request.body),
      headers: JSON.stringify(request.headers),
      query: request.query && Object.keys(request.query).length > 0 ? JSON.stringify(request.query) : null,
      file_name: request.file ? pgText(request.file.name) : null,
      file_type: request.file ? pgText(request.file.type) : null,
      file: request.file ? Buffer.from(request.file.bytes).toString("base64") : null,
      credits_estimated: input.estimate,
      summary: pgText(input.summary),
      audience_name: pgText(input.audienceName),
      state: "waiting",
      decided_by: null,
      decided_at: null,
      outcome: null,
    })
    .onConflict((oc) => oc.column("entry_id").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { row: inserted, created: true };
  return { row: (await findApproval(trx, input.entryId))!, created: false };
}

export function approvalOf(row: ApprovalRow): Approval {
  return {
    id: row.id,
    requestedBy: row.requested_by,
    requestedAt: new Date(row.requested_at).toISOString(),
    operation: row.operation,
    summary: row.summary,
    creditsEstimated: Number(row.credits_estimated),
    audienceName: row.audience_name,
    state: row.state,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
    outcome: row.outcome,
  };
}

/** What the proxy's running of an approved purchase came to. */
export interface RunResult {
  answer: BufferedAnswer;
  /** The journal's outcome of this run, or `replayed` when the journal had it already. */
  outcome: WorkOutcome | "replayed";
}

/** Runs a stored purchase as forward.ts would (the spend path, the hold already made). */
export type RunApproved = (order: {
  operation: string;
  caller: string;
  key: string;
  /** The request's hash as stored: the requester's same request then matches the journal's entry. */
  fingerprint: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  query: Record<string, string>;
  /** An upload, as it was sent. */
  file: File | undefined;
  estimate: number;
}) => Promise<RunResult>;

/**
 * Records what running it came to: `ran` with a sentence, or, when nothing was done (refused before
 * any work, nothing charged), left `approved` so the requester's same key runs it later.
 */
export async function recordRun(db: Kysely<Tables>, id: string, result: RunResult): Promise<void> {
  const detail = detailOf(result.answer);
  let state: "ran" | "approved" = "ran";
  let outcome: string;
  if (result.outcome === "nothing-done") {
    state = "approved";
    outcome = `Approved, but not carried out${detail ? `: ${detail.replace(/\.$/, "")}` : ""}. Nothing was charged; sending the same request again (same key) runs it.`;
  } else if (result.outcome === "unknown")
    outcome =
      "Sent, but no answer came back from the data service: whether it was carried out (and charged) is not known. Check the balance.";
  else if (result.answer.status >= 200 && result.answer.status < 300)
    outcome = (await ledgerSentence(db, id)) ?? ranSentence(result.answer);
  else outcome = `Sent, and the data service refused it${detail ? `: ${detail.replace(/\.$/, "")}` : ""}.`;
  // Only an approved request's run is recorded: a state set since (ran, by the requester's own
  // re-send) is never turned back.
  await db
    .updateTable("approvals")
    // An upload is kept only until it has run (it holds people's addresses).
    .set(state === "ran" ? { state, outcome, file: null } : { state, outcome })
    .where("id", "=", id)
    .where("state", "=", "approved")
    .execute();
}

function detailOf(answer: BufferedAnswer): string | null {
  try {
    const body = JSON.parse(answer.body) as { detail?: unknown };
    return typeof body?.detail === "string" ? body.detail : null;
  } catch {
    return null;
  }
}

/** What the run came to as its ledger row says it (any spend, verification and searches too). */
async function ledgerSentence(db: Kysely<Tables>, id: string): Promise<string | null> {
  const row = await db
    .selectFrom("ledger")
    .innerJoin("approvals", "approvals.entry_id", "ledger.key_hash")
    .select([
      "ledger.outcome",
      "ledger.credits_charged",
      "ledger.credits_estimated",
      "ledger.rows",
      "ledger.operation",
    ])
    .where("approvals.id", "=", id)
    .executeTakeFirst()
    .catch(() => undefined);
  if (!row) return null;
  const n = (x: number | null) => `${credits(Number(x ?? 0))} credit${Number(x) === 1 ? "" : "s"}`;
  if (row.outcome === "pending")
    return row.operation === "exportStart"
      ? `Export started: up to ${n(row.credits_estimated)}, charged when it completes.`
      : `Job started: up to ${n(row.credits_estimated)}, charged as it runs.`;
  if (row.outcome !== "charged" && row.outcome !== "free") return null;
  const delivered = ["enrich", "preview"].includes(row.operation)
    ? `${row.rows.toLocaleString("en-US")} contact${row.rows === 1 ? "" : "s"} delivered, `
    : "";
  return `Ran: ${delivered}${row.outcome === "free" ? "nothing charged" : `${n(row.credits_charged)} charged`}.`;
}

function ranSentence(answer: BufferedAnswer): string {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {}
  if (typeof body.exportId === "string")
    return `Export started: up to ${credits(Number(body.credits ?? 0))} credits, charged when it completes.`;
  const rows = Array.isArray(body.rows) ? body.rows.length : null;
  const charged = typeof body.creditsCharged === "number" ? body.creditsCharged : null;
  return `Ran: ${rows === null ? "" : `${rows.toLocaleString("en-US")} contact${rows === 1 ? "" : "s"} delivered, `}${charged === null ? "charge not stated" : `${credits(charged)} credit${charged === 1 ? "" : "s"} charged`}.`;
}

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
    const row = await store(() =>
      db.selectFrom("approvals").selectAll().where("id", "=", id).executeTakeFirst(),
    );
    if (!row) throw approvalNotFound();
    return row;
  };

  app.get(`${API_PREFIX}/approvals`, async (c) => {
    const person = await access.confirm(c);
    const parsed = listQuery.safeParse(c.req.query());
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "query", c.req.query()));
    const admin = mayManageTeam(person.role).ok;
    const rows = await store(() => {
      let query = db.selectFrom("approvals").selectAll();
      if (!admin) query = query.where("requested_by", "=", person.name);
      if (parsed.data.state) query = query.where("state", "=", parsed.data.state);
      return query.orderBy("requested_at", "desc").orderBy("id").limit(500).execute();
    });
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
    const requester = await store(() =>
      db.selectFrom("users").select("role").where("name", "=", row.requested_by).executeTakeFirst(),
    );
    if (!requester || !(ALLOWED_ROLES.spend as readonly Role[]).includes(requester.role))
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
        const updated = await trx
          .updateTable("approvals")
          .set({
            state: "denied",
            decided_by: admin.name,
            decided_at: sql<Date>`now()` as never,
            outcome: reason ? `Denied: ${reason}` : "Denied.",
            file: null,
          })
          .where("id", "=", row.id)
          .where("state", "=", "waiting")
          .returningAll()
          .executeTakeFirst();
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
