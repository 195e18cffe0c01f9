import type { Kysely } from "kysely";
import { PLANS, type Plan, type Reveal } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { maxContactCost } from "../../contract/pricing";
import { operationById } from "../../contract/routes";
import type { OwnedChoice } from "../../contract/spending";
import type { Tables } from "../db/schema";
import type { UpstreamClient } from "../upstream/upstream";
import { prepareExport } from "./export-purchases";
import { columnsKey, ownedAmong } from "./purchases";
import { TOOL_OPERATIONS, type ToolFile, toolEstimate } from "./tool-purchases";

/**
 * The most a purchase may cost, before anything is sent (for the team's caps and approval
 * threshold, spending-policy): verification and the company tools as tool-purchases.ts prices
 * them; Enrich and Preview with the contract's price table on what will be sent (Enrich: the ids the team does not own, and every email; suppressed ones are not taken off,
 * so it is an upper bound), an export with the service's own estimate of the filter as it will be
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

export async function estimatePurchase(
  deps: EstimateDeps,
  operation: string,
  body: Record<string, unknown>,
  owned: OwnedChoice = "leave-out",
  file?: ToolFile,
): Promise<number | null> {
  const reveal = body.reveal as Reveal;
  if (operation === "exportStart") {
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
  const plan = await deps.plan().catch(() => null);
  if (!plan || !(PLANS as readonly string[]).includes(plan)) return null;
  if (TOOL_OPERATIONS.has(operation)) return toolEstimate({ operation, body, file }, plan as Plan);
  if (operation === "preview") return maxContactCost(Number(body.limit ?? 25), reveal, plan as Plan);
  if (operation === "enrich") {
    const ids = [...new Set(((body.personIds as string[] | null | undefined) ?? []).map(String))];
    const emails = new Set(
      ((body.emails as string[] | null | undefined) ?? []).map((e) => e.trim().toLowerCase()),
    );
    const owned = await ownedAmong(deps, ids, reveal, columnsKey(body.columns));
    return maxContactCost(ids.filter((id) => !owned.has(id)).length + emails.size, reveal, plan as Plan);
  }
  return null;
}
