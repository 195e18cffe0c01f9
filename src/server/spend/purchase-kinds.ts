import { taggedExportName } from "../../contract/export-tag";
import { AUDIENCE_HEADER, audienceNameOfHeader, OWNED_HEADER } from "../../contract/spending";
import { problem } from "../http/answer";
import type { UpstreamClient } from "../upstream/upstream";
import {
  checkPending,
  type ExportDeps,
  type ExportPlan,
  type ExportPurchase,
  excludeExport,
  type InFlightExport,
  parseOwnedChoice,
  reconcileExport,
  recordExport,
  settleSeen,
  unknownExportRow,
} from "./export-purchases";
import type { LedgerRowValues } from "./ledger-store";
import {
  type EstimateDeps,
  type PriceRequest,
  priceContacts,
  priceExport,
  priceTool,
} from "./purchase-estimate";
import {
  type ContactsPlan,
  type Excluded,
  excludeContacts,
  type Purchase,
  type PurchaseDeps,
  recordContacts,
  unknownLedgerRow,
} from "./purchases";
import type { Reconcile, WorkResult } from "./spend-journal";
import {
  checkPendingJobs,
  JOB_STATUS_OPERATIONS,
  recordTool,
  settleJobSeen,
  TOOL_OPERATIONS,
  type ToolFile,
  type ToolPurchase,
  unknownToolRow,
} from "./tool-purchases";

/**
 * Every kind of purchase, as one entry with the same parts, in the order the pipeline
 * (pipeline.ts) runs them: price (for the caps and approvals that admit it), describe (what the
 * ledger will say it is), exclude (the team's do-not-contact lists and owned contacts, applied
 * before anything is sent, or a refusal in words), send (the pipeline's, the same for all), record
 * (the answer the buyer gets and the rows committed with the journal's answer), the ledger row of
 * an outcome not known, reconcile (a lost outcome looked up in the service) and settle (a charge
 * learned only later). A new kind of purchase is a new entry here.
 */

/** What the parts of a purchase may use. */
export interface KindDeps {
  purchases: PurchaseDeps;
  client: UpstreamClient;
  /** The plan behind the key (a company discover's charge depends on it); null when not known. */
  plan: () => Promise<string | null>;
  /** The team's other exports whose contacts are not the team's yet (export-purchases.ts). */
  exportsInFlight?: (keyHash: string) => Promise<InFlightExport[]>;
  /** How long after its real send a call may still be on its way (the queue's longest wait, its time limit, a margin). */
  longestSendMs: (operation: string) => number;
}

/** A spend as the pipeline hands it to its kind. */
export interface Order {
  operation: string;
  person: string;
  /** The journal entry's id: the purchase's id in the ledger and the store. */
  keyHash: string;
  keyLast4: string;
  /** The journal's tag, carried where the service keeps a name (an export's). */
  tag: string;
  body: Record<string, unknown> | undefined;
  file?: ToolFile;
  /** The request headers that change what is bought (X-Owned-Contacts, X-Audience-Name). */
  headers: Record<string, string>;
  /** The most it may cost, as the caps priced it (null: not priced). */
  estimate: number | null;
}

/** What a kind sends: a new body (its exclusions applied), or the request exactly as asked. */
export type Sending = Record<string, unknown> | "as-asked";

export interface PurchaseKind<B = unknown, P = unknown> {
  /** How people and logs call it. */
  readonly label: string;
  readonly operations: readonly string[];
  /** Admitted against the team's caps and approvals before anything is sent. */
  readonly policed: boolean;
  price(deps: EstimateDeps, request: PriceRequest): Promise<number | null>;
  /** What besides the request makes it another purchase (its Idempotency-Key is bound to it); throws on a header it does not take. */
  variant?(headers: Record<string, string>): Record<string, unknown>;
  describe(order: Order, deps: KindDeps): B;
  exclude(bought: B, deps: KindDeps): Promise<Excluded<P, Sending>>;
  record(bought: B, plan: P, sent: WorkResult | null, deps: KindDeps): Promise<WorkResult>;
  /** The ledger's row for an outcome never learned (kept with the pending journal entry). */
  unknownRow(bought: B): LedgerRowValues | undefined;
  /** Whether a lost outcome can be looked up in the service. Its "was it ever made?" is timed from the real send. */
  reconcile?(bought: B, deps: KindDeps): Reconcile;
  settle?: Settlement;
}

/** A charge learned after the answer (an export's rows, a batch's verdicts): a durable job per purchase. */
export interface Settlement {
  readonly what: string;
  /** The status answers that, passing through the proxy, may show a purchase ended. */
  readonly statusOperations: ReadonlySet<string>;
  /** Settles what a status answer shows ended (in the background: the poll does not wait). */
  seen(deps: ExportDeps, operation: string, text: string): Promise<void>;
  /** The proxy's own look at the purchases not settled yet (every minute). */
  check(deps: ExportDeps): Promise<void>;
}

const kind = <B, P>(k: PurchaseKind<B, P>) => k as unknown as PurchaseKind;

