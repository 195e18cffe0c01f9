import { useMutation } from "@tanstack/react-query";
import { downloadFile, saveTextFile } from "../../api/download";
import { preferV2 } from "../../api/generations";
import { call, operationPath } from "../../api/operations";
import { toCsv } from "../../ui/csv";

/**
 * A job's results as a CSV file. v2: `GET /api/v2/jobs/{id}/download` streams the service's CSV
 * (`email,status,deliverability,role,risk`). v1, where v2 is absent: `POST /api/v1/batch-download
 * { process_id }` answers a JSON list in the real-time format, which is turned into the same CSV
 * here. Downloads are free, so "Download again" is always safe.
 */
export const RESULTS_COLUMNS = ["email", "status", "deliverability", "role", "risk"] as const;

const V2_STATUS = { DELIVERABLE: "Valid", UNDELIVERABLE: "Invalid", UNKNOWN: "Unknown" } as const;

/** `list.csv` -> `list-results.csv` (the name the v2 download gives its file). */
export function resultsFilename(filename: string): string {
  const base = filename.replace(/\.[^.]*$/, "").replace(/[^\w.-]+/g, "_") || "results";
  return `${base}-results.csv`;
}

/**
 * A spreadsheet runs a cell starting with one of these as a formula, and the address is text
 * someone else chose: prefixed with `'` it shows as text (the v2 file does the same).
 */
const neutralise = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

/** The v1 download (JSON) as the v2 CSV. */
export function v1ResultsCsv(
  results: readonly { email: string; deliverability: keyof typeof V2_STATUS; role: boolean; risk: string }[],
): string {
  return toCsv(
    results.map((r) => ({ ...r, email: neutralise(r.email), status: V2_STATUS[r.deliverability] })),
    RESULTS_COLUMNS,
  );
}

export async function downloadResults(
  id: string,
  filename: string,
): Promise<{ filename: string; bytes: number }> {
  const fallbackName = resultsFilename(filename);
  const { value } = await preferV2("jobDownload", {
    ...(/^\d{1,15}$/.test(id)
      ? { v2: () => downloadFile(operationPath("jobDownloadV2", { process_id: id }), { fallbackName }) }
      : {}),
    v1: async () => {
      const results = await call("batchDownloadV1", { body: { process_id: id } });
      const text = v1ResultsCsv(results);
      saveTextFile(text, fallbackName);
      return { filename: fallbackName, bytes: new Blob([text]).size };
    },
  });
  return value;
}

export function useDownloadResults() {
  return useMutation({
    mutationFn: ({ id, filename }: { id: string; filename: string }) => downloadResults(id, filename),
  });
}
