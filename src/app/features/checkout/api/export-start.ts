import type { z } from "zod";
import { type Requests, responses } from "../../../../contract/operations";
import { OWNED_HEADER, type OwnedChoice } from "../../../../contract/spending";
import { api, requestJson, spendOptions } from "../../../api/client";
import { operationPath } from "../../../api/operations";
import { audienceHeaders } from "../audience-label";

/**
 * `POST /api/v2/contact/export` (202): starts an export; it is charged once, on completion, exactly
 * the estimate. A spend: sent only through the purchase journal, with its key. What to do with the
 * contacts the team already owns travels in the `X-Owned-Contacts` header (the proxy reads it; the
 * service's body stays the service's).
 */
export type ExportStartBody = z.input<Requests["exportStart"]>;
export type ExportStarted = z.infer<typeof responses.exportStarted>;

/** The call as kept in the purchase journal: the body, and the owned-contacts choice beside it. */
export type ExportStartCall = ExportStartBody & { ownedContacts?: OwnedChoice };

export function startExport(
  call: ExportStartCall,
  idempotencyKey: string,
  audienceLabel?: string | null,
): Promise<ExportStarted> {
  const { ownedContacts, ...body } = call;
  const headers: Record<string, string> = {
    ...audienceHeaders(audienceLabel),
    ...(ownedContacts ? { [OWNED_HEADER]: ownedContacts } : {}),
  };
  return requestJson(responses.exportStarted, () =>
    api.post(operationPath("exportStart"), spendOptions(idempotencyKey, { json: body, headers })),
  );
}