const contacts = kind<Purchase, ContactsPlan>({
  label: "contacts",
  operations: ["enrich", "preview"],
  policed: true,
  price: priceContacts,
  describe: (o) => ({
    operation: o.operation as Purchase["operation"],
    person: o.person,
    keyHash: o.keyHash,
    keyLast4: o.keyLast4,
    body: o.body ?? {},
    creditsEstimated: o.estimate,
    audienceName: audienceNameOfHeader(o.headers[AUDIENCE_HEADER]),
  }),
  exclude: (bought, deps) => excludeContacts(deps.purchases, bought),
  record: (bought, plan, sent, deps) => recordContacts(deps.purchases, bought, plan, sent),
  unknownRow: unknownLedgerRow,
});

const exportStart = kind<ExportPurchase, ExportPlan>({
  label: "export",
  operations: ["exportStart"],
  policed: true,
  price: priceExport,
  variant: (headers) => {
    const choice = parseOwnedChoice(headers[OWNED_HEADER]);
    return choice === "leave-out" ? {} : { owned: choice };
  },
  describe: (o) => {
    const original = o.body ?? {};
    return {
      person: o.person,
      keyHash: o.keyHash,
      keyLast4: o.keyLast4,
      original,
      // The journal's tag at the end of its name: a lost start is found in the export list by it.
      sent: { ...original, name: taggedExportName(original.name as string | null | undefined, o.tag) },
      choice: parseOwnedChoice(o.headers[OWNED_HEADER]),
      audienceName: audienceNameOfHeader(o.headers[AUDIENCE_HEADER]),
      creditsEstimated: o.estimate,
    };
  },
  exclude: (bought, deps) =>
    excludeExport(
      {
        ...deps.purchases,
        client: deps.client,
        count: deps.purchases.count,
        inFlight: deps.exportsInFlight,
      },
      bought,
    ),
  record: async (bought, plan, sent) => recordExport(bought, plan, sent ?? NOTHING_SENT),
  unknownRow: unknownExportRow,
  reconcile: (bought, deps) => reconcileExport(deps, bought, deps.longestSendMs("exportStart")),
  settle: {
    what: "export",
    statusOperations: new Set(["exportStatus", "exports"]),
    seen: (deps, _operation, text) => settleSeen(deps, text),
    check: checkPending,
  },
});

const tools = kind<ToolPurchase, null>({
  label: "verification and company tools",
  operations: [...TOOL_OPERATIONS],
  policed: true,
  price: priceTool,
  describe: (o, deps) => ({
    operation: o.operation,
    body: o.body,
    file: o.file,
    person: o.person,
    keyHash: o.keyHash,
    keyLast4: o.keyLast4,
    creditsEstimated: o.estimate,
    plan: deps.plan,
  }),
  exclude: async () => ({ body: "as-asked", plan: null }),
  record: (bought, _plan, sent) => recordTool(bought, sent ?? NOTHING_SENT),
  unknownRow: unknownToolRow,
  settle: {
    what: "batch verification",
    statusOperations: JOB_STATUS_OPERATIONS,
    seen: settleJobSeen,
    check: checkPendingJobs,
  },
});

/** A key rotation spends nothing and buys nothing: once per key, not policed, not in the ledger. */
const rotation = kind<null, null>({
  label: "key rotation",
  operations: ["rotateV1", "rotateV2"],
  policed: false,
  price: async () => null,
  describe: () => null,
  exclude: async () => ({ body: "as-asked", plan: null }),
  record: async (_bought, _plan, sent) => sent ?? NOTHING_SENT,
  unknownRow: () => undefined,
});

export const PURCHASE_KINDS: readonly PurchaseKind[] = [contacts, exportStart, tools, rotation];

const byOperation = new Map(PURCHASE_KINDS.flatMap((k) => k.operations.map((op) => [op, k] as const)));

/** The kind of purchase an operation that spends is; undefined for one that does not spend. */
export function purchaseKindOf(operation: string): PurchaseKind | undefined {
  return byOperation.get(operation);
}

/** The spends the team's caps and approvals admit. */
export const POLICED_OPERATIONS: ReadonlySet<string> = new Set(
  PURCHASE_KINDS.filter((k) => k.policed).flatMap((k) => k.operations),
);

/** The settlements of every kind that has one (the app wires their polls and checks). */
export const SETTLEMENTS: readonly Settlement[] = PURCHASE_KINDS.flatMap((k) => (k.settle ? [k.settle] : []));

/** The most a purchase may cost, as its kind prices it (null: not known, or not a purchase). */
export function estimatePurchase(
  deps: EstimateDeps,
  operation: string,
  body: Record<string, unknown>,
  owned: PriceRequest["owned"] = "leave-out",
  file?: ToolFile,
): Promise<number | null> {
  const k = purchaseKindOf(operation);
  return k ? k.price(deps, { operation, body, owned, file }) : Promise.resolve(null);
}

/** `record` is asked without a result only by kinds whose exclusions can leave nothing to send (Enrich). */
const NOTHING_SENT: WorkResult = {
  answer: problem(502, "Nothing was sent to the data service, and nothing charged."),
  outcome: "nothing-done",
};
