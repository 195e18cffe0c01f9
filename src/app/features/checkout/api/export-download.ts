import type { CsvHeaderStyle } from "../../../../contract/columns";
import type { OperationProxyQuery } from "../../../../contract/routes";
import { downloadFile } from "../../../api/download";
import { operationPath } from "../../../api/operations";
import { fileStamp } from "../../../lib/format";

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

/**
 * What a downloaded export is called: its name (the audience's, unless the buyer typed one) and the
 * day it was made, e.g. `Directors in Germany 2026-11-29.csv`, where the service's own is `export.csv`.
 */
export function exportFilename(
  exportId: string,
  name: string | null | undefined,
  createdAt?: string,
): string {
  const day =
    createdAt && !Number.isNaN(Date.parse(createdAt)) ? fileStamp(new Date(createdAt)).slice(0, 10) : "";
  return `${name || exportId}${day ? ` ${day}` : ""}.csv`;
}

export function downloadExport(
  exportId: string,
  name: string | null | undefined,
  headers: CsvHeaderStyle,
  createdAt?: string,
) {
  const filename = exportFilename(exportId, name, createdAt);
  return downloadFile(exportDownloadPath(exportId, headers), { filename, fallbackName: filename });
}
