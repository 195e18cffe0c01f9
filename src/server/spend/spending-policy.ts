import { type Kysely, sql } from "kysely";
import type { z } from "zod";
import { SPEND_CODES } from "../../contract/errors";
import { PREVIEW_LIMIT, type Reveal } from "../../contract/inferred";
import { LEDGER_MONTH, LEDGER_OPERATION_WORDS } from "../../contract/ledger";
import {
  type Approval,
  AUDIENCE_HEADER,
  audienceNameOfHeader,
  type CapStanding,
  type Caps,
  type capsUpdate,
  OWNED_HEADER,
  type OwnedChoice,
  type PolicyVerdict,
  SPENDING_CODES,
  type SpendingSummary,
} from "../../contract/spending";
import type { Tables } from "../db/schema";
import { fail, ProxyProblem } from "../http/answer";
import { audit } from "../team/audit";
import { existingNames, peopleNames } from "../team/people-store";
import type { UpstreamClient } from "../upstream/upstream";
import {
  type ApprovalRow,
  approvalNotFound,
  approvalOf,
  createApproval,
  credits,
  findApproval,
  lockApproval,
  markApproved,
  type RunResult,
  recordRun,
  type SpendRequest,
} from "./approvals";
import { parseOwnedChoice } from "./export-purchases";
import { dropStaleHolds, heldBetween, heldByPerson, holdCredits, releaseUnlessPending } from "./holds-store";
import { boughtAt, countedBetween, countedByPerson } from "./ledger-store";
import { estimatePurchase } from "./purchase-kinds";
import type { PurchaseDeps } from "./purchases";
import { entryPending, JournalUnavailable, SpendJournal } from "./spend-journal";
import { TOOL_OPERATIONS, type ToolFile, toolDetail } from "./tool-purchases";

/**
 * Spending under the team's control (spend/README.md, "Caps and approvals"): before the journal
 * runs a purchase (Enrich, Preview, Export start), it is priced and admitted against the monthly
 * caps (the person's and the team's) and the person's approval threshold. Admission is race-safe:
 * under a transaction-level advisory lock, what is spent this month (the ledger's charges, the
 * estimates of outcomes pending or not known, and the holds of purchases under way) is summed, and
 * a purchase that fits leaves a hold for its estimate in that same transaction. The journal deletes
 * the hold in the transaction that commits the purchase's outcome (spend-journal.ts).
 */

/** The spends priced and admitted here: every one but key rotation. */

/** One lock for every admission of the team's spending (any number: it only has to be the same). */
const ADMISSION_LOCK = 1_804_180_418;
/** A hold whose purchase never reached the journal (the process stopped in between) stops counting. */
const STALE_HOLD_MINUTES = 15;

export type { SpendRequest };

export interface PolicyDeps {
  db: Kysely<Tables>;
  journal: SpendJournal;
  client: UpstreamClient;
  /** The plan behind the key (PlanProbe): AYCE purchases cost nothing. */
  plan: () => Promise<string | null>;
  /** The team's store: Enrich is priced on the people it does not own yet. */
  purchases?: PurchaseDeps;
}

export type Admission =
  /** Go on to the journal. `estimate` is the priced cost (null: no rule applied, not priced). */
  | { kind: "go"; estimate: number | null; held: boolean; approvalId: string | null }
  /** Above the threshold: a request for an admin (made now, or waiting since `again`). */
  | { kind: "approval"; approval: Approval; again: boolean; threshold: number | null };

interface Rules {
  personCap: number | null;
  threshold: number | null;
  teamCap: number | null;
}

export class SpendingPolicy {
  constructor(private readonly deps: PolicyDeps) {}

