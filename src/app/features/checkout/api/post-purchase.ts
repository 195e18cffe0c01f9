import type { z } from "zod";
import { api, requestJson, spendOptions } from "../../../api/client";
import { operationPath } from "../../../api/operations";
import { audienceHeaders } from "../audience-label";

/** A purchase answered with rows (Enrich, Preview): its key, and the saved audience it is bought from. */
export function postPurchase<S extends z.ZodType>(
  id: "enrich" | "preview",
  schema: S,
  body: unknown,
  idempotencyKey: string,
  audienceLabel?: string | null,
): Promise<z.output<S>> {
  return requestJson(schema, () =>
    api.post(
      operationPath(id),
      spendOptions(idempotencyKey, { json: body, headers: audienceHeaders(audienceLabel) }),
    ),
  );
}
