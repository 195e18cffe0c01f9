import type { Kysely } from "kysely";
import { MASK_FLAGS } from "../../contract/columns";
import { SPEND_CODES } from "../../contract/errors";
import type { Reveal } from "../../contract/inferred";
import { responses } from "../../contract/operations";
import { revealsEmail, revealsMobile } from "../../contract/pricing";
import type { LedgerOutcome, Tables } from "../db/schema";
import { type BufferedAnswer, problem } from "../http/answer";
import { type LedgerRowValues, writeLedgerRow } from "./ledger-store";
import { contactKey, ownedRows, ownedRowsByEmail, recordOwned } from "./owned-store";
import type { WorkResult } from "./spend-journal";
import {
  type CountOf,
  exclusionsRefusal,
  readSuppressed,
  type Suppressed,
  suppressedAmong,
  suppressedEmail,
  suppressedRow,
  withoutSuppressed,
} from "./suppression";

/**
 * Contacts the team owns and the ledger (spend/README.md, "Contacts the team owns, and the
 * ledger"). Every row Enrich and Preview deliver is recorded for the team, and every outcome of
 * theirs is a ledger row, in the transaction that commits the journal's answer (WorkResult.record).
 * Enrich serves rows the team owns (same columns, same or a wider reveal, within the retention)
 * from the store for nothing and sends only the rest.
 */

type Row = Record<string, unknown>;

export interface Purchase {
  operation: "enrich" | "preview";
  person: string;
  /** The journal entry's id: the purchase's id in owned_contacts and the ledger. */
  keyHash: string;
  keyLast4: string;
  /** The request as validated (and as it is forwarded). */
  body: Record<string, unknown>;
  /** The most it may cost, when the team's caps priced it (spending-policy.ts): the ledger's estimate. */
  creditsEstimated?: number | null;
  /** The saved audience it is bought from (`X-Audience-Name`), for the ledger. */
  audienceName?: string | null;
}

export interface PurchaseDeps {
  db: Kysely<Tables>;
  retentionDays: number;
  /** The account's credits now (a read, nothing spent); null when the service did not say. */
  readBalance: () => Promise<number | null>;
  /** A free Count: which contacts are on the team's do-not-contact lists (Enrich). */
  count?: CountOf;
  /**
   * Reserves contacts for a purchase (SpendJournal.reserve): a second purchase of the same people
   * waits for the first to commit, then takes them as the team's. "busy" when the wait ran out.
   */
  reserve?: (purchaseId: string, ids: readonly string[]) => Promise<"reserved" | "busy">;
}

/** The columns a request names, canonical: the same key means the same columns delivered. */
export function columnsKey(columns: unknown): string {
  if (!Array.isArray(columns) || columns.length === 0) return "";
  return JSON.stringify([...new Set(columns.map(String))].sort());
}

const BEING_BOUGHT: WorkResult = {
  answer: problem(
    409,
    "Some of these contacts are being bought by another purchase of the team right now, and it has not finished. Nothing was sent and nothing charged: try again in a minute, and they will be served as the team's own if that purchase bought them.",
    { code: SPEND_CODES.beingBought },
  ),
  outcome: "nothing-done",
};

const revealOf = (body: Record<string, unknown>) => body.reveal as Reveal;

/** A kind's exclusions applied: what will be sent (null: nothing needs sending) and what the record needs; or a refusal. */
export type Excluded<P, S = Record<string, unknown>> = { body: S | null; plan: P } | { refused: WorkResult };

/** What Enrich and Preview carry from their exclusions to their record. */
export interface ContactsPlan {
  /** Enrich: the ids asked for, without the suppressed ones, in their order. */
  requested: string[];
  /** The rows the team owns among them (served for nothing). */
  owned: Map<string, Row>;
  /** Enrich by email: the rows the team owns for addresses asked (served for nothing, not sent). */
  ownedEmails: Map<string, Row>;
  /** A delivered row on a do-not-contact list (withheld as a backstop). */
  blocked: (row: Row) => boolean;
}

const refused = (answer: BufferedAnswer): { refused: WorkResult } => ({
  refused: { answer, outcome: "nothing-done" },
});

/**
 * The team's exclusions, before anything is sent: the do-not-contact lists (within their budget),
 * and for Enrich the people the team owns (served from the store) and the reservation of the rest.
 */
