import { Link, useLocation } from "wouter";
import "./section-tabs.css";

export interface SectionTab {
  path: string;
  label: string;
}

/**
 * Pages that belong together (Spending and the do-not-contact lists) as tabs under the page's
 * heading: one entry in the main navigation, and each page still its own address.
 */
export function SectionTabs({ label, tabs }: { label: string; tabs: readonly SectionTab[] }) {
  const [location] = useLocation();
  return (
    <nav className="section-tabs" aria-label={label}>
      <ul className="section-tabs-list">
        {tabs.map((tab) => (
          <li key={tab.path}>
            <Link
              href={tab.path}
              className="section-tab"
              aria-current={location === tab.path ? "page" : undefined}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The Spending section's pages. */
export const SECTION_LABEL = "Spending";
export const SPENDING_TABS: readonly SectionTab[] = [
  { path: "/spending", label: "Purchases, approvals and caps" },
  { path: "/suppression", label: "Do-not-contact lists" },
];
