import { useState } from "react";
import type { Approval } from "../../../contract/spending";
import { useApprovals, useApprove, useDeny } from "../../api/spending";
import { formatCredits, formatDateTime } from "../../lib/format";
import { personLabel } from "../../lib/roles";
import { Card } from "../../ui/card";
import { ConfirmButtons } from "../../ui/confirm-buttons";
import { Field } from "../../ui/field";
import { LoadFailedAlert, LoadingNote } from "../../ui/status";
import { approvalOutcomeText, approvalStateText, decisionRefusal, operationWords } from "./spending-words";

/** Requests are decided elsewhere too (another admin, the requester's own page): asked again. */
const POLL_MS = 15_000;

/** Approve, or deny with an optional reason (confirmed below the request). */
function Decide({ approval, onDone }: { approval: Approval; onDone: (said: string) => void }) {
  const approve = useApprove();
  const deny = useDeny();
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const busy = approve.isPending || deny.isPending;
  const who = personLabel(approval.requestedBy);
  const error = approve.isError
    ? decisionRefusal(approve.error, "approve")
    : deny.isError
      ? decisionRefusal(deny.error, "deny")
      : null;

  const doApprove = () => {
    deny.reset();
    approve.mutate(approval.id, {
      onSuccess: (after) =>
        onDone(
          `Approved: ${approval.summary}. ${approvalOutcomeText(after) ?? `It is bought once, for ${who}.`}`,
        ),
    });
  };
  const doDeny = () => {
    approve.reset();
    deny.mutate(
      { id: approval.id, reason },
      {
        onSuccess: () =>
          onDone(
            `Denied: ${approval.summary}. ${who} sees it denied${reason.trim() ? ", with your reason" : ""}.`,
          ),
      },
    );
  };

  return (
    <div className="spend-decide">
      {denying ? (
        <fieldset className="spend-confirm">
          <legend className="visually-hidden">Deny the request of {who}</legend>
          <Field label={`Why (optional; ${who} reads it)`}>
            {(control) => (
              <textarea
                {...control}
                className="input spend-reason"
                rows={2}
                maxLength={500}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
              />
            )}
          </Field>
          <ConfirmButtons
            className="spend-actions"
            label={`Deny the request of ${who}`}
            busyLabel="Denying…"
            busy={deny.isPending}
            disabled={busy}
            danger
            onConfirm={doDeny}
            onCancel={() => setDenying(false)}
            cancelDisabled={busy}
          />
        </fieldset>
      ) : (
        <div className="spend-actions">
          <button type="button" className="button button-primary" onClick={doApprove} disabled={busy}>
            {approve.isPending ? "Approving and buying…" : "Approve"}{" "}
            <span className="visually-hidden">the request of {who}</span>
          </button>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              approve.reset();
              setDenying(true);
            }}
            disabled={busy}
          >
            Deny… <span className="visually-hidden">the request of {who}</span>
          </button>
        </div>
      )}
      {error ? (
        <p className="spend-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function ApprovalItem({
  approval,
  admin,
  me,
  onDone,
}: {
  approval: Approval;
  admin: boolean;
  me: string | null;
  onDone: (said: string) => void;
}) {
  const mine = me !== null && approval.requestedBy === me;
  const waiting = approval.state === "waiting";
  const outcome = approvalOutcomeText(approval);
  return (
    <li className="spend-approval" data-state={approval.state} data-testid="approval">
      <div className="spend-approval-main">
        <p className="spend-approval-what">
          <strong>{approval.summary}</strong>
        </p>
        <p className="muted spend-small">
          {operationWords(approval.operation)} · up to {formatCredits(approval.creditsEstimated)}
          {approval.audienceName ? ` · audience ${approval.audienceName}` : ""} · asked by{" "}
          {mine ? "you" : personLabel(approval.requestedBy)},{" "}
          <time dateTime={approval.requestedAt}>{formatDateTime(approval.requestedAt)}</time>
        </p>
        <p className="spend-approval-state">
          <span className="badge spend-state" data-state={approval.state} data-testid="approval-state">
            {approvalStateText(approval)}
          </span>
          {approval.decidedAt ? (
            <span className="muted spend-small">
              {" "}
              <time dateTime={approval.decidedAt}>{formatDateTime(approval.decidedAt)}</time>
            </span>
          ) : null}
        </p>
        {outcome ? (
          <p className="spend-small" data-testid="approval-outcome">
            {outcome}
          </p>
        ) : null}
      </div>
      {admin && waiting ? (
        mine ? (
          <p className="muted spend-small spend-approval-side">Another admin decides your own requests.</p>
        ) : (
          <Decide approval={approval} onDone={onDone} />
        )
      ) : null}
    </li>
  );
}

/**
 * Purchases above a person's approval threshold wait here for an admin: admins approve (the proxy
 * then buys it, once, for the person who asked) or deny with a reason; everyone else follows their
 * own requests.
 */
export function ApprovalsCard({ admin, me }: { admin: boolean; me: string | null }) {
  const approvals = useApprovals({ pollMs: POLL_MS });
  const [said, setSaid] = useState("");
  const list = approvals.data?.approvals ?? [];
  const waiting = list.filter((a) => a.state === "waiting");
  const decided = list.filter((a) => a.state !== "waiting");
  const render = (a: Approval) => (
    <ApprovalItem key={a.id} approval={a} admin={admin} me={me} onDone={setSaid} />
  );
  return (
    <Card
      title={admin ? "Approvals" : "Your approval requests"}
      aside={
        <button
          type="button"
          className="button button-quiet"
          onClick={() => void approvals.refetch()}
          disabled={approvals.isFetching}
        >
          {approvals.isFetching ? "Refreshing…" : "Refresh"}
        </button>
      }
    >
      <p className="muted spend-lead">
        {admin
          ? "A purchase above the buyer's approval threshold waits here. Approving buys it once, for the person who asked, if the monthly caps still allow it."
          : "A purchase above your approval threshold waits for an admin. Once approved it is bought for you, once; Checkout shows the answer."}
      </p>
      <p className="spend-done" aria-live="polite">
        {said}
      </p>
      {approvals.isPending ? (
        <LoadingNote what="the requests" />
      ) : approvals.isError ? (
        <LoadFailedAlert
          what="the requests"
          error={approvals.error}
          onRetry={() => void approvals.refetch()}
        />
      ) : list.length === 0 ? (
        <p className="muted">{admin ? "No requests yet." : "You have asked for no approvals."}</p>
      ) : (
        <>
          <h3 className="spend-subtitle">Waiting ({waiting.length})</h3>
          {waiting.length === 0 ? (
            <p className="muted">Nothing is waiting.</p>
          ) : (
            <ol className="spend-approvals" aria-label="Waiting for approval">
              {waiting.map(render)}
            </ol>
          )}
          {decided.length > 0 ? (
            <>
              <h3 className="spend-subtitle">Decided</h3>
              <ol className="spend-approvals" aria-label="Decided requests">
                {decided.map(render)}
              </ol>
            </>
          ) : null}
        </>
      )}
    </Card>
  );
}
