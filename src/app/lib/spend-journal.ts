import { z } from "zod";
import { stableStringify } from "../../contract/canonical";
import { newIdempotencyKey } from "../api/client";

/**
 * The purchase journal: what makes a purchase charge once. At Confirm, BEFORE anything is sent, the
 * purchase is written to localStorage with one Idempotency-Key per call (an Enrich split in several
 * calls has a key per call) and the exact bodies. It is removed only when a definite answer arrives.
 * Until then every send, whether a second click or a "Try again" (after a failure or a reload: nothing
 * is ever sent again without a click), sends the SAME bodies with the SAME keys, and the proxy answers
 * repeats with the first answer instead of spending again.
 *
 * Each call also records when its send started (`sentAt`, written BEFORE the request leaves), so a
 * purchase found after a reload with no call marked provably never left the browser; and a purchase
 * the proxy called "outcome unknown" is marked (`unknownAt`), so a reload still says so.
 *
 * Plain functions over a Storage (tests pass their own). When the browser refuses storage the
 * journal lives in memory: a double click and a retry are still safe, a reload is not.
 */

export const JOURNAL_KEY = "ab.checkout.pending.v1";

export const PURCHASE_KINDS = [
  "enrich",
  "preview",
  "export",
  "verify",
  "verifyBatch",
  "rotateKey",
  "resolveCompany",
] as const;
export type PurchaseKind = (typeof PURCHASE_KINDS)[number];

const callSchema = z.object({
  key: z.string().min(8).max(128),
  body: z.unknown(),
  /** When this call's send started (written before the request left); absent: never sent. */
  sentAt: z.string().optional(),
  /** When its answer arrived: a new purchase after an unknown outcome leaves it out. */
  answeredAt: z.string().optional(),
});
const purchaseSchema = z.object({
  v: z.literal(1),
  purchaseId: z.string().min(1),
  kind: z.enum(PURCHASE_KINDS),
  calls: z.array(callSchema).min(1),
  startedAt: z.string(),
  /** What is being bought, in a sentence, for the notices. */
  summary: z.string(),
  /** When the proxy said its outcome cannot be known: it is never sent again under these keys. */
  unknownAt: z.string().optional(),
  /**
   * The team's approval request this purchase became (a 202 from the proxy): it waits for an admin,
   * and once run the same keys get its answer. Kept so that a reload keeps waiting, never resends.
   */
  approvalId: z.string().optional(),
});
export type PendingPurchase = z.infer<typeof purchaseSchema>;
export type PurchaseCall = z.infer<typeof callSchema>;

const journalSchema = z.object({ v: z.literal(1), purchases: z.array(z.unknown()) });

/** The journal as last written in this page, used when storage is refused or failed to write. */
let memory: PendingPurchase[] = [];
let memoryOnly = false;

/** Forgets the in-memory copy (tests). */
export function resetJournalMemory(): void {
  memory = [];
  memoryOnly = false;
}

/** Every unfinished purchase; entries that do not read as one are skipped. */
export function readJournal(storage: Storage | null): PendingPurchase[] {
  if (!storage || memoryOnly) return memory;
  let raw: string | null;
  try {
    raw = storage.getItem(JOURNAL_KEY);
  } catch {
    return memory;
  }
  if (raw === null) return [];
  try {
    const parsed = journalSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return [];
    return parsed.data.purchases.flatMap((entry) => {
      const one = purchaseSchema.safeParse(entry);
      return one.success ? [one.data] : [];
    });
  } catch {
    return [];
  }
}

/** Writes the journal; false when it could only be kept in memory. */
function writeJournal(storage: Storage | null, purchases: PendingPurchase[]): boolean {
  memory = purchases;
  if (!storage) return false;
  try {
    if (purchases.length === 0) storage.removeItem(JOURNAL_KEY);
    else storage.setItem(JOURNAL_KEY, JSON.stringify({ v: 1, purchases }));
    memoryOnly = false;
    return true;
  } catch {
    // Quota or privacy mode: keep this page safe from double sends at least.
    memoryOnly = true;
    return false;
  }
}

/** The unfinished purchase of this kind, if any. */
export function pendingPurchase(storage: Storage | null, kind: PurchaseKind): PendingPurchase | null {
  return readJournal(storage).find((p) => p.kind === kind) ?? null;
}

export type BeginResult =
  /** A new purchase, written (or, when `persisted` is false, kept in memory only). */
  | { outcome: "new"; purchase: PendingPurchase; persisted: boolean }
  /** The same purchase was already pending (a second click): its keys are reused. */
  | { outcome: "reused"; purchase: PendingPurchase }
  /** Another purchase of this kind is still unfinished: finish or forget it first. */
  | { outcome: "conflict"; purchase: PendingPurchase };

function sameBodies(purchase: PendingPurchase, bodies: readonly unknown[]): boolean {
  return (
    purchase.calls.length === bodies.length &&
    purchase.calls.every((call, i) => stableStringify(call.body) === stableStringify(bodies[i]))
  );
}

/**
 * Records a purchase before it is sent: one key per body. A pending purchase of the same kind with
 * the same bodies is returned as it is (the same keys), so a double click can never buy twice.
 */
