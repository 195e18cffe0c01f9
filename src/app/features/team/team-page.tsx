import { ROLE_NAMES, useAbilities } from "../../lib/roles";
import { Page } from "../../ui/page";
import { AddPersonForm } from "./add-person-form";
import { AuditCard } from "./audit-card";
import { PeopleCard } from "./people-card";
import "./team.css";
import { Card } from "../../ui/card";

const ROLES_TEXT = [
  {
    role: "admin",
    text: "adds people, changes roles and rotates the API key; can do everything a buyer can.",
  },
  {
    role: "buyer",
    text: "spends the team's credits: previews, enrichments, exports and verifications, and downloads them.",
  },
  {
    role: "analyst",
    text: "builds, counts, samples and shares audiences, and uses insights and company tools; cannot buy or download what was bought.",
  },
] as const;

function RolesCard() {
  return (
    <Card title="Roles" className="team-roles">
      <ul className="plan-list">
        {ROLES_TEXT.map(({ role, text }) => (
          <li key={role}>
            <strong>{ROLE_NAMES[role]}</strong>: {text}
          </li>
        ))}
      </ul>
    </Card>
  );
}

/**
 * Local mode (nobody signs in): the one local person is the admin. Adding the first person ends
 * that: from then on everyone signs in, this browser too, so the page says so before anything.
 */
function FirstPerson() {
  return (
    <Card title="Nobody signs in yet">
      <div className="notice-warning team-notice">
        <p>
          This Audience Builder has no people yet, so it serves you, on this computer, as its admin. Once you
          add the first person, <strong>everyone signs in from then on, you included</strong>: this page goes
          to the sign-in right after, where you sign in as the person you add.
        </p>
        <p>The first person must be an admin, so that someone can add the others and manage the key.</p>
      </div>
      <AddPersonForm me={null} first />
    </Card>
  );
}

/** People, roles and the audit list, for admins (the proxy refuses the rest with 403). */
export function TeamPage() {
  const { role, user, why } = useAbilities();
  const refused = role === null ? null : why("managePeople");
  return (
    <Page
      title="Team"
      lead="Who can use this Audience Builder, what each person may do, and who changed what."
    >
      {refused ? (
        <p className="notice-warning team-notice" role="status">
          {refused}
        </p>
      ) : user === null ? (
        <div className="team-grid">
          <FirstPerson />
          <RolesCard />
        </div>
      ) : (
        <div className="team-grid">
          <PeopleCard me={user} />
          <AuditCard />
          <RolesCard />
        </div>
      )}
    </Page>
  );
}
