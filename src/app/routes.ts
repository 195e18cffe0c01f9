import { type ComponentType, type LazyExoticComponent, lazy } from "react";

/**
 * The app's pages. Each is its own lazily loaded module, so every screen ships in its own chunk and
 * the first load stays small.
 */
export interface AppRoute {
  path: string;
  /** The name in the navigation (and the page's heading). */
  label: string;
  Page: LazyExoticComponent<ComponentType>;
  /** Listed in the navigation only for admins (the page itself explains a refusal to others). */
  adminOnly?: boolean;
  /** A count shown beside the name: `approvals`, the requests waiting for an admin (admins only). */
  badge?: "approvals";
  /** A page of another page's section (its tabs): not in the navigation, which marks that page. */
  section?: string;
}

export const ROUTES: readonly AppRoute[] = [
  {
    path: "/",
    label: "Builder",
    Page: lazy(() => import("./pages/builder-page").then((m) => ({ default: m.BuilderPage }))),
  },
  {
    path: "/checkout",
    label: "Checkout",
    Page: lazy(() => import("./pages/checkout-page").then((m) => ({ default: m.CheckoutPage }))),
  },
  {
    path: "/insights",
    label: "Insights",
    Page: lazy(() => import("./pages/insights-page").then((m) => ({ default: m.InsightsPage }))),
  },
  {
    path: "/companies",
    label: "Companies",
    Page: lazy(() => import("./pages/companies-page").then((m) => ({ default: m.CompaniesPage }))),
  },
  {
    path: "/verify",
    label: "Verify",
    Page: lazy(() => import("./pages/verify-page").then((m) => ({ default: m.VerifyPage }))),
  },
  {
    path: "/spending",
    label: "Spending",
    Page: lazy(() => import("./features/spending/spending-page").then((m) => ({ default: m.SpendingPage }))),
    badge: "approvals",
  },
  {
    path: "/suppression",
    label: "Do-not-contact lists",
    Page: lazy(() =>
      import("./features/suppression/suppression-page").then((m) => ({ default: m.SuppressionPage })),
    ),
    section: "/spending",
  },
  {
    path: "/team",
    label: "Team",
    Page: lazy(() => import("./features/team/team-page").then((m) => ({ default: m.TeamPage }))),
    adminOnly: true,
  },
  {
    path: "/account",
    label: "Account",
    Page: lazy(() => import("./features/account/account-page").then((m) => ({ default: m.AccountPage }))),
  },
];

/**
 * A saved audience's short link, `/a/<id>`: opens it into the Builder. Not in the navigation.
 */
export const AUDIENCE_LINK_PATH = "/a/:id";
export const AudienceLinkPage = lazy(() =>
  import("./pages/audience-link-page").then((m) => ({ default: m.AudienceLinkPage })),
);