export function beginPurchase(
  storage: Storage | null,
  input: { kind: PurchaseKind; bodies: readonly unknown[]; summary: string },
  options: { now?: Date; newKey?: () => string } = {},
): BeginResult {
  if (input.bodies.length === 0) throw new Error("a purchase needs at least one call");
  const purchases = readJournal(storage);
  const existing = purchases.find((p) => p.kind === input.kind);
  if (existing)
    return sameBodies(existing, input.bodies)
      ? { outcome: "reused", purchase: existing }
      : { outcome: "conflict", purchase: existing };
  const newKey = options.newKey ?? newIdempotencyKey;
  const purchase: PendingPurchase = {
    v: 1,
    purchaseId: newKey(),
    kind: input.kind,
    // A deep copy: what is sent again later is exactly what was confirmed.
    calls: input.bodies.map((body) => ({ key: newKey(), body: JSON.parse(JSON.stringify(body)) })),
    startedAt: (options.now ?? new Date()).toISOString(),
    summary: input.summary,
  };
  const persisted = writeJournal(storage, [...purchases, purchase]);
  return { outcome: "new", purchase, persisted };
}

/** Removes a purchase once its answer is definite. */
export function finishPurchase(storage: Storage | null, purchaseId: string): void {
  const purchases = readJournal(storage);
  const rest = purchases.filter((p) => p.purchaseId !== purchaseId);
  if (rest.length !== purchases.length) writeJournal(storage, rest);
}

/** True once any of its calls started to be sent: it may have reached the server. */
export function hasBeenSent(purchase: PendingPurchase): boolean {
  return purchase.calls.some((call) => call.sentAt !== undefined);
}

/** Changes one purchase in the journal; false when the change could not be written to storage. */
function update(
  storage: Storage | null,
  purchaseId: string,
  change: (purchase: PendingPurchase) => PendingPurchase,
): { purchase: PendingPurchase | null; persisted: boolean } {
  const purchases = readJournal(storage);
  let changed: PendingPurchase | null = null;
  const next = purchases.map((p) => {
    if (p.purchaseId !== purchaseId) return p;
    changed = change(p);
    return changed;
  });
  if (changed === null) return { purchase: null, persisted: true };
  return { purchase: changed, persisted: writeJournal(storage, next) };
}

/** True when the storage itself (not the in-memory copy) still holds this purchase. */
function storageHolds(storage: Storage | null, purchaseId: string): boolean {
  if (!storage) return false;
  try {
    return (storage.getItem(JOURNAL_KEY) ?? "").includes(JSON.stringify(purchaseId));
  } catch {
    return false;
  }
}

/**
 * Marks call `index` as being sent, BEFORE it is sent. False when it must not be sent: the mark
 * could not be written while the storage still holds the purchase unmarked, so a reload would wrongly
 * say it never left.
 */
export function markSending(
  storage: Storage | null,
  purchaseId: string,
  index: number,
  now: Date = new Date(),
): boolean {
  const { persisted } = update(storage, purchaseId, (p) => ({
    ...p,
    calls: p.calls.map((call, i) =>
      i === index && !call.sentAt ? { ...call, sentAt: now.toISOString() } : call,
    ),
  }));
  return persisted || !storageHolds(storage, purchaseId);
}

/** Whether call `index` was already marked as sent by an earlier attempt (this page's or another's). */
export function wasSent(storage: Storage | null, purchaseId: string, index: number): boolean {
  return readJournal(storage).find((p) => p.purchaseId === purchaseId)?.calls[index]?.sentAt !== undefined;
}

/**
 * Takes the mark off call `index`: the proxy answered that it passed nothing on (it could not
 * record the spend, the session had ended, a rate limit), so a reload can still say it never left.
 */
export function unmarkSending(storage: Storage | null, purchaseId: string, index: number): void {
  update(storage, purchaseId, (p) => ({
    ...p,
    calls: p.calls.map((call, i) => {
      if (i !== index) return call;
      const { sentAt: _, ...rest } = call;
      return rest;
    }),
  }));
}

/** Marks call `index` as answered (a new purchase after an unknown outcome leaves it out). */
export function markAnswered(storage: Storage | null, purchaseId: string, index: number): void {
  update(storage, purchaseId, (p) => ({
    ...p,
    calls: p.calls.map((call, i) => (i === index ? { ...call, answeredAt: new Date().toISOString() } : call)),
  }));
}

/** Marks a purchase whose outcome the proxy says cannot be known: kept to be shown, never resent. */
export function markUnknown(
  storage: Storage | null,
  purchaseId: string,
  now: Date = new Date(),
): PendingPurchase | null {
  return update(storage, purchaseId, (p) => ({ ...p, unknownAt: p.unknownAt ?? now.toISOString() })).purchase;
}

/** The bodies of the calls that got no answer: what a new purchase after an unknown outcome buys. */
export function unansweredBodies(purchase: PendingPurchase): unknown[] {
  return purchase.calls.filter((call) => call.answeredAt === undefined).map((call) => call.body);
}

/** Marks a purchase that became an approval request: kept, waiting for an admin, never resent by itself. */
export function markApproval(
  storage: Storage | null,
  purchaseId: string,
  approvalId: string,
): PendingPurchase | null {
  return update(storage, purchaseId, (p) => ({ ...p, approvalId })).purchase;
}
