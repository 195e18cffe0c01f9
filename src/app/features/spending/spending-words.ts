import { LEDGER_OPERATION_WORDS, type LedgerEntry, type LedgerOutcome } from "../../../contract/ledger";
import { type Approval, SPENDING_CODES } from "../../../contract/spending";
import { TEAM_CODES } from "../../../contract/team";
import { ApiError, defaultMessage, readableIssue } from "../../api/api-error";
import { formatCredits, formatNumber } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { readableError } from "../../ui/status";

/**
 * The Spending page's words: what each purchase was, what came of it, and the proxy's refusals
 * said as what happened and what to do. Never the service's operation names.
 */

/** `enrich` -> "Enrich", `preview` -> "Sample with contact details", `verifyV2` -> "Email verification". */
export function operationWords(operation: string): string {
  if (operation === "export") return LEDGER_OPERATION_WORDS.exportStart!;
  return LEDGER_OPERATION_WORDS[operation] ?? "Other purchase";
}

export const OUTCOME_WORDS: Record<LedgerOutcome, { label: string; hint: string | null }> = {
  charged: { label: "Charged", hint: null },
  free: { label: "Free", hint: "nothing was charged" },
  refused: { label: "Refused", hint: "nothing was charged" },
  unknown: { label: "Not known", hint: "check the balance" },
  pending: { label: "Pending", hint: "charged when it completes" },
};

/** "Not known — check the balance"; "Charged". */
export function outcomeText(outcome: LedgerOutcome): string {
  const words = OUTCOME_WORDS[outcome];
  return words.hint ? `${words.label} — ${words.hint}` : words.label;
}

/** "5 (3 already yours)"; "5". */
export function rowsText(entry: Pick<LedgerEntry, "rows" | "rowsFree">): string {
  const rows = formatNumber(entry.rows);
  return entry.rowsFree > 0 ? `${rows} (${formatNumber(entry.rowsFree)} already yours)` : rows;
}

/** Credits, or the dash-and-words for none (not known, not estimated). */
export function creditsText(credits: number | null, none = "—"): string {
  return credits === null ? none : formatCredits(credits);
}

export const APPROVAL_STATE_WORDS: Record<Approval["state"], string> = {
  waiting: "Waiting for an admin",
  approved: "Approved",
  denied: "Denied",
  ran: "Approved and bought",
};

/** The state and who decided: "Denied by ada", "Waiting for an admin". */
export function approvalStateText(approval: Approval): string {
  const state = APPROVAL_STATE_WORDS[approval.state];
  if (approval.state === "waiting" || !approval.decidedBy) return state;
  return `${state} by ${personLabel(approval.decidedBy)}`;
}

/**
 * What it came to, as the proxy says it ("Bought 12 rows: charged 12 credits."), or the reason of
 * a denial without the word the state already says ("Denied: too dear" -> "too dear"); null when
 * there is nothing more to say.
 */
export function approvalOutcomeText(approval: Approval): string | null {
  let outcome = approval.outcome?.trim() ?? "";
  if (approval.state === "denied") outcome = outcome.replace(/^Denied(?:[:.]\s*|$)/i, "");
  if (outcome === "") return null;
  return `${outcome.charAt(0).toUpperCase()}${outcome.slice(1)}`;
}

/** A 422's first reason without its field path ("nobody called bo is on the team"), else the sentence. */
function issueOrMessage(error: ApiError): string {
  const first = error.kind === "validation" ? error.issues[0] : undefined;
  if (!first) return error.message;
  const reason = readableIssue(first.msg).replace(/\.$/, "");
  return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
}

/** Why an approval or a denial did not go through, in words. */
export function decisionRefusal(error: unknown, decision: "approve" | "deny"): string {
  const failed = decision === "approve" ? "Not approved" : "Not denied";
  if (!(error instanceof ApiError)) return `${failed}: ${readableError(error)}`;
  // The proxy's sentence says which cap, what is spent and what is left, and that nothing was sent.
  if (error.code === SPENDING_CODES.capReached)
    return error.message === defaultMessage("forbidden")
      ? `${failed}: buying it now would pass a monthly cap, so nothing was bought.`
      : `${failed}: ${error.message}`;
  if (error.code === TEAM_CODES.roleRequired) return `${failed}: only an admin can decide. ${error.message}`;
  if (error.kind === "not-found")
    return `${failed}: this request is no longer there. The list is read again.`;
  // The proxy's sentence says who decided it already, or why it cannot run (the requester left).
  if (error.kind === "conflict") return `${failed}: ${error.message}`;
  return `${failed}: ${issueOrMessage(error)}`;
}

/** Why the caps were not saved, in words. */
export function capsRefusal(error: unknown): string {
  if (!(error instanceof ApiError)) return `The caps were not saved: ${readableError(error)}`;
  if (error.code === TEAM_CODES.roleRequired)
    return `The caps were not saved: only an admin can change them.`;
  return `The caps were not saved: ${issueOrMessage(error)}`;
}
