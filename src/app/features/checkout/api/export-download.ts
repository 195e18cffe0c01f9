import { downloadFile } from "../../../api/download";
import { operationPath } from "../../../api/operations";

/**
 * `GET /api/v2/contact/export/{exportId}/download`: the finished CSV (409 until COMPLETED). Free,
 * as often as needed: a failed or interrupted download is simply fetched again.
 */
export function exportDownloadPath(exportId: string): string {
  return operationPath("exportDownload", { exportId });
}

export function downloadExport(exportId: string, name?: string | null) {
  return downloadFile(exportDownloadPath(exportId), { fallbackName: `${name || exportId}.csv` });
}
