import type { ReactNode } from "react";
import { type Ability, ANALYST_CAN, ROLE_NAMES, useAbilities } from "../lib/roles";
import "./role-notice.css";

export interface RoleNoticeProps {
  /** What the page is for, that the person's role may not do (Checkout and Verify: `buy`). */
  ability: Ability;
  /** What cannot be done here, after "Your role is analyst: " (a sentence, with its full stop). */
  cannot: string;
  /** Why, and whom to ask: said after what the person can do. */
  why: string;
  /** What the person can still do on the page. */
  still: ReactNode;
}

/**
 * For a person whose role may not do what a page is for (an analyst on Checkout or Verify): first
 * what they can do, then what cannot be done here and whom to ask, before anything else on the page.
 * Nothing for a role that may (and nothing while the session is not known). The page gives its words.
 */
export function RoleNotice({ ability, cannot, why, still }: RoleNoticeProps) {
  const abilities = useAbilities();
  const { role } = abilities;
  if (role === null || !abilities.why(ability)) return null;
  return (
    <div className="notice-warning role-notice" role="note" data-testid="role-notice">
      <p>
        <strong>
          Your role is {ROLE_NAMES[role].toLowerCase()}: {cannot}
        </strong>{" "}
        {ANALYST_CAN} {why}
      </p>
      <p>{still}</p>
    </div>
  );
}
