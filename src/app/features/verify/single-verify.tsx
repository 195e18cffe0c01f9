import { zodResolver } from "@hookform/resolvers/zod";
import { type ClipboardEvent, useId } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { useAbilities } from "../../lib/roles";
import { isWaiting } from "../../lib/spend";
import { readableError } from "../../ui/status";
import { BATCH_ADVISED_FROM, looksLikeEmail, parseAddressList } from "./address-list";
import { explainVerification } from "./explain-result";
import { VerificationResult } from "./verification-result";
import { useVerifyEmailSpend } from "./verify-email";
import "./verify.css";
import { ApprovalNotice } from "../../ui/approval-notice";
import { NotKeptNote } from "../../ui/not-kept-note";
import { SpendNotice } from "../../ui/spend-notice";

const formSchema = z.object({
  email: z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      if (value === "") {
        ctx.addIssue({ code: "custom", message: "Enter an email address." });
        return;
      }
      const list = parseAddressList(value);
      if (list.entries > 1) {
        ctx.addIssue({
          code: "custom",
          message: `This box checks one address at a time, and this is ${list.entries} entries. Verify them as a batch instead.`,
        });
        return;
      }
      if (!looksLikeEmail(value))
        ctx.addIssue({
          code: "custom",
          message: "This does not look like an email address (name@company.com).",
        });
    }),
});
type FormValues = z.input<typeof formSchema>;

/**
 * Verify one address in real time, with the result explained. A pasted list is not sent here:
 * from two entries on, the form offers to move them to a batch (advised from 10, as the service's documentation says).
 */
export function SingleVerify({ onMoveToBatch }: { onMoveToBatch(text: string): void }) {
  const id = useId();
  // Journalled with its Idempotency-Key before it is sent: a retry of the same address after a
  // dropped answer (even after a reload) reuses the key, so it is charged once.
  const verify = useVerifyEmailSpend();
  const { state } = verify;
  const pendingEmail =
    state.phase === "idle" ? null : (state.purchase.calls[0]?.body as { email?: string } | undefined)?.email;
  const failure = state.phase === "failed" ? state.error : null;
  const answer = state.phase === "done" ? state.results[0] : undefined;
  const {
    register,
    handleSubmit,
    watch,
    setValue,
    clearErrors,
    formState: { errors },
  } = useForm<FormValues>({ defaultValues: { email: "" }, resolver: zodResolver(formSchema) });
  const field = register("email");
  const value = watch("email");
  const list = parseAddressList(value);
  const isList = list.entries > 1;
  const error = errors.email?.message;

  const submit = handleSubmit(({ email }) => {
    const unfinished = isWaiting(state);
    // The same address: sent again as the same request (a click, charged once at most); when its
    // outcome is unknown, only the notice below can make a new check, after asking.
    if (unfinished && pendingEmail === email) return state.phase === "unknown" ? undefined : verify.retry();
    // Another address: the unfinished one is left (its outcome is said above until now).
    if (unfinished) verify.forget();
    else verify.reset();
    verify.confirm([{ email }], `Verify ${email}`);
  });

  // A text box drops line breaks: a pasted column of addresses would run together. Keep them
  // apart, so the list can be recognised and moved to a batch.
  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = event.clipboardData.getData("text");
    if (!/[\r\n]/.test(pasted)) return;
    event.preventDefault();
    const target = event.currentTarget;
    const start = target.selectionStart ?? target.value.length;
    const end = target.selectionEnd ?? target.value.length;
    const joined = pasted
      .split(/\r\n|\r|\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .join(", ");
    setValue("email", target.value.slice(0, start) + joined + target.value.slice(end), {
      shouldDirty: true,
    });
  };

  const moveToBatch = () => {
    onMoveToBatch(list.addresses.concat(list.invalid).join("\n"));
    setValue("email", "");
    clearErrors();
  };

  const explanation = answer ? explainVerification(answer) : null;
  // Verifying spends credits: an analyst sees why the button is off (the page says it at the top).
  const cannotBuy = useAbilities().why("buy");
  const describedBy = [`${id}-hint`, isList ? `${id}-suggest` : "", error ? `${id}-error` : ""]
    .filter(Boolean)
    .join(" ");

  return (
    <section className="card verify-card" aria-labelledby={`${id}-title`}>
      <h2 className="card-title" id={`${id}-title`}>
        Verify one address
      </h2>
      <form className="form" noValidate onSubmit={submit}>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-email`}>
            Email address
          </label>
          <div className="verify-single-row">
            <input
              {...field}
              id={`${id}-email`}
              className="input verify-single-input"
              type="text"
              inputMode="email"
              autoComplete="off"
              spellCheck={false}
              placeholder="name@company.com"
              onPaste={onPaste}
              aria-invalid={error ? true : undefined}
              aria-describedby={describedBy}
            />
            <button
              type="submit"
              className="button button-primary"
              disabled={verify.busy || cannotBuy !== null}
              title={cannotBuy ?? undefined}
            >
              {verify.busy ? "Verifying…" : "Verify"}
            </button>
          </div>
          <p className="verify-hint muted" id={`${id}-hint`}>
            Checked at once. A definite answer (valid or invalid) costs 1 credit; an unknown one is free.
          </p>
          {error && !isList ? (
            <p className="verify-field-error" id={`${id}-error`} role="alert">
              {error}
            </p>
          ) : null}
        </div>
        {isList ? (
          <div className="verify-suggest" id={`${id}-suggest`} role="status">
            <p>
              {list.entries >= BATCH_ADVISED_FROM ? (
                <>
                  <strong>That is {list.entries} entries: verify them as a batch.</strong> For 10 or more
                  addresses a batch job is advised: it runs on its own, you can follow or cancel it, and you
                  get a CSV of the results.
                </>
              ) : (
                <>
                  <strong>That is {list.entries} entries.</strong> This box checks one address at a time: keep
                  one, or verify them all as a batch.
                </>
              )}
            </p>
            <button type="button" className="button button-secondary" onClick={moveToBatch}>
              Verify these {list.entries} as a batch
            </button>
          </div>
        ) : null}
      </form>
      <div className="verify-single-outcome" aria-live="polite">
        {verify.busy ? <p className="muted">Checking {pendingEmail}…</p> : null}
        {failure ? (
          <div className="alert verify-alert" role="alert">
            <p>
              <strong>The address could not be verified.</strong> {readableError(failure)}
            </p>
          </div>
        ) : null}
        {isWaiting(state) ? (
          <SpendNotice
            className="alert verify-alert"
            state={state}
            words={{
              what: `the check of ${pendingEmail ?? "the address"}`,
              check: "the balance on the Account page",
              againLabel: "Check it again…",
            }}
            onRetry={verify.retry}
            onBuyAgain={verify.buyAgain}
            onForget={verify.forget}
          />
        ) : null}
        {state.phase === "approval" || state.phase === "denied" ? (
          <ApprovalNotice
            state={state}
            what={`the check of ${pendingEmail ?? "the address"}`}
            onSeen={verify.approvalSeen}
            onResume={verify.resume}
            onForget={verify.forget}
          />
        ) : null}
        {verify.notPersisted ? (
          <NotKeptNote className="notice-warning verify-warning" what="the check" until="it is answered" />
        ) : null}
        {explanation ? <VerificationResult explanation={explanation} /> : null}
      </div>
    </section>
  );
}
