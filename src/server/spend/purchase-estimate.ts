import type { Kysely } from "kysely";
import { PLANS, type Plan, type Reveal } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { maxContactCost } from "../../contract/pricing";
import { operationById } from "../../contract/routes";
import type { OwnedChoice } from "../../contract/spending";
import type { Tables } from "../db/schema";
import type { UpstreamClient } from "../upstream/upstream";
import { prepareExport } from "./export-purchases";
import { contactKey, ownedAmong } from "./owned-store";
import { columnsKey } from "./purchases";
import { freeCount, readSuppressed, suppressedAmong, suppressedEmail } from "./suppression";
import { type ToolFile, toolEstimate } from "./tool-purchases";

/**
 * The most a purchase may cost, before anything is sent (for the team's caps and approval
 * threshold, spending-policy): verification and the company tools as tool-purchases.ts prices
 * them; Enrich and Preview with the contract's price table on what will be sent (Enrich: the ids
 * and emails the team does not own and has not put on a do-not-contact list), an export with the service's own estimate of the filter as it will be
 * sent (suppressed and, unless bought again, owned contacts left out). Null when it cannot be
 * known (the plan or the estimate not read): the caller decides (refuse, or let it through).
 */
export interface EstimateDeps {
  db: Kysely<Tables>;
  retentionDays: number;
  client: UpstreamClient;
  /** The account's plan (the session's plan probe). */
  plan: () => Promise<string | null>;
}

/** A purchase as it is priced: its operation, its body, what to do with owned contacts, its upload. */
export interface PriceRequest {
  operation: string;
  body: Record<string, unknown>;
  owned: OwnedChoice;
  file?: ToolFile;
}

/** The plan behind the key, when it is one the price table knows. */
async function knownPlan(deps: EstimateDeps): Promise<Plan | null> {
  const plan = await deps.plan().catch(() => null);
  return plan && (PLANS as readonly string[]).includes(plan) ? (plan as Plan) : null;
}

/** An export: the service's own estimate of the filter as it will be sent. */
export async function priceExport(deps: EstimateDeps, { body, owned }: PriceRequest): Promise<number | null> {
  const prepared = await prepareExport(deps, body, owned);
  const op = operationById("estimate");
  const { name: _name, ...rest } = prepared.body;
  const outcome = await deps.client.send({
    op,
    target: op.path,
    body: { kind: "json", text: JSON.stringify(rest) },
    stream: false,
  });
  if (outcome.kind !== "answer" || outcome.status !== 200) return null;
  try {
    const parsed = responses.estimate.safeParse(JSON.parse(outcome.text));
    return parsed.success ? parsed.data.credits : null;
  } catch {
    return null;
  }
}

/**
 * Enrich on the people the team does not own yet and the emails, leaving out those on the team's
 * lists (the same free check the review makes and the purchase makes before it sends: what the
 * buyer was shown is what an approver reads); Preview on its limit. A check that does not answer
 * leaves them in: the most it may cost.
 */
export async function priceContacts(
  deps: EstimateDeps,
  { operation, body }: PriceRequest,
): Promise<number | null> {
  const plan = await knownPlan(deps);
  if (!plan) return null;
  const reveal = body.reveal as Reveal;
  if (operation === "preview") return maxContactCost(Number(body.limit ?? 25), reveal, plan);
  const ids = [...new Set(((body.personIds as string[] | null | undefined) ?? []).map(String))];
  const suppressed = await readSuppressed(deps.db);
  const onList = suppressedEmail(suppressed);
  const emails = new Set(
    ((body.emails as string[] | null | undefined) ?? []).filter((e) => !onList(e)).map(contactKey),
  );
  const dropped =
    ids.length === 0
      ? new Set<string>()
      : await suppressedAmong(freeCount(deps.client), suppressed, ids).catch(() => new Set<string>());
  const kept = ids.filter((id) => !dropped.has(id));
  const owned = await ownedAmong(deps, kept, reveal, columnsKey(body.columns));
  return maxContactCost(kept.filter((id) => !owned.has(id)).length + emails.size, reveal, plan);
}

/** Verification and the company tools, as tool-purchases.ts prices them. */
export async function priceTool(
  deps: EstimateDeps,
  { operation, body, file }: PriceRequest,
): Promise<number | null> {
  const plan = await knownPlan(deps);
  return plan ? toolEstimate({ operation, body, file }, plan) : null;
}
