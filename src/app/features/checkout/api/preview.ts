import type { z } from "zod";
import { type Requests, responses } from "../../../../contract/operations";
import { postPurchase } from "./post-purchase";

/**
 * `POST /api/v2/contact/preview`: the first rows of an audience, full and revealed as asked,
 * charged on PAYG. A spend: it is sent only through the purchase journal, with its key.
 */
export type PreviewBody = z.input<Requests["preview"]>;
export type PreviewResult = z.infer<typeof responses.preview>;

export function postPreview(
  body: PreviewBody,
  idempotencyKey: string,
  audienceLabel?: string | null,
): Promise<PreviewResult> {
  return postPurchase("preview", responses.preview, body, idempotencyKey, audienceLabel);
}