export async function excludeContacts(deps: PurchaseDeps, p: Purchase): Promise<Excluded<ContactsPlan>> {
  let suppressed: Suppressed;
  try {
    suppressed = await readSuppressed(deps.db);
  } catch {
    return refused(
      problem(
        503,
        "The team's do-not-contact lists could not be read, so nothing was sent and nothing charged. Try again later.",
      ),
    );
  }
  const tooMany = exclusionsRefusal(suppressed);
  if (tooMany) return refused(tooMany);
  const blocked = suppressedRow(suppressed);
  if (p.operation === "preview")
    // Nothing on the team's do-not-contact lists is bought.
    return {
      body: { ...p.body, filter: withoutSuppressed(p.body.filter as never, suppressed) },
      plan: { requested: [], owned: new Map(), ownedEmails: new Map(), blocked },
    };

  const reveal = revealOf(p.body);
  const key = columnsKey(p.body.columns);
  const asked = [...new Set(((p.body.personIds as string[] | null | undefined) ?? []).map(String))];
  const onList = suppressedEmail(suppressed);
  const emails = ((p.body.emails as string[] | null | undefined) ?? []).filter((e) => !onList(e));
  let owned: Map<string, Row>;
  let ownedEmails: Map<string, Row>;
  let requested: string[];
  try {
    // Contacts on the team's do-not-contact lists are dropped before anything is sent.
    const dropped = deps.count ? await suppressedAmong(deps.count, suppressed, asked) : new Set<string>();
    requested = asked.filter((id) => !dropped.has(id));
    const readOwned = () =>
      Promise.all([ownedRows(deps, requested, reveal, key), ownedRowsByEmail(deps, emails, reveal, key)]);
    [owned, ownedEmails] = await readOwned();
    // Ids and addresses share one reservation table; an address cannot be taken for an id.
    const toBuy = [
      ...requested.filter((id) => !owned.has(id)),
      ...emails.filter((e) => !ownedEmails.has(e)).map((e) => `email:${contactKey(e)}`),
    ];
    if (deps.reserve && toBuy.length > 0) {
      if ((await deps.reserve(p.keyHash, toBuy)) === "busy") return { refused: BEING_BOUGHT };
      // Another purchase of some of them may have committed while this one waited: theirs now.
      [owned, ownedEmails] = await readOwned();
    }
  } catch {
    // Before anything is sent: the entry is dropped and the same key may be sent again.
    return refused(
      problem(
        503,
        "The team's store of contacts it already owns, or its do-not-contact lists, could not be checked, so nothing was sent and nothing charged. Try again later.",
      ),
    );
  }
  const plan = { requested, owned, ownedEmails, blocked };
  const rest = asked.length === 0 ? null : requested.filter((id) => !owned.has(id));
  const emailsToBuy = emails.filter((e) => !ownedEmails.has(e));
  // Everything asked for is the team's already: nothing is sent, nothing charged.
  if ((rest === null || rest.length === 0) && emailsToBuy.length === 0) return { body: null, plan };
  return {
    body: {
      ...p.body,
      ...(rest === null ? {} : { personIds: rest }),
      ...(p.body.emails != null ? { emails: emailsToBuy } : {}),
    },
    plan,
  };
}

/**
 * The answer the buyer gets and what is committed with it: the rows delivered (the team's now) and
 * the ledger's row. `sent` is the service's result, null when nothing needed sending.
 */
export async function recordContacts(
  deps: Pick<PurchaseDeps, "readBalance">,
  p: Purchase,
  plan: ContactsPlan,
  sent: WorkResult | null,
): Promise<WorkResult> {
  if (p.operation === "preview" && sent) return recordPreview(p, sent);
  const { requested, owned, ownedEmails, blocked } = plan;
  let bought: {
    answer: BufferedAnswer;
    /** The service's answer as it came (fields the contract does not name are kept). */
    raw: Record<string, unknown>;
    rows: Row[];
    notFound: string[];
    charged: number;
    remaining: number;
  };
  if (sent === null) {
    const remaining = await deps.readBalance().catch(() => null);
    if (remaining === null)
      return {
        answer: problem(
          502,
          "All of these contacts are already the team's, but the data service's balance could not be read to complete the answer. Nothing was sent and nothing charged; try again.",
        ),
        outcome: "nothing-done",
      };
    bought = {
      answer: { status: 200, headers: [], body: "" },
      raw: {},
      rows: [],
      notFound: [],
      charged: 0,
      remaining,
    };
  } else {
    const parsed =
      sent.outcome === "final" && ok(sent.answer) ? parseBody(responses.enrich, sent.answer) : null;
    if (!parsed)
      // Refused, unknown or unreadable: answered as the service answered; nothing served from the store.
      return { ...sent, record: (trx) => recordLedger(trx, p, ledgerOf(sent, null)) };
    if (owned.size === 0 && ownedEmails.size === 0 && !parsed.rows.some(blocked))
      // Nothing from the store: the service's answer exactly as it came.
      return {
        ...sent,
        record: async (trx) => {
          await recordRows(trx, p, parsed.rows);
          await recordLedger(trx, p, {
            outcome: parsed.creditsCharged > 0 ? "charged" : "free",
            rows: parsed.rows.length,
            free: 0,
            charged: parsed.creditsCharged,
          });
        },
      };
    bought = {
      answer: sent.answer,
      raw: JSON.parse(sent.answer.body) as Record<string, unknown>,
      rows: parsed.rows,
      notFound: parsed.notFound,
      charged: parsed.creditsCharged,
      remaining: parsed.creditsRemaining,
    };
  }

  // The requested ids in their order, the owned addresses' rows, then what the service found by email.
  const rows: Row[] = [];
  const taken = new Set<string>();
  const add = (row: Row | undefined): boolean => {
    if (!row || blocked(row)) return false;
    const id = String(row.RBID_PAO);
    if (taken.has(id)) return false;
    taken.add(id);
    rows.push(row);
    return true;
  };
  const boughtById = new Map(bought.rows.map((r) => [String(r.RBID_PAO), r]));
  const boughtByLower = new Map(bought.rows.map((r) => [contactKey(String(r.RBID_PAO)), r]));
  let free = 0;
  for (const id of requested) {
    const mine = owned.get(id);
    if (mine) {
      if (add(narrowed(mine, revealOf(p.body)))) free++;
    } else add(boughtById.get(id) ?? boughtByLower.get(contactKey(id)));
  }
  for (const mine of ownedEmails.values()) if (add(narrowed(mine, revealOf(p.body)))) free++;
  for (const row of bought.rows) add(row);
  const body = {
    ...bought.raw,
    rows,
    matched: rows.length,
    notFound: bought.notFound,
    creditsCharged: bought.charged,
    creditsRemaining: bought.remaining,
  };
  const answer = { status: bought.answer.status, headers: bought.answer.headers, body: JSON.stringify(body) };
  return {
    answer,
    outcome: "final",
    record: async (trx) => {
      await recordRows(trx, p, bought.rows);
      await recordLedger(trx, p, {
        outcome: bought.charged > 0 ? "charged" : "free",
        rows: rows.length,
        free,
        charged: bought.charged,
      });
    },
  };
}

