import type { CsvHeaderStyle } from "../../../../contract/columns";
import type { OperationProxyQuery } from "../../../../contract/routes";
import { downloadFile } from "../../../api/download";
import { operationPath } from "../../../api/operations";

/**
 * `GET /api/v2/contact/export/{exportId}/download`: the finished CSV (409 until COMPLETED). Free,
 * as often as needed: a failed or interrupted download is simply fetched again. In labels, the
 * proxy rewrites the file's header row (`?headers=labels`, never sent to the service); in the
 * service's names, the file is asked for as it is.
 */
export function exportDownloadPath(exportId: string, headers: CsvHeaderStyle = "names"): string {
  const path = operationPath("exportDownload", { exportId });
  if (headers === "names") return path;
  const query: NonNullable<OperationProxyQuery<"exportDownload">> = { headers };
  return `${path}?${new URLSearchParams(query)}`;
}

export function downloadExport(exportId: string, name: string | null | undefined, headers: CsvHeaderStyle) {
  return downloadFile(exportDownloadPath(exportId, headers), { fallbackName: `${name || exportId}.csv` });
}
