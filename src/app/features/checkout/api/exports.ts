import { queryOptions, useQuery } from "@tanstack/react-query";
import { exportNameWithoutTag } from "../../../../contract/export-tag";
import { call } from "../../../api/operations";

/** `GET /api/v2/contact/exports`: this account's exports, newest first (the export history). */
export const EXPORTS_QUERY_KEY = ["checkout", "exports"] as const;

export async function getExports(signal?: AbortSignal) {
  const answer = await call("exports", { ...(signal ? { signal } : {}) });
  return { exports: answer.exports.map((e) => ({ ...e, name: exportNameWithoutTag(e.name) })) };
}

export const exportsQueryOptions = () =>
  queryOptions({
    queryKey: EXPORTS_QUERY_KEY,
    queryFn: ({ signal }) => getExports(signal),
    staleTime: 10_000,
    // While one of them runs, its row follows it.
    refetchInterval: (query) =>
      query.state.data?.exports.some((e) => e.status === "QUEUED" || e.status === "PROCESSING")
        ? 5000
        : false,
  });

export function useExports() {
  return useQuery(exportsQueryOptions());
}