function recordPreview(p: Purchase, result: WorkResult): WorkResult {
  const parsed =
    result.outcome === "final" && ok(result.answer) ? parseBody(responses.preview, result.answer) : null;
  const delivered = parsed?.rows ?? [];
  return {
    ...result,
    record: async (trx) => {
      if (parsed) await recordRows(trx, p, delivered);
      await recordLedger(
        trx,
        p,
        ledgerOf(result, parsed ? { rows: delivered.length, free: 0, charged: parsed.creditsCharged } : null),
      );
    },
  };
}

/** A row owned with a wider reveal, as this request's reveal delivers it (what it did not reveal left out). */
function narrowed(row: Row, reveal: Reveal): Row {
  const out = { ...row };
  if (!revealsEmail(reveal)) delete out[MASK_FLAGS.hasEmail];
  if (!revealsMobile(reveal)) delete out[MASK_FLAGS.hasMobile];
  return out;
}

function ok(answer: BufferedAnswer) {
  return answer.status >= 200 && answer.status < 300;
}

function parseBody<T>(
  schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } },
  answer: BufferedAnswer,
): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(answer.body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

interface LedgerFigures {
  outcome: LedgerOutcome;
  rows: number;
  free: number;
  charged: number | null;
}

/** What a result the answer could not be read for comes to: refused (4xx), else not known. */
function ledgerOf(
  result: WorkResult,
  read: { rows: number; free: number; charged: number } | null,
): LedgerFigures {
  if (read) return { outcome: read.charged > 0 ? "charged" : "free", ...read };
  const refused = result.outcome === "final" && result.answer.status >= 400 && result.answer.status < 500;
  return refused
    ? { outcome: "refused", rows: 0, free: 0, charged: 0 }
    : { outcome: "unknown", rows: 0, free: 0, charged: null };
}

function recordRows(trx: Kysely<Tables>, p: Purchase, rows: Row[]) {
  return recordOwned(trx, rows, {
    reveal: revealOf(p.body),
    columnsKey: columnsKey(p.body.columns),
    person: p.person,
    purchaseId: p.keyHash,
    operation: p.operation,
  });
}

function recordLedger(trx: Kysely<Tables>, p: Purchase, figures: LedgerFigures) {
  return writeLedgerRow(trx, rowOf(p, figures));
}

function rowOf(p: Purchase, figures: LedgerFigures): LedgerRowValues {
  return {
    person: p.person,
    operation: p.operation,
    audienceName: p.audienceName ?? null,
    filter: p.operation === "preview" ? (p.body.filter ?? null) : null,
    detail: null,
    rows: figures.rows,
    rowsFree: figures.free,
    estimated: p.creditsEstimated ?? null,
    charged: figures.charged,
    outcome: figures.outcome,
    keyHash: p.keyHash,
    keyLast4: p.keyLast4,
  };
}

/** The ledger's row for a purchase whose outcome is never learned (kept with its journal entry). */
export function unknownLedgerRow(p: Purchase): LedgerRowValues {
  return rowOf(p, { outcome: "unknown", rows: 0, free: 0, charged: null });
}
