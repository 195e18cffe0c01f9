import type { Plan } from "../../../contract/inferred";
import type { CapStanding, PolicyVerdict } from "../../../contract/spending";
import { formatCredits, formatNumber } from "../../lib/format";

/**
 * The team's spending rules as a purchase's review states them (caps, approval threshold), in words:
 * the proxy decides; the screen explains before the click.
 */

/**
 * "40 of your 50 credits this month are spent (10 left)"; past the cap: "your monthly cap of 1
 * credit is passed: 11 spent this month".
 */
export function capLine(cap: CapStanding): string {
  const whose = cap.scope === "person" ? "your" : "the team's";
  if (cap.spent > cap.cap)
    return `${whose} monthly cap of ${formatCredits(cap.cap)} is passed: ${formatNumber(cap.spent)} spent this month`;
  const left = Math.max(0, cap.left);
  return `${formatNumber(cap.spent)} of ${whose} ${formatCredits(cap.cap)} this month ${cap.spent === 1 ? "is" : "are"} spent (${formatNumber(left)} left)`;
}

/** The caps as one sentence: "40 of your 50 credits this month are spent (10 left); …". */
export function capsSentence(caps: readonly CapStanding[]): string | null {
  if (caps.length === 0) return null;
  const sentence = caps.map(capLine).join("; ");
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/**
 * Why Confirm is off when a cap refuses it (null when the rules let it through or ask an admin).
 * The proxy's reason already names the cap, what is spent and what is left: said once, not again
 * as the caps' sentence; that one stands in only when no reason came.
 */
export function policyProblem(policy: PolicyVerdict): string | null {
  if (policy.verdict !== "refused") return null;
  if (policy.reason) return `${policy.reason} Nothing is spent.`;
  const caps = capsSentence(policy.caps);
  const reason = "This would pass a monthly spending cap, so it cannot be bought now.";
  return caps ? `${reason} ${caps} Nothing is spent.` : `${reason} Nothing is spent.`;
}

/** Confirm's label: what it costs, or that an admin is asked first. */
export function policyConfirmLabel(
  policy: PolicyVerdict,
  credits: number,
  plan: Plan | null,
  label: string,
): string {
  // Credits alone: "(up to 60 credits)", the dollars are in the facts above.
  if (policy.verdict === "approval" && plan !== "AYCE")
    return `Ask an admin to approve (up to ${formatCredits(credits)})`;
  if (policy.verdict === "approval") return "Ask an admin to approve";
  return label;
}

/** Below the facts: the caps as they stand, and what asking an admin means. */
export function PolicyNote({ policy }: { policy: PolicyVerdict }) {
  const caps = policy.verdict === "refused" ? null : capsSentence(policy.caps);
  return (
    <>
      {policy.verdict === "approval" ? (
        <p className="notice-info checkout-policy" data-testid="policy-approval">
          {policy.reason ??
            `This is above your approval limit${policy.approvalThreshold === null ? "" : ` of ${formatCredits(policy.approvalThreshold)}`}: an admin of your team must approve it.`}{" "}
          Nothing is bought or charged until an admin approves; then it is bought once and the result shows
          here.
        </p>
      ) : null}
      {caps ? (
        <p className="hint-text checkout-hint" data-testid="policy-caps">
          Monthly caps: {caps}
        </p>
      ) : null}
    </>
  );
}
