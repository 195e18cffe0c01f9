import { createContext, useContext } from "react";
import { AUDIENCE_HEADER, audienceHeaderValue } from "../../../contract/spending";

/**
 * The saved audience the Checkout buys from ("Germany leads, version 3"), sent with every purchase
 * as `X-Audience-Name` so the team's ledger and approval requests say what was bought for what.
 * A label only: the proxy does not bind the purchase's key to it.
 */
export const AudienceLabelContext = createContext<string | null>(null);

export const useAudienceLabel = () => useContext(AudienceLabelContext);

/** The label as a header (none when no saved audience is open). */
export function audienceHeaders(label: string | null | undefined): Record<string, string> {
  return label ? { [AUDIENCE_HEADER]: audienceHeaderValue(label) } : {};
}