  /**
   * Decides a purchase before anything is sent. Throws 403 CAP_REACHED (a cap would be passed),
   * 403 APPROVAL_DENIED, 409 IDEMPOTENCY_KEY_REUSED (an approval request under this key was for
   * other details), 503 when the database cannot say, 502 when an export's estimate cannot be had.
   */
  async admit(request: SpendRequest): Promise<Admission> {
    // A purchase the journal has (answered, under way, outcome unknown): replayed as it was, never
    // refused by a cap spent since.
    if (await store(() => this.deps.journal.known(request.scope)))
      return { kind: "go", estimate: null, held: false, approvalId: null };
    const { db } = this.deps;
    const entryId = SpendJournal.entryId(request.scope);
    const person = request.scope.caller;
    const [approval, rules] = await store(() =>
      Promise.all([findApproval(db, entryId), rulesFor(db, person)]),
    );
    let approved = false;
    if (approval) {
      if (approval.fingerprint !== request.fingerprint)
        throw fail(
          409,
          "This Idempotency-Key was already used for a different request (other details, or another action). Use a new key for a new request.",
          { code: SPEND_CODES.keyReused },
        );
      if (approval.state === "waiting")
        return { kind: "approval", approval: approvalOf(approval), again: true, threshold: rules.threshold };
      if (approval.state === "denied") {
        const why = (approval.outcome ?? "").replace(/^Denied[:.]?\s*/, "").replace(/\.$/, "");
        throw fail(
          403,
          `${approval.decided_by ?? "An admin"} denied this purchase${why ? ` ("${why}")` : ""}, so nothing was sent and nothing charged. Ask an admin before buying it with a new request.`,
          { code: SPENDING_CODES.approvalDenied },
        );
      }
      // Ran, and the journal no longer keeps its answer (past the TTL): it is not bought again. The
      // ledger is the proof too (its row is written in the run's own commit), should the state
      // have stayed "approved" (a crash between that commit and the state's update).
      if (approval.state === "ran" || (await store(() => boughtAt(db, entryId))) !== null)
        throw fail(
          409,
          `This purchase was approved by ${approval.decided_by ?? "an admin"} and ran${approval.decided_at ? ` on ${new Date(approval.decided_at).toISOString().slice(0, 10)}` : ""}; its answer is no longer kept, so it is not run again. To buy it again, send it with a new key.`,
          { code: SPEND_CODES.keyReused },
        );
      approved = true;
    }
    const needsThreshold = !approved && rules.threshold !== null;
    if (rules.personCap === null && rules.teamCap === null && !needsThreshold)
      return {
        kind: "go",
        estimate: approval ? Number(approval.credits_estimated) : null,
        held: false,
        approvalId: approval?.id ?? null,
      };

    const estimate = await this.price(
      request.scope.operation,
      request.body,
      parseOwnedChoice(request.headers[OWNED_HEADER]),
      request.file,
    );
    return store(() =>
      db.transaction().execute(async (trx) => {
        await lockAdmissions(trx);
        await checkCaps(trx, person, estimate, rules, entryId, "your");
        if (!approved && rules.threshold !== null && estimate > rules.threshold) {
          const made = await createApproval(trx, {
            entryId,
            request,
            estimate,
            summary: summaryOf(request.scope.operation, request.body, request.file),
            audienceName:
              audienceNameOfHeader(request.headers[AUDIENCE_HEADER]) ??
              audienceNameOf(request.scope.operation, request.body),
          });
          return {
            kind: "approval" as const,
            approval: approvalOf(made.row),
            again: !made.created,
            threshold: rules.threshold,
          };
        }
        const held = await holdCredits(trx, entryId, person, estimate);
        return { kind: "go" as const, estimate, held, approvalId: approval?.id ?? null };
      }),
    );
  }

  /**
   * An admin's approval: the caps are checked again for the requester (refused with CAP_REACHED,
   * the request left waiting), then, in the same transaction, the request is marked approved by
   * `by` and its hold is made. The caller then runs it through the journal.
   */
  async approve(id: string, by: string): Promise<{ row: ApprovalRow; estimate: number }> {
    const { db } = this.deps;
    return store(() =>
      db.transaction().execute(async (trx) => {
        await lockAdmissions(trx);
        const row = await lockApproval(trx, id);
        if (!row) throw approvalNotFound();
        if (row.state !== "waiting") throw alreadyDecided(row);
        const rules = await rulesFor(trx, row.requested_by);
        await checkCaps(
          trx,
          row.requested_by,
          row.credits_estimated,
          rules,
          row.entry_id,
          `${row.requested_by}'s`,
        );
        const approved = await markApproved(trx, id, by);
        await holdCredits(trx, row.entry_id, row.requested_by, row.credits_estimated);
        await audit(trx, {
          actor: by,
          action: "approval.approve",
          target: row.requested_by,
          summary: `approved ${row.summary} (up to ${credits(row.credits_estimated)} credits)`,
        });
        return { row: approved, estimate: row.credits_estimated };
      }),
    );
  }

  /** Records what running an approved request came to (its requester sent it again). */
  async ran(approvalId: string, result: RunResult): Promise<void> {
    await recordRun(this.deps.db, approvalId, result);
  }

  /**
   * Drops a hold made for a purchase the journal did not run here (replayed, joined, refused, or
   * never sent): unless the same purchase is under way elsewhere (its entry pending), whose commit
   * deletes it.
   */
  async release(entryId: string): Promise<void> {
    await releaseUnlessPending(this.deps.db, entryId, (column) => entryPending(column));
  }

