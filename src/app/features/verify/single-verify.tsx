import { zodResolver } from "@hookform/resolvers/zod";
import { type ClipboardEvent, useId, useRef } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { ApiError } from "../../api/api-error";
import { newIdempotencyKey } from "../../api/client";
import { readableError } from "../../ui/status";
import { BATCH_ADVISED_FROM, looksLikeEmail, parseAddressList } from "./address-list";
import { explainVerification } from "./explain-result";
import { VerificationResult } from "./verification-result";
import { useVerifyEmail } from "./verify-email";
import "./verify.css";

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
 * from two entries on, the form offers to move them to a batch (advised from 10, as the seed says).
 */
export function SingleVerify({ onMoveToBatch }: { onMoveToBatch(text: string): void }) {
  const id = useId();
  const verify = useVerifyEmail();
  // The key of the last attempt: a retry of the same address after a dropped answer reuses it,
  // so it is charged once; any other attempt gets a fresh one.
  const attempt = useRef<{ email: string; key: string } | null>(null);
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
    const key = attempt.current?.email === email ? attempt.current.key : newIdempotencyKey();
    attempt.current = { email, key };
    verify.mutate(
      { email, idempotencyKey: key },
      {
        onSuccess: () => {
          attempt.current = null;
        },
        onError: (failure) => {
          if (!(failure instanceof ApiError && failure.transient)) attempt.current = null;
        },
      },
    );
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

  const explanation = verify.data ? explainVerification(verify.data) : null;
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
            <button type="submit" className="button button-primary" disabled={verify.isPending}>
              {verify.isPending ? "Verifying…" : "Verify"}
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
        {verify.isPending ? <p className="muted">Checking {verify.variables?.email}…</p> : null}
        {verify.isError ? (
          <div className="alert verify-alert" role="alert">
            <p>
              <strong>The address could not be verified.</strong> {readableError(verify.error)}
            </p>
            {verify.error instanceof ApiError && verify.error.transient ? (
              <div className="alert-actions">
                <button type="button" className="button button-secondary" onClick={() => submit()}>
                  Try again
                </button>
              </div>
            ) : null}
          </div>
        ) : null}
        {explanation && !verify.isPending && !verify.isError ? (
          <VerificationResult explanation={explanation} />
        ) : null}
      </div>
    </section>
  );
}
