import { Link, useLocation } from "wouter";
import { ROLE_WORDS, type Role } from "../../contract/team";
import { useSignOut } from "../api/auth";
import { useCredits } from "../api/credits";
import type { Session } from "../api/session";
import { useApprovals } from "../api/spending";
import { formatCredits, formatNumber, planName } from "../lib/format";
import { may, ROLE_NAMES } from "../lib/roles";
import { ROUTES } from "../routes";
import { BrandMark } from "../ui/brand-mark";
import { PRODUCT_NAME } from "../ui/page";
import { readableError } from "../ui/status";
import { ModeBadge } from "./mode-badge";

const PLAN_TITLE: Record<string, string> = {
  PAYG: "Pay as you go: contact rows cost credits",
  AYCE: "All you can eat: contact retrieval is included",
};

/** How often an admin's navigation asks whether requests are waiting for approval. */
const APPROVALS_POLL_MS = 60_000;

/**
 * The number of requests waiting for an admin's approval, beside "Spending" (admins only; nothing
 * while there are none, or when the list cannot be read: the Spending page says why).
 */
function WaitingBadge({ admin }: { admin: boolean }) {
  const approvals = useApprovals({ enabled: admin, pollMs: APPROVALS_POLL_MS });
  const waiting = approvals.data?.approvals.filter((a) => a.state === "waiting").length ?? 0;
  if (!admin || waiting === 0) return null;
  return (
    <span className="badge nav-badge" data-testid="approvals-badge" data-count={waiting}>
      <span aria-hidden="true">{formatNumber(waiting)}</span>
      <span className="visually-hidden">, {formatNumber(waiting)} waiting for approval</span>
    </span>
  );
}

function Nav({ session }: { session: Session }) {
  const [location] = useLocation();
  const admin = may(session.role, "managePeople");
  const routes = ROUTES.filter((route) => (!route.adminOnly || admin) && route.section === undefined);
  // A page of a section (its tabs) marks the section's entry.
  const current = ROUTES.find((route) => route.path === location)?.section ?? location;
  return (
    <nav className="nav" aria-label="Main">
      <ul className="nav-list">
        {routes.map((route) => (
          <li key={route.path}>
            <Link
              href={route.path}
              className="nav-link"
              aria-current={current === route.path ? "page" : undefined}
            >
              {route.label}
              {route.badge === "approvals" ? <WaitingBadge admin={admin} /> : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Balance({ session }: { session: Session }) {
  const credits = useCredits();
  const plan = credits.data?.plan ?? session.plan;
  return (
    <span className="header-account">
      {plan ? (
        <span className="badge badge-plan" title={PLAN_TITLE[plan]}>
          <span className="visually-hidden">Plan: </span>
          {planName(plan)}
        </span>
      ) : null}
      {credits.data ? (
        <span className="header-credits">{formatCredits(credits.data.credits)}</span>
      ) : credits.error ? (
        <span className="muted" title={readableError(credits.error)}>
          Credits unavailable
        </span>
      ) : (
        <span className="muted">Loading credits…</span>
      )}
    </span>
  );
}

function UserMenu({ user, role }: { user: string; role: Role }) {
  const signOut = useSignOut();
  return (
    <span className="header-user">
      <span className="header-user-name" title={user}>
        <span className="visually-hidden">Signed in as </span>
        {user}
      </span>
      <span className="badge badge-role" title={ROLE_WORDS[role]} data-testid="header-role">
        <span className="visually-hidden">, role </span>
        {ROLE_NAMES[role]}
      </span>
      <button
        type="button"
        className="button button-quiet"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending}
      >
        {signOut.isPending ? "Signing out…" : "Sign out"}
      </button>
    </span>
  );
}

/** Product name, navigation, which data (sandbox or live), plan and credits, and who is signed in. */
export function Header({ session }: { session: Session }) {
  return (
    <header className="header">
      <div className="header-inner">
        <Link href="/" className="brand">
          <BrandMark />
          {PRODUCT_NAME}
        </Link>
        <Nav session={session} />
        <div className="header-status">
          <ModeBadge mode={session.mode} />
          <Balance session={session} />
          {session.user ? <UserMenu user={session.user} role={session.role} /> : null}
        </div>
      </div>
    </header>
  );
}