  /**
   * The most a purchase may cost, as it will be sent (purchase-estimate.ts: Enrich on the people the
   * team does not own yet, Preview on its limit, an export by the service's estimate of the filter
   * with suppressed and, unless bought again, owned contacts left out). A plan not known is priced
   * as pay-as-you-go (the most it may cost); an export's estimate not had refuses the purchase.
   */
  async price(
    operation: string,
    body: Record<string, unknown>,
    owned: OwnedChoice,
    file?: ToolFile,
  ): Promise<number> {
    const { purchases, client } = this.deps;
    const plan = async () => ((await this.deps.plan().catch(() => null)) === "AYCE" ? "AYCE" : "PAYG");
    const estimate = await estimatePurchase(
      { db: this.deps.db, retentionDays: purchases?.retentionDays ?? 0, client, plan },
      operation,
      body,
      owned,
      file,
    ).catch((error) => {
      if (operation === "exportStart") return null;
      throw new JournalUnavailable(String((error as Error)?.message ?? error));
    });
    if (estimate !== null) return estimate;
    throw fail(
      502,
      "The data service's estimate for this export could not be had, so it could not be checked against the team's caps. Nothing was sent and nothing charged; try again in a moment.",
    );
  }
}

/**
 * Runs a database step; a failure is JournalUnavailable, which the spend path answers as it does
 * the journal's own (503, spending paused, nothing sent).
 */
async function store<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProxyProblem || error instanceof JournalUnavailable) throw error;
    throw new JournalUnavailable(`caps: ${String((error as Error)?.message ?? error)}`);
  }
}

async function lockAdmissions(trx: Kysely<Tables>) {
  await sql`select pg_advisory_xact_lock(${ADMISSION_LOCK})`.execute(trx);
  // Holds whose purchase never reached the journal (its process stopped): no longer counted.
  await dropStaleHolds(trx, STALE_HOLD_MINUTES, (column) => entryPending(column));
}

export async function rulesFor(db: Kysely<Tables>, person: string): Promise<Rules> {
  const [mine, team] = await Promise.all([
    db.selectFrom("person_caps").selectAll().where("name", "=", person).executeTakeFirst(),
    db.selectFrom("team_caps").select("monthly_cap").where("id", "=", "team").executeTakeFirst(),
  ]);
  return {
    personCap: mine?.monthly_cap ?? null,
    threshold: mine?.approval_threshold ?? null,
    teamCap: team?.monthly_cap ?? null,
  };
}

/** The UTC month a date is in: [from, to). */
export function monthBounds(month: string): { from: Date; to: Date } {
  const [year, m] = month.split("-").map(Number) as [number, number];
  return { from: new Date(Date.UTC(year, m - 1, 1)), to: new Date(Date.UTC(year, m, 1)) };
}

export const currentMonth = (now = new Date()) => now.toISOString().slice(0, 7);

/**
 * Spent this month (UTC) by `person` (null: the whole team): charged, plus estimates of pending and
 * unknown outcomes, plus holds of purchases under way made this month (but `except`'s, the purchase
 * being decided): a hold left from an earlier month is not this month's money. The holds are read
 * before the ledger: a purchase whose outcome commits in between (its hold deleted, its row written
 * in one commit) is then counted twice, never missed.
 */
async function spentNow(db: Kysely<Tables>, person: string | null, except: string | null): Promise<number> {
  const { from, to } = monthBounds(currentMonth());
  const held = await heldBetween(db, person, except, from, to);
  return held + (await countedBetween(db, person, from, to));
}

async function checkCaps(
  trx: Kysely<Tables>,
  person: string,
  estimate: number,
  rules: Rules,
  entryId: string | null,
  whose: string,
): Promise<CapStanding[]> {
  const standings = await standingsOf(trx, person, rules, entryId);
  const refusal = capRefusal(standings, estimate, whose);
  if (refusal) throw fail(403, `${refusal} Nothing was sent.`, { code: SPENDING_CODES.capReached });
  return standings;
}

/** The caps that apply to `person` as they stand now (the person's first, then the team's). */
async function standingsOf(
  db: Kysely<Tables>,
  person: string,
  rules: Rules,
  except: string | null,
): Promise<CapStanding[]> {
  const standings: CapStanding[] = [];
  for (const [scope, cap] of [
    ["person", rules.personCap],
    ["team", rules.teamCap],
  ] as const) {
    if (cap === null) continue;
    const spent = await spentNow(db, scope === "person" ? person : null, except);
    standings.push({ scope, cap, spent, left: Math.max(0, cap - spent) });
  }
  return standings;
}

