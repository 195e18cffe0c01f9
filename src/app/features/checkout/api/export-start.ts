import type { z } from "zod";
import type { Requests, responses } from "../../../../contract/operations";
import { call } from "../../../api/operations";

/**
 * `POST /api/v2/contact/export` (202): starts an export; it is charged once, on completion, exactly
 * the estimate. A spend: sent only through the purchase journal, with its key.
 */
export type ExportStartBody = z.input<Requests["exportStart"]>;
export type ExportStarted = z.infer<typeof responses.exportStarted>;

export function startExport(body: ExportStartBody, idempotencyKey: string): Promise<ExportStarted> {
  return call("exportStart", { body, idempotencyKey });
}
