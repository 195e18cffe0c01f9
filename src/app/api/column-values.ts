import { queryOptions, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import type { responses } from "../../contract/operations";
import { call } from "./operations";

/** `GET /api/v2/contact/company/columns/{column}/values`: the distinct values of an enumerable company column. */
export type ColumnValues = z.infer<typeof responses.columnValues>;

/** Distinct values change only when the dataset does: keep them for the session. */
export const COLUMN_VALUES_STALE_MS = 60 * 60 * 1000;

export const columnValuesQueryKey = (column: string) => ["column-values", column] as const;

export function getColumnValues(
  column: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<ColumnValues> {
  return call("columnValues", { params: { column }, ...(signal ? { signal } : {}) });
}

export const columnValuesQueryOptions = (column: string) =>
  queryOptions({
    queryKey: columnValuesQueryKey(column),
    queryFn: ({ signal }) => getColumnValues(column, { signal }),
    staleTime: COLUMN_VALUES_STALE_MS,
    gcTime: COLUMN_VALUES_STALE_MS,
  });

/** The values of `column`, fetched only when `enabled` (an enumerable column actually shown). */
export function useColumnValues(column: string, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...columnValuesQueryOptions(column),
    enabled: (options.enabled ?? true) && column !== "",
  });
}
