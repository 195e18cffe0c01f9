import { useEffect, useState } from "react";
import { type Purchase, type UsePurchaseOptions, usePurchase } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { type StoredValue, useStoredValue } from "../../lib/store";
import { ofAudience, type RowsResult } from "./saved-results";

export interface RowsPurchaseOptions<T> extends Pick<UsePurchaseOptions<T>, "kind" | "send"> {
  /** Where the rows paid for are kept on the device (a CSV can be saved again without paying). */
  store: StoredValue<RowsResult>;
  toResult: (results: T[], purchase: PendingPurchase) => RowsResult;
  /** The audience bought from (Preview), so that another audience's rows are not shown as its own. */
  audience?: { key: string; words: string };
}

/**
 * A purchase whose rows come back at once (Enrich, Preview): the review step's state, the
 * purchase itself, and the last rows bought: `result` when bought from this audience (or for
 * people, not an audience), `other` when bought from another one.
 */
export function useRowsPurchase<T, R>({
  kind,
  send,
  store,
  toResult,
  audience,
}: RowsPurchaseOptions<T>): {
  purchase: Purchase<T>;
  review: R | null;
  setReview: (review: R | null) => void;
  result: RowsResult | null;
  other: RowsResult | null;
} {
  const [review, setReview] = useState<R | null>(null);
  const stored = useStoredValue(store);
  const purchase = usePurchase<T>({
    kind,
    send,
    onSettled: (results, bought) =>
      store.set({
        ...toResult(results, bought),
        ...(audience ? { audienceKey: audience.key, audience: audience.words } : {}),
      }),
  });
  const { state, reset } = purchase;
  useEffect(() => {
    if (state.phase === "done") {
      setReview(null);
      reset();
    }
  }, [state.phase, reset]);
  const mine = stored === null || !audience || ofAudience(stored, audience.key);
  return { purchase, review, setReview, result: mine ? stored : null, other: mine ? null : stored };
}
