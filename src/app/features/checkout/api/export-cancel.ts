import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ExportStatusRecord } from "../../../../contract/operations";
import { call } from "../../../api/operations";
import { EXPORT_STATUS_QUERY_KEY } from "./export-status";
import { EXPORTS_QUERY_KEY } from "./exports";

/** `POST /api/v2/contact/export/{exportId}/cancel`: stops a running export; nothing is charged. */
export function cancelExport(exportId: string): Promise<ExportStatusRecord> {
  return call("exportCancel", { params: { exportId } });
}

export function useCancelExport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelExport,
    onSuccess: (record) => {
      queryClient.setQueryData([...EXPORT_STATUS_QUERY_KEY, record.exportId], record);
      void queryClient.invalidateQueries({ queryKey: EXPORTS_QUERY_KEY });
    },
  });
}
