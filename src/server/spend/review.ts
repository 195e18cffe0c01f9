import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import { toValidationRecord } from "../../contract/errors";
import type { FilterNode, GroupNode } from "../../contract/filter";
import { PLANS, type Plan, type Reveal } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { maxContactCost } from "../../contract/pricing";
import { operationById } from "../../contract/routes";
import {
  type EnrichReview,
  type ExportReview,
  type PolicyVerdict,
  type ReviewAnswer,
  reviewRequest,
} from "../../contract/spending";
import type { ProxyEnv } from "../context";
import type { Tables } from "../db/schema";
import { API_PREFIX } from "../http/allowlist";
import { fail, ProxyProblem, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "../team/access";
import type { PlanProbe } from "../upstream/plan-probe";
import type { UpstreamClient } from "../upstream/upstream";
import { freeRowsNote, ownedInAudience, prepareExport } from "./export-purchases";
import { ownedAmong, ownedIds } from "./owned-store";
import { columnsKey } from "./purchases";
import {
  andAll,
  exclusionsRefusal,
  inLists,
  readSuppressed,
  suppressedAmong,
  suppressedMatch,
  suppressionNotes,
  withoutSuppressed,
} from "./suppression";

/**
 * `POST /api/purchases/review`: what a purchase would buy, before it is bought. Nothing is spent:
 * the counts are the service's Count and estimate, the suppressed ids of an Enrich come from free
 * View calls. Anyone signed in may ask (an analyst too).
 */
export interface ReviewDeps {
  db: Kysely<Tables>;
  access: Access;
  client: UpstreamClient;
  plan: PlanProbe;
  retentionDays: number;
  maxBodyBytes: number;
  /**
   * The team's spending rules on a purchase of this estimate (spending-policy's `admitPreview`,
   * once merged: `(person, estimate) => admitPreview(db, person, estimate)`); none: NO_POLICY.
   */
  admit?: (person: string, estimate: number) => Promise<PolicyVerdict>;
}

/** Without the team's spending rules (no `admit`): nothing stands in the way. */
const NO_POLICY: PolicyVerdict = { verdict: "ok", reason: null, caps: [], approvalThreshold: null };

const UNREADABLE =
  "The data service did not give the counts this review needs, so it could not be made. Nothing was spent; try again in a moment.";

export function reviewRoutes(app: Hono<ProxyEnv>, deps: ReviewDeps) {
  app.post(`${API_PREFIX}/purchases/review`, async (c: Context<ProxyEnv>) => {
    const person = await deps.access.confirm(c);
    const raw = await readJsonBody(c, deps.maxBodyBytes);
    const parsed = reviewRequest.safeParse(raw);
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "body", raw));
    const request = parsed.data;
    const answer: ReviewAnswer =
      request.kind === "enrich" ? await reviewEnrich(deps, request) : await reviewExport(deps, request);
    if (deps.admit) answer.policy = await deps.access.store(() => deps.admit!(person.name, answer.credits));
    return c.json(answer);
  });
}