/** Why a purchase of `estimate` passes a cap, in a sentence; null when it fits them all. */
function capRefusal(standings: CapStanding[], estimate: number, whose: string): string | null {
  const passed = standings.find((s) => estimate > s.left);
  if (!passed) return null;
  const { spent, left } = passed;
  return `This purchase may cost up to ${credits(estimate)} credits; ${passed.scope === "team" ? "the team's" : whose} monthly cap is ${credits(passed.cap)} and ${credits(spent)} ${spent === 1 ? "is" : "are"} already spent this month, so ${credits(left)} ${left === 1 ? "is" : "are"} left.`;
}

/**
 * What the team's rules would say of a purchase of `estimate` by `person`, now, without holding
 * anything (the review before a purchase, `POST /api/purchases/review`): refused by a cap, needs
 * an approval, or ok. The purchase itself is admitted again when sent.
 */
export async function admitPreview(
  db: Kysely<Tables>,
  person: string,
  estimate: number,
): Promise<PolicyVerdict> {
  const rules = await rulesFor(db, person);
  const caps = await standingsOf(db, person, rules, null);
  const refusal = capRefusal(caps, estimate, "your");
  if (refusal) return { verdict: "refused", reason: refusal, caps, approvalThreshold: rules.threshold };
  if (rules.threshold !== null && estimate > rules.threshold)
    return {
      verdict: "approval",
      reason: `This purchase may cost up to ${credits(estimate)} credits, above your approval threshold of ${credits(rules.threshold)}: it will be sent to an admin for approval.`,
      caps,
      approvalThreshold: rules.threshold,
    };
  return { verdict: "ok", reason: null, caps, approvalThreshold: rules.threshold };
}

const REVEAL_WORDS: Record<Reveal, string> = {
  email: "emails revealed",
  mobile: "mobiles revealed",
  both: "emails and mobiles revealed",
  none: "nothing revealed",
};

/** What a purchase buys, in a line ("Enrich 12 contacts, emails revealed"). */
export function summaryOf(operation: string, body: Record<string, unknown>, file?: ToolFile): string {
  if (TOOL_OPERATIONS.has(operation))
    return `${LEDGER_OPERATION_WORDS[operation]}: ${toolDetail({ operation, body, file })}`;
  const reveal = REVEAL_WORDS[body.reveal as Reveal] ?? "";
  const contacts = (n: number) => `${n.toLocaleString("en-US")} contact${n === 1 ? "" : "s"}`;
  if (operation === "enrich") {
    const n =
      new Set((body.personIds as string[] | null | undefined) ?? []).size +
      new Set(((body.emails as string[] | null | undefined) ?? []).map((e) => e.trim().toLowerCase())).size;
    return `Enrich ${contacts(n)}, ${reveal}`;
  }
  if (operation === "preview")
    return `Preview of ${contacts(typeof body.limit === "number" ? body.limit : PREVIEW_LIMIT.default)}, ${reveal}`;
  const name = audienceNameOf(operation, body);
  return `Export of up to ${contacts(Number(body.maxRows))}${name ? ` named ${name}` : ""}, ${reveal}`;
}

function audienceNameOf(operation: string, body: Record<string, unknown>): string | null {
  return operation === "exportStart" && typeof body.name === "string" && body.name.trim() !== ""
    ? body.name.trim()
    : null;
}

function alreadyDecided(row: { state: string; decided_by: string | null }) {
  const by = row.decided_by ?? "an admin";
  return fail(
    409,
    row.state === "denied"
      ? `This request was already denied by ${by}.`
      : `This request was already approved by ${by}; it runs once, so it was not run again.`,
  );
}

/** The caps as they are set (everyone reads them). People without caps of their own are listed with blanks. */
export async function readCaps(db: Kysely<Tables>): Promise<Caps> {
  const [team, set, people] = await Promise.all([
    db.selectFrom("team_caps").select("monthly_cap").where("id", "=", "team").executeTakeFirst(),
    db.selectFrom("person_caps").selectAll().execute(),
    peopleNames(db),
  ]);
  const byName = new Map(set.map((r) => [r.name, r]));
  return {
    teamMonthlyCap: team?.monthly_cap ?? null,
    people: people.map((name) => ({
      name,
      monthlyCap: byName.get(name)?.monthly_cap ?? null,
      approvalThreshold: byName.get(name)?.approval_threshold ?? null,
    })),
  };
}

const blankOr = (n: number | null) => (n === null ? "none" : credits(n));

/**
 * An admin's change of the caps, with an audit entry per change, in one transaction. Names not on
 * the team are returned (nothing is changed then).
 */
