import { useEffect } from "react";
import type { Approval } from "../../contract/spending";
import { useApproval } from "../api/approvals";
import { formatCredits, formatDateTime, formatTime } from "../lib/format";
import type { PurchaseState } from "../lib/spend";
import { Spinner } from "./spinner";
import { readableError } from "./status";
import "./approval-notice.css";

type ApprovalPhases<T> = Extract<PurchaseState<T>, { phase: "approval" | "denied" }>;

/**
 * Requests whose answer this page already fetched once after they ran: kept outside the notice, which
 * unmounts while the answer is fetched, so that a second 202 cannot start a loop (a button asks).
 */
const resumedApprovals = new Set<string>();

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The admin's reason (the proxy may write it "Denied: …"), or that none was given. */
function deniedWhy(outcome: string | null): string {
  const reason = (outcome ?? "").replace(/^Denied[.:]?\s*/i, "").trim();
  return reason === "" ? "No reason was given." : `Why: ${reason}`;
}

/** Where the request stands, in a line. */
function stateLine(approval: Approval | null): string {
  if (approval === null) return "Reading where the request stands…";
  switch (approval.state) {
    case "waiting":
      return "Waiting for an admin to approve it";
    case "approved":
      return `Approved by ${approval.decidedBy ?? "an admin"}: it is being bought now`;
    case "ran":
      return `Approved by ${approval.decidedBy ?? "an admin"} and bought: getting the result`;
    case "denied":
      return `Denied by ${approval.decidedBy ?? "an admin"}`;
  }
}

/**
 * A purchase the proxy made an approval request (it is above the person's approval threshold):
 * "Sent for approval" with where it stands, read again every few seconds while it waits. Once an
 * admin approved it and it ran, the same request (same Idempotency-Key) is sent again, once, to get
 * its answer: the proxy replays what the approved run bought, and charges nothing more. Denied: who
 * denied it and why; nothing was spent. A reload keeps waiting (the journal keeps the request).
 */
export function ApprovalNotice<T>({
  state,
  what,
  onSeen,
  onResume,
  onForget,
}: {
  state: ApprovalPhases<T>;
  /** The purchase, mid-sentence: "the enrichment", "the export". */
  what: string;
  onSeen(approval: Approval): void;
  onResume(): void;
  onForget(): void;
}) {
  const waiting = state.phase === "approval";
  const id = state.purchase.approvalId ?? state.approval?.id ?? null;
  const read = useApproval(id, waiting);
  const seen = read.data;

  // What the request says now: kept in the purchase's state (denied ends it).
  useEffect(() => {
    if (!waiting || !seen) return;
    const known = state.approval;
    if (
      known &&
      known.state === seen.state &&
      known.decidedAt === seen.decidedAt &&
      known.outcome === seen.outcome
    )
      return;
    onSeen(seen);
  }, [waiting, seen, state.approval, onSeen]);

  // It ran: the same keys, once, get its answer (a replay; nothing is charged again).
  const current = seen ?? state.approval;
  useEffect(() => {
    if (!waiting || current?.state !== "ran" || resumedApprovals.has(current.id)) return;
    resumedApprovals.add(current.id);
    onResume();
  }, [waiting, current, onResume]);

  const started = (
    <p className="alert-meta">
      {capitalised(state.purchase.summary)}, asked {formatDateTime(state.purchase.startedAt)}.
    </p>
  );

  if (state.phase === "denied") {
    const approval = state.approval;
    return (
      <div className="alert checkout-alert" role="alert" data-spend="denied">
        <h3 className="alert-title">
          Not bought: {approval.decidedBy ?? "an admin"} denied {what}
        </h3>
        <p>{deniedWhy(approval.outcome)}</p>
        <p>Nothing was bought and nothing was spent.</p>
        {started}
      </div>
    );
  }

  const approval = current ?? null;
  const stuck = approval?.state === "ran" && resumedApprovals.has(approval.id);
  // Approved, and the proxy's run did nothing (the service refused to take it just then, say): it
  // records why, and buying it is the requester's explicit click (the same key, run once).
  const notCarriedOut = approval?.state === "approved" && approval.outcome !== null;
  return (
    <div className="alert checkout-alert" role="status" aria-live="polite" data-spend="approval">
      <h3 className="alert-title">Sent for approval</h3>
      <p>
        {approval
          ? `It may cost up to ${formatCredits(approval.creditsEstimated)}, more than you may spend without an admin's approval, so it was sent to an admin of your team.`
          : "It was sent to an admin of your team for approval."}{" "}
        Nothing is bought or charged until an admin approves it; then it is bought once, and the result shows
        here.
      </p>
      <p className="approval-state" data-testid="approval-state">
        {approval?.state === "waiting" || approval === null || notCarriedOut ? null : <Spinner inherit />}
        {notCarriedOut ? approval.outcome : stateLine(approval)}
        {approval?.state === "ran" && approval.outcome ? ` (${approval.outcome})` : ""}
        {notCarriedOut ? "" : "."}
      </p>
      {read.error ? (
        <p className="alert-meta">
          The request could not be read just now: {readableError(read.error)} It is read again in a few
          seconds.
        </p>
      ) : read.isSuccess && seen === null ? (
        <p className="alert-meta">
          This request is not among your team's approval requests any more. Ask an admin where it stands.
        </p>
      ) : read.dataUpdatedAt > 0 ? (
        <p className="alert-meta">
          Checked at {formatTime(read.dataUpdatedAt, { seconds: true })}. You can leave or reload this page:
          it keeps waiting here.
        </p>
      ) : null}
      {started}
      <div className="alert-actions">
        {stuck ? (
          <button type="button" className="button button-primary" onClick={onResume}>
            Get the result
          </button>
        ) : null}
        {notCarriedOut ? (
          <button type="button" className="button button-primary" onClick={onResume}>
            Buy it now (approved, up to {formatCredits(approval.creditsEstimated)})
          </button>
        ) : null}
        <button type="button" className="button button-quiet" onClick={onForget}>
          Stop following it here
        </button>
      </div>
      <p className="alert-meta">
        Stopping here does not withdraw the request: if an admin approves it, it is still bought (once).
      </p>
    </div>
  );
}
