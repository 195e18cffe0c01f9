import { type Kysely, type RawBuilder, sql } from "kysely";
import type { SettlementState, Tables } from "../db/schema";
import { settleRow } from "./ledger-store";

/**
 * Settlement of the purchases whose charge is known only when the service's job ends (an export, a
 * batch verification) as a durable job: claimed by one instance, tried again after a failure with
 * a growing backoff, and given up in words after SETTLE_ATTEMPTS failures: the ledger row turns
 * `unknown` with what to check, never a try every minute forever.
 */

export const SETTLE_ATTEMPTS = 8;
const FIRST_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 6 * 3600_000;

/** The claim of `claimer` (or an unnamed one): a settlement's writes hold only while it is still theirs. */
export function stillClaimedBy(claimer: Claimer | undefined): RawBuilder<boolean> {
  return sql<boolean>`(state = 'settling' and claimed_by is not distinct from ${claimer?.id ?? null})`;
}

/** Who settles: this instance, and how to tell that the instance named in a column has stopped. */
export interface Claimer {
  id: string;
  /** True where the instance named in `column` has stopped (spend-journal.ts's liveness rule). */
  gone: (column: string) => RawBuilder<boolean>;
}

/**
 * A purchase to settle now: pending and due (its backoff over), or claimed by an instance that
 * stopped before settling it: at once when the claim names an instance that has stopped, else
 * after 10 minutes (a claim from before claims were named). Bracketed: it is ANDed with others.
 */
export function unsettled(claimer?: Claimer): RawBuilder<boolean> {
  const stopped = claimer ? sql`(claimed_by is not null and ${claimer.gone("claimed_by")})` : sql`false`;
  return sql<boolean>`((state = 'pending' and (next_attempt_at is null or next_attempt_at <= now())) or (state = 'settling' and (claimed_at < now() - interval '10 minutes' or ${stopped})))`;
}

/** The wait before the attempt after `failed` failures: 1 min, 2, 4, … at most 6 h. */
export function backoffMs(failed: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failed - 1));
}

/** What a failed attempt leaves: the count, and the next try or the give-up. */
function afterFailure(
  attemptsBefore: number,
  error: unknown,
): {
  state: SettlementState;
  attempts: number;
  next_attempt_at: Date | string | null;
  last_error: string;
  claimed_at: null;
  claimed_by: null;
} {
  const attempts = attemptsBefore + 1;
  const givenUp = attempts >= SETTLE_ATTEMPTS;
  return {
    state: givenUp ? "given-up" : "pending",
    attempts,
    next_attempt_at: givenUp ? null : new Date(Date.now() + backoffMs(attempts)),
    last_error: String((error as Error)?.message ?? error).slice(0, 500),
    claimed_at: null,
    claimed_by: null,
  };
}

/**
 * A given-up settlement's ledger row: `unknown` (its estimate keeps counting against the caps),
 * saying what failed and what to check.
 */
async function givenUpInLedger(
  db: Kysely<Tables>,
  purchaseId: string,
  what: string,
  lastError: string,
): Promise<void> {
  await settleRow(db, purchaseId, {
    outcome: "unknown",
    charged: null,
    // After what the row was for (a batch's file name), when it says so.
    note: `Not settled: the proxy tried ${SETTLE_ATTEMPTS} times to read what ${what} charged and gave up (last: ${lastError}). Check it in the service, and the balance on the Account page.`,
  });
}

/**
 * A failed settlement attempt, the same for every kind: said in the log, counted on the purchase's
 * row (`save`, which updates that row while it is still this instance's claim), then tried again
 * after a backoff or, after the last attempt, given up with the ledger row saying so.
 */
export async function settlementFailed(
  deps: { db: Kysely<Tables>; onError?: (message: string, error: unknown) => void },
  what: string,
  claimed: { attempts: number; purchase_id: string },
  error: unknown,
  /** Writes the attempt where this instance still holds the claim; resolves to the rows written. */
  save: (next: ReturnType<typeof afterFailure>) => Promise<number>,
): Promise<void> {
  const next = afterFailure(claimed.attempts, error);
  const saved = await save(next).catch(() => null);
  if (saved === 0) {
    // Another instance took the claim over (this one was judged stopped): its attempt counts, not
    // this one, and the purchase is neither handed back nor given up under it.
    deps.onError?.(`${what} not settled here; another instance has taken it over`, error);
    return;
  }
  deps.onError?.(
    next.state === "given-up"
      ? `${what} not settled after ${next.attempts} attempts: given up, its ledger row says so`
      : `${what} not settled (attempt ${next.attempts}); tried again after a backoff`,
    error,
  );
  if (next.state === "given-up")
    await givenUpInLedger(deps.db, claimed.purchase_id, `this ${what}`, next.last_error).catch(() => {});
}
