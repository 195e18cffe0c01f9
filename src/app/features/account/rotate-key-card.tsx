import { useEffect, useRef, useState } from "react";
import { ApiError } from "../../api/api-error";
import { useAbilities } from "../../lib/roles";
import { isWaiting } from "../../lib/spend";
import { Card } from "../../ui/card";
import { NotKeptNote } from "../../ui/not-kept-note";
import { SpendNotice } from "../../ui/spend-notice";
import { type Rotated, rotationError, useRotateKeySpend } from "./rotate-key";

/**
 * Rotating the key is a second, explicit step: the button opens a modal dialog (native `<dialog>`,
 * so focus is trapped and Escape cancels) that says what happens; only its confirm rotates.
 */
export function RotateKeyCard() {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [result, setResult] = useState<Rotated | null>(null);
  // The request and its Idempotency-Key are journalled before sending: trying again after a lost
  // answer, even after a reload, replays the first rotation instead of rotating twice.
  const rotate = useRotateKeySpend((answer) => {
    setResult(answer);
    dialog.current?.close();
  });
  const { state } = rotate;
  // Only an admin rotates the team's key: others read who can, and get no button the proxy would refuse.
  const notAdmin = useAbilities().why("rotate");
  const error = state.phase === "failed" ? state.error : null;
  const waiting = isWaiting(state);
  useEffect(() => {
    // A rotation that waits for a click (not sent, no answer, unknown) is shown on the card, with
    // its own buttons: the dialog's confirm would only start another one.
    if (waiting) dialog.current?.close();
  }, [waiting]);

  const open = () => {
    rotate.reset();
    dialog.current?.showModal();
    cancel.current?.focus();
  };
  const confirm = () => rotate.confirm([{}], "Rotate the API key");
  const pending = rotate.busy;
  // A key that may not rotate will not be allowed on a second try either.
  const refused = error instanceof ApiError && error.kind === "forbidden";
  useEffect(() => {
    // The confirm button is gone: focus the one way out rather than losing focus to the page.
    if (refused) cancel.current?.focus();
  }, [refused]);

  return (
    <Card title="Key rotation">
      <p>
        Replace the API key with a new one, for example when the old one may have been seen by someone. The
        server stores the new key; this browser never sees it.
      </p>
      {notAdmin ? (
        <p className="notice-warning account-note" data-testid="rotate-who">
          {notAdmin} The key is the whole team's: rotating it affects everyone.
        </p>
      ) : null}
      <div className="account-actions">
        <button
          type="button"
          className="button button-secondary"
          ref={opener}
          onClick={open}
          // A rotation waiting below is finished or dismissed there first, never doubled from here.
          disabled={waiting || notAdmin !== null}
        >
          Rotate API key…
        </button>
      </div>
      {isWaiting(state) ? (
        <SpendNotice
          state={state}
          words={{
            what: "the key rotation",
            check: "the key's last four characters under Connection",
            retryLabel: "Try the rotation again",
            againLabel: "Rotate again…",
          }}
          onRetry={rotate.retry}
          onBuyAgain={rotate.buyAgain}
          onForget={rotate.forget}
        />
      ) : null}
      {rotate.notPersisted ? (
        <NotKeptNote className="notice-warning account-note" what="the rotation" until="it is answered" />
      ) : null}
      <p className="account-result" role="status">
        {result ? (
          <>
            Rotated: the key now ends in <span className="mono">…{result.last4}</span>.
          </>
        ) : null}
      </p>

      <dialog
        ref={dialog}
        className="account-dialog"
        aria-labelledby="rotate-dialog-title"
        aria-describedby="rotate-dialog-text"
        onCancel={(event) => {
          // Escape cancels, except while the rotation is on its way (its answer must be seen).
          if (pending) event.preventDefault();
        }}
        onClose={() => opener.current?.focus()}
      >
        <h2 className="account-dialog-title" id="rotate-dialog-title">
          Rotate the API key?
        </h2>
        <div id="rotate-dialog-text" className="account-dialog-text">
          <ul className="plan-list">
            <li>
              The current key stops working <strong>at once</strong>, for anything else that uses it too
              (scripts, other tools): they will need the new key from the data service's dashboard.
            </li>
            <li>This app switches to the new key by itself; nothing to do here.</li>
            <li>
              Credits, the plan, today's sample budget, exports and jobs carry over: it is the same account.
            </li>
          </ul>
        </div>
        {error ? (
          <div className="alert" role="alert">
            <p>{rotationError(error)}</p>
          </div>
        ) : null}
        <p className="muted account-small" aria-live="polite">
          {pending ? "Rotating the key…" : ""}
        </p>
        <div className="account-dialog-actions">
          <button
            type="button"
            className="button button-secondary"
            ref={cancel}
            disabled={pending}
            onClick={() => dialog.current?.close()}
          >
            {refused ? "Close" : "Cancel"}
          </button>
          {refused ? null : (
            <button
              type="button"
              className="button button-primary account-danger"
              disabled={pending}
              onClick={confirm}
            >
              {pending ? "Rotating…" : "Rotate the key"}
            </button>
          )}
        </div>
      </dialog>
    </Card>
  );
}
