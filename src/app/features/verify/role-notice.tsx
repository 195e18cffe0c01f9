import { ANALYST_CAN, ROLE_NAMES, useAbilities } from "../../lib/roles";
import "./verify.css";

/**
 * For a person who may not spend (an analyst): verifying uses the team's credits, so the page says
 * first that nothing can be verified here and whom to ask. Nothing for a buyer or an admin.
 */
export function VerifyRoleNotice() {
  const { role, why } = useAbilities();
  if (role === null || !why("buy")) return null;
  return (
    <div className="notice-warning verify-role-notice" role="note" data-testid="role-notice">
      <p>
        <strong>Your role is {ROLE_NAMES[role].toLowerCase()}: addresses cannot be verified here.</strong>{" "}
        {ANALYST_CAN} Verifying uses the team's credits, so it needs a buyer or an admin: ask an admin of your
        team.
      </p>
      <p>
        You can still read a list's review and follow the team's jobs; downloading their results needs a
        buyer.
      </p>
    </div>
  );
}
