import { RoleNotice } from "../../ui/role-notice";
import "./verify.css";

/**
 * For a person who may not spend (an analyst): verifying uses the team's credits, so the page says
 * first that nothing can be verified here and whom to ask. Nothing for a buyer or an admin.
 */
export function VerifyRoleNotice() {
  return (
    <RoleNotice
      ability="buy"
      cannot="addresses cannot be verified here."
      why="Verifying uses the team's credits, so it needs a buyer or an admin: ask an admin of your team."
      still="You can still read a list's review and follow the team's jobs; downloading their results needs a buyer."
    />
  );
}
