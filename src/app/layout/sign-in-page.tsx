import { type FormEvent, useId } from "react";
import { useSignIn } from "../api/auth";
import { BrandMark } from "../ui/brand-mark";
import { PRODUCT_NAME } from "../ui/page";
import { readableError } from "../ui/status";

/** Shown when the server asks people to sign in (it runs with a users file). */
export function SignInPage() {
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
        <form className="form" onSubmit={submit}>
          <div className="field">
            <label className="field-label" htmlFor="sign-in-name">
              Name
            </label>
            <input
              id="sign-in-name"
              className="input"
              name="name"
              autoComplete="username"
              required
              maxLength={64}
              aria-invalid={failed || undefined}
              aria-describedby={failed ? errorId : undefined}
            />
          </div>
          <div className="field">
            <label className="field-label" htmlFor="sign-in-password">
              Password
            </label>
            <input
              id="sign-in-password"
              className="input"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={1024}
              aria-invalid={failed || undefined}
              aria-describedby={failed ? errorId : undefined}
            />
          </div>
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
