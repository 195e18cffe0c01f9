import { queryOptions, useQuery } from "@tanstack/react-query";
import { exportNameWithoutTag } from "../../../../contract/export-tag";
import type { ExportStatus } from "../../../../contract/inferred";
import type { ExportStatusRecord } from "../../../../contract/operations";
import { call } from "../../../api/operations";

/** `GET /api/v2/contact/export/{exportId}`: where an export is. Polled while it runs. */
export type { ExportStatusRecord };

export const EXPORT_STATUS_QUERY_KEY = ["checkout", "export-status"] as const;

export function isFinished(status: ExportStatus): boolean {
  return status === "COMPLETED" || status === "ERROR" || status === "CANCELLED";
}

/** Poll every second at first, then back off to every five seconds for a long export. */
export function pollDelay(answers: number): number {
  const FAST_POLLS = 5;
  return Math.min(5000, Math.round(1000 * 1.5 ** Math.max(0, answers - FAST_POLLS)));
}

/** The name as the person gave it (the proxy's journal tag taken off). */
export async function getExportStatus(exportId: string, signal?: AbortSignal): Promise<ExportStatusRecord> {
  const record = await call("exportStatus", { params: { exportId }, ...(signal ? { signal } : {}) });
  return { ...record, name: exportNameWithoutTag(record.name) };
}

export function exportStatusQueryOptions(exportId: string) {
  return queryOptions({
    queryKey: [...EXPORT_STATUS_QUERY_KEY, exportId] as const,
    queryFn: ({ signal }) => getExportStatus(exportId, signal),
    staleTime: 0,
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      if (status && isFinished(status)) return false;
      return pollDelay(query.state.dataUpdateCount);
    },
    // Keep following in a background tab: the download starts when it completes.
    refetchIntervalInBackground: true,
  });
}

export function useExportStatus(exportId: string | null) {
  return useQuery({ ...exportStatusQueryOptions(exportId ?? ""), enabled: exportId !== null });
}
