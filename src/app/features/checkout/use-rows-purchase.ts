import { useEffect, useState } from "react";
import { type Purchase, type UsePurchaseOptions, usePurchase } from "../../lib/spend";
import type { PendingPurchase } from "../../lib/spend-journal";
import { type StoredValue, useStoredValue } from "../../lib/store";
import type { RowsResult } from "./saved-results";

export interface RowsPurchaseOptions<T> extends Pick<UsePurchaseOptions<T>, "kind" | "send"> {
  /** Where the rows paid for are kept on the device (a CSV can be saved again without paying). */
  store: StoredValue<RowsResult>;
  toResult: (results: T[], purchase: PendingPurchase) => RowsResult;
}

/**
 * A purchase whose rows come back at once (Enrich, Preview): the review step's state, the
 * purchase itself, and the last rows bought. The review closes when the purchase is done.
 */
export function useRowsPurchase<T, R>({
  kind,
  send,
  store,
  toResult,
}: RowsPurchaseOptions<T>): {
  purchase: Purchase<T>;
  review: R | null;
  setReview: (review: R | null) => void;
  result: RowsResult | null;
} {
  const [review, setReview] = useState<R | null>(null);
  const result = useStoredValue(store);
  const purchase = usePurchase<T>({
    kind,
    send,
    onSettled: (results, bought) => store.set(toResult(results, bought)),
  });
  const { state, reset } = purchase;
  useEffect(() => {
    if (state.phase === "done") {
      setReview(null);
      reset();
    }
  }, [state.phase, reset]);
  return { purchase, review, setReview, result };
}
