import { MASK_FLAGS } from "../contract/columns";
import { DEFAULT_FULL_ROW_COLUMNS, ERROR_CODES, type Reveal } from "../contract/inferred";
import { revealsEmail, revealsMobile } from "../contract/pricing";
import { HttpError } from "./http/pipeline";

/** What contacts cost lives in the contract (src/contract/pricing.ts), shared with the app. */
export { contactCost } from "../contract/pricing";

import type { Account, StateStore } from "./state/store";

export function insufficient(required: number, balance: number) {
  return new HttpError(402, {
    detail: `Not enough credits: this needs ${required} and the balance is ${balance}.`,
    code: ERROR_CODES.insufficientCredits,
    required,
    balance,
  });
}

/**
 * Takes credits or refuses with 402, charging nothing; durable before it returns. A charge that
 * cannot be saved is given back and the request fails (StateSaveError, a 500): never answered as done.
 */
export async function charge(store: StateStore, account: Account, amount: number): Promise<void> {
  if (amount <= 0) return;
  if (account.credits < amount) throw insufficient(amount, account.credits);
  account.credits -= amount;
  await store.commit(() => {
    account.credits += amount;
  });
}

/**
 * Columns of a full row (preview, enrich, export): those asked for, or the default set; email and
 * mobile only as revealed, and always when revealed (they are what is paid for). RBID_PAO first.
 */
export function fullRowColumns(requested: readonly string[] | null | undefined, reveal: Reveal): string[] {
  const masked = new Set<string>(Object.values(MASK_FLAGS));
  const base = (requested && requested.length > 0 ? requested : DEFAULT_FULL_ROW_COLUMNS).filter(
    (c) => !masked.has(c),
  );
  // Each column once: a CSV header with a repeated name would have more fields than its records.
  const columns = [...new Set(["RBID_PAO", ...base])];
  if (revealsEmail(reveal)) columns.push(MASK_FLAGS.hasEmail);
  if (revealsMobile(reveal)) columns.push(MASK_FLAGS.hasMobile);
  return columns;
}