/** The service's answer as JSON; undefined (refused by the schema) when it is not JSON at all. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function count(client: UpstreamClient, filter: GroupNode | null | undefined): Promise<number> {
  const op = operationById("count");
  const outcome = await client.send({
    op,
    target: op.path,
    body: { kind: "json", text: JSON.stringify({ filter: filter ?? null, mode: "exact" }) },
    stream: false,
  });
  if (outcome.kind !== "answer" || outcome.status !== 200) throw fail(502, UNREADABLE);
  const parsed = responses.count.safeParse(jsonOf(outcome.text));
  if (!parsed.success) throw fail(502, UNREADABLE);
  return parsed.data.count;
}

async function estimate(client: UpstreamClient, body: Record<string, unknown>) {
  const op = operationById("estimate");
  const outcome = await client.send({
    op,
    target: op.path,
    body: { kind: "json", text: JSON.stringify(body) },
    stream: false,
  });
  if (outcome.kind !== "answer" || outcome.status !== 200) throw fail(502, UNREADABLE);
  const parsed = responses.estimate.safeParse(jsonOf(outcome.text));
  if (!parsed.success) throw fail(502, UNREADABLE);
  return parsed.data;
}

async function reviewExport(
  deps: ReviewDeps,
  request: Extract<ReturnType<typeof reviewRequest.parse>, { kind: "export" }>,
): Promise<ExportReview> {
  const filter = request.filter as GroupNode;
  const suppressed = await deps.access.store(() => readSuppressed(deps.db));
  const match = suppressedMatch(suppressed);
  const kept = withoutSuppressed(filter, suppressed);
  const ids = await deps.access.store(() =>
    ownedIds(deps.db, deps.retentionDays, request.reveal, columnsKey(request.columns)),
  );
  // Before any count carries them: the lists, and the owned ids unless they are bought again.
  const tooMany = exclusionsRefusal(suppressed, request.owned === "buy-again" ? 0 : ids.length);
  if (tooMany) throw new ProxyProblem(tooMany);
  const anyOf = (nodes: FilterNode[]): FilterNode =>
    ({ type: "group", op: "OR", negate: false, children: nodes }) as FilterNode;
  const [audience, suppressedCount, owned] = await Promise.all([
    count(deps.client, filter),
    match ? count(deps.client, andAll(filter, [match])) : Promise.resolve(0),
    ids.length > 0 ? count(deps.client, andAll(kept, [anyOf(inLists("RBID_PAO", ids))])) : Promise.resolve(0),
  ]);
  const prepared = await deps.access.store(() =>
    prepareExport(
      deps,
      { filter, maxRows: request.maxRows, reveal: request.reveal, columns: request.columns ?? null },
      request.owned,
    ),
  );
  const e = await estimate(deps.client, prepared.body);
  const notes = suppressionNotes(suppressed);
  let freeRows = 0;
  if (request.owned === "add-free" && owned > 0) {
    const free = await ownedInAudience(deps.client, kept, ids).catch(() => {
      throw fail(502, UNREADABLE);
    });
    freeRows = free.found.length;
    if (!free.complete) notes.push(freeRowsNote(freeRows, owned));
  }
  return {
    kind: "export",
    audience,
    suppressed: suppressedCount,
    owned,
    owned_choice: request.owned,
    rows: e.rows,
    withEmail: e.withEmail,
    withMobile: e.withMobile,
    credits: e.credits,
    freeRows,
    balance: e.balance,
    sufficient: e.sufficient,
    notes,
    policy: NO_POLICY,
  };
}

async function reviewEnrich(
  deps: ReviewDeps,
  request: Extract<ReturnType<typeof reviewRequest.parse>, { kind: "enrich" }>,
): Promise<EnrichReview> {
  const ids = [...new Set(request.personIds)];
  const suppressed = await deps.access.store(() => readSuppressed(deps.db));
  const tooMany = exclusionsRefusal(suppressed);
  if (tooMany) throw new ProxyProblem(tooMany);
  let dropped: Set<string>;
  try {
    dropped = await suppressedAmong((filter) => count(deps.client, filter), suppressed, ids);
  } catch {
    throw fail(502, UNREADABLE);
  }
  const rest = ids.filter((id) => !dropped.has(id));
  const owned = await deps.access.store(() =>
    ownedAmong(deps, rest, request.reveal, columnsKey(request.columns)),
  );
  const toBuy = rest.filter((id) => !owned.has(id));
  const plan = await planOf(deps, toBuy[0] ?? ids[0]!, request.reveal);
  return {
    kind: "enrich",
    selected: ids.length,
    alreadyYours: rest.filter((id) => owned.has(id)),
    suppressed: ids.filter((id) => dropped.has(id)),
    toBuy,
    credits: maxContactCost(toBuy.length, request.reveal, plan),
    policy: NO_POLICY,
  };
}

/** The account's plan: the session's probe, else the service's estimate (free) says it. */
async function planOf(deps: ReviewDeps, id: string, reveal: Reveal): Promise<Plan> {
  const { plan } = await deps.plan.get();
  if (plan && (PLANS as readonly string[]).includes(plan)) return plan as Plan;
  const filter = {
    type: "group",
    op: "AND",
    children: [{ type: "condition", column: "RBID_PAO", operator: "eq", value: id }],
  };
  return (await estimate(deps.client, { filter, maxRows: 1, reveal, columns: null })).plan;
}