export async function changeCaps(
  db: Kysely<Tables>,
  actor: string,
  update: z.output<typeof capsUpdate>,
): Promise<{ unknown: number[] }> {
  return db.transaction().execute(async (trx) => {
    const names = (update.people ?? []).map((p) => p.name);
    const known = new Set(names.length === 0 ? [] : await existingNames(trx, names));
    const unknown = names.flatMap((name, i) => (known.has(name) ? [] : [i]));
    if (unknown.length > 0) return { unknown };
    const now = sql<Date>`now()` as never;
    if (update.teamMonthlyCap !== undefined) {
      const before = await trx
        .selectFrom("team_caps")
        .select("monthly_cap")
        .where("id", "=", "team")
        .executeTakeFirst();
      const was = before?.monthly_cap ?? null;
      if (was !== update.teamMonthlyCap) {
        await trx
          .insertInto("team_caps")
          .values({ id: "team", monthly_cap: update.teamMonthlyCap, updated_at: now, updated_by: actor })
          .onConflict((oc) =>
            oc
              .column("id")
              .doUpdateSet({ monthly_cap: update.teamMonthlyCap, updated_at: now, updated_by: actor }),
          )
          .execute();
        await audit(trx, {
          actor,
          action: "spending.caps",
          target: null,
          summary: `team's monthly cap ${blankOr(was)} → ${blankOr(update.teamMonthlyCap)}`,
        });
      }
    }
    for (const person of update.people ?? []) {
      const before = await trx
        .selectFrom("person_caps")
        .selectAll()
        .where("name", "=", person.name)
        .executeTakeFirst();
      const was = { cap: before?.monthly_cap ?? null, threshold: before?.approval_threshold ?? null };
      const changes: string[] = [];
      if (was.cap !== person.monthlyCap)
        changes.push(`monthly cap ${blankOr(was.cap)} → ${blankOr(person.monthlyCap)}`);
      if (was.threshold !== person.approvalThreshold)
        changes.push(`approval threshold ${blankOr(was.threshold)} → ${blankOr(person.approvalThreshold)}`);
      if (changes.length === 0) continue;
      if (person.monthlyCap === null && person.approvalThreshold === null)
        await trx.deleteFrom("person_caps").where("name", "=", person.name).execute();
      else
        await trx
          .insertInto("person_caps")
          .values({
            name: person.name,
            monthly_cap: person.monthlyCap,
            approval_threshold: person.approvalThreshold,
            updated_at: now,
            updated_by: actor,
          })
          .onConflict((oc) =>
            oc.column("name").doUpdateSet({
              monthly_cap: person.monthlyCap,
              approval_threshold: person.approvalThreshold,
              updated_at: now,
              updated_by: actor,
            }),
          )
          .execute();
      await audit(trx, { actor, action: "spending.caps", target: person.name, summary: changes.join("; ") });
    }
    return { unknown: [] };
  });
}

/**
 * A month's spend per person against the caps (`only`: just that person). Holds of purchases under
 * way count in the current month only.
 */
export async function readSummary(
  db: Kysely<Tables>,
  month: string,
  only: string | null,
): Promise<SpendingSummary> {
  if (!LEDGER_MONTH.test(month)) throw new Error(`not a month: ${month}`);
  const { from, to } = monthBounds(month);
  const current = month === currentMonth();
  const [ledger, holds, caps, teamCap, users] = await Promise.all([
    countedByPerson(db, from, to),
    current ? heldByPerson(db, from, to) : Promise.resolve([]),
    db.selectFrom("person_caps").selectAll().execute(),
    db.selectFrom("team_caps").select("monthly_cap").where("id", "=", "team").executeTakeFirst(),
    peopleNames(db),
  ]);
  const people = new Map<string, SpendingSummary["people"][number]>();
  const entry = (name: string) => {
    let found = people.get(name);
    if (!found) {
      found = { name, spent: 0, cap: null, approvalThreshold: null, unknown: 0 };
      people.set(name, found);
    }
    return found;
  };
  for (const name of users) entry(name);
  for (const row of ledger) {
    const e = entry(row.person);
    e.spent += row.spent;
    e.unknown += row.unknown;
  }
  for (const row of holds) entry(row.person).spent += row.held;
  for (const row of caps) {
    const e = entry(row.name);
    e.cap = row.monthly_cap;
    e.approvalThreshold = row.approval_threshold;
  }
  const all = [...people.values()].sort((a, b) => a.name.localeCompare(b.name));
  return {
    month,
    team: { spent: all.reduce((n, p) => n + p.spent, 0), cap: teamCap?.monthly_cap ?? null },
    people: only === null ? all : all.filter((p) => p.name === only),
  };
}
