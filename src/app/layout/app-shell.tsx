import { useQueryClient } from "@tanstack/react-query";
import { Suspense, useEffect } from "react";
import { Link, Route, Switch, useLocation } from "wouter";
import { ApiError } from "../api/api-error";
import { sessionEnded, useSession } from "../api/session";
import { rememberOnServer } from "../lib/remembered-audience";
import { AUDIENCE_LINK_PATH, AudienceLinkPage, ROUTES } from "../routes";
import { ErrorBoundary } from "../ui/error-boundary";
import { Page } from "../ui/page";
import { ErrorPanel, LoadingPanel } from "../ui/status";
import { Header } from "./header";
import { SignInPage } from "./sign-in-page";

function NotFoundPage() {
  return (
    <Page title="Page not found" lead="There is no page at this address.">
      <p>
        <Link href="/">Go to the Builder</Link>
      </p>
    </Page>
  );
}

/** While someone is signed in, the audience open in this tab is theirs to reopen anywhere. */
function RememberOpenAudience() {
  useEffect(() => rememberOnServer(), []);
  return null;
}

/**
 * Who is here decides what is shown: the app (header + the current page), the sign-in page when
 * the server wants a sign-in, or a readable error when the server cannot be reached.
 */
export function AppShell() {
  const session = useSession();
  const [location] = useLocation();
  const queryClient = useQueryClient();

  if (session.isPending) return <LoadingPanel label="Opening Audience Builder…" />;
  if (session.error) {
    if (session.error instanceof ApiError && session.error.kind === "unauthenticated")
      return <SignInPage sessionEnded={sessionEnded(session)} />;
    return (
      <main className="app-main">
        <ErrorPanel
          title="Audience Builder could not start"
          error={session.error}
          onRetry={() => void session.refetch()}
        />
      </main>
    );
  }

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <RememberOpenAudience />
      <Header session={session.data} />
      <main className="app-main" id="main" tabIndex={-1}>
        <ErrorBoundary resetKey={location} onReset={() => queryClient.resetQueries({ type: "active" })}>
          <Suspense fallback={<LoadingPanel label="Loading the page…" />}>
            <Switch>
              <Route path={AUDIENCE_LINK_PATH}>
                <AudienceLinkPage />
              </Route>
              {ROUTES.map(({ path, Page: RoutePage }) => (
                <Route key={path} path={path}>
                  <RoutePage />
                </Route>
              ))}
              <Route>
                <NotFoundPage />
              </Route>
            </Switch>
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
