import { type FormEvent, useId } from "react";
import { useSignIn } from "../api/auth";
import { BrandMark } from "../ui/brand-mark";
import { Field } from "../ui/field";
import { PRODUCT_NAME } from "../ui/page";
import { readableError } from "../ui/status";

/** What the sign-in page says when a signed-in person's session ended under them. */
export const SESSION_ENDED_TEXT =
  "You were signed out: your session ended (an admin may have changed your access). Sign in again.";

/**
 * Shown when the server asks people to sign in (it runs with a users file). `sessionEnded`: someone
 * was signed in and the server now refuses them (see api/session.ts), which the page says.
 */
export function SignInPage({ sessionEnded = false }: { sessionEnded?: boolean }) {
  const signIn = useSignIn();
  const errorId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate({
      name: String(form.get("name") ?? "").trim(),
      password: String(form.get("password") ?? ""),
    });
  }

  const failed = signIn.error !== null;
  return (
    <main className="sign-in">
      <title>{`Sign in · ${PRODUCT_NAME}`}</title>
      <div className="card sign-in-card">
        <span className="brand">
          <BrandMark />
          {PRODUCT_NAME}
        </span>
        <div className="page-header">
          <h1 className="page-title">Sign in</h1>
          <p className="muted">Use the name and password you were given for this Audience Builder.</p>
        </div>
        {sessionEnded && !signIn.isSuccess ? (
          <p className="alert" role="status">
            {SESSION_ENDED_TEXT}
          </p>
        ) : null}
        <form className="form" onSubmit={submit}>
          {/* One error for both fields (which of the two was wrong is not said): described by it. */}
          <Field label="Name">
            {({ id }) => (
              <input
                id={id}
                className="input"
                name="name"
                autoComplete="username"
                required
                maxLength={64}
                aria-invalid={failed || undefined}
                aria-describedby={failed ? errorId : undefined}
              />
            )}
          </Field>
          <Field label="Password">
            {({ id }) => (
              <input
                id={id}
                className="input"
                name="password"
                type="password"
                autoComplete="current-password"
                required
                maxLength={1024}
                aria-invalid={failed || undefined}
                aria-describedby={failed ? errorId : undefined}
              />
            )}
          </Field>
          {failed ? (
            <p className="alert" role="alert" id={errorId}>
              {readableError(signIn.error)}
            </p>
          ) : null}
          <button type="submit" className="button button-primary" disabled={signIn.isPending}>
            {signIn.isPending ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </div>
    </main>
  );
}
