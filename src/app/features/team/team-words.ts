import { type AuditEntry, TEAM_CODES } from "../../../contract/team";
import { ApiError } from "../../api/api-error";
import { personLabel } from "../../lib/roles";
import { readableError } from "../../ui/status";

/**
 * The Team page's words: refusals of the proxy said as what happened and what to do, and each
 * audit entry as a sentence.
 */

export type PersonAction = "add" | "role" | "password" | "remove";

const FAILED: Record<PersonAction, string> = {
  add: "The person was not added",
  role: "The role was not changed",
  password: "The password was not reset",
  remove: "The person was not removed",
};

/** Why a change to `name` was refused, in words. */
export function teamRefusal(error: unknown, action: PersonAction, name: string): string {
  const failed = FAILED[action];
  if (!(error instanceof ApiError)) return `${failed}: ${readableError(error)}`;
  switch (error.code) {
    case TEAM_CODES.lastAdmin:
      return `${failed}: ${name} is the team's only admin, and a team needs one to manage people and the key. Make someone else an admin first.`;
    case TEAM_CODES.nameTaken:
      return `${failed}: someone called ${name} is on the team already. Choose another name, or change that person instead.`;
    case TEAM_CODES.managedByFile:
      return `${failed}: ${name} is listed in the server's users file (USERS_FILE), so they are changed in that file, not here.`;
    case TEAM_CODES.roleRequired:
      return `${failed}: only an admin can change the team. ${error.message}`;
  }
  if (error.kind === "not-found")
    return `${failed}: ${name} is no longer on the team (someone removed them).`;
  if (error.kind === "validation") return `${failed}: ${error.message}`;
  return `${failed}: ${error.message}`;
}

const DID: Record<AuditEntry["action"], (target: string) => string> = {
  "person.add": (t) => `added ${t} to the team`,
  "person.remove": (t) => `removed ${t} from the team`,
  "person.role": (t) => `changed the role of ${t}`,
  "person.password": (t) => `reset the password of ${t}`,
  "audience.create": () => "saved a new audience",
  "audience.update": () => "changed an audience",
  "audience.restore": () => "restored an earlier version of an audience",
  "audience.delete": () => "deleted an audience",
  "audience.undelete": () => "brought back a deleted audience",
  "audience.owner": (t) => `passed on the audiences of ${personLabel(t)}`,
  "key.rotate": () => "rotated the team's API key",
  "suppression.create": () => "made a do-not-contact list",
  "suppression.add": () => "added to a do-not-contact list",
  "suppression.delete": () => "deleted a do-not-contact list",
  "spending.caps": (t) =>
    t === "someone" ? "changed the team's monthly cap" : `changed the spending limits of ${t}`,
  "approval.approve": (t) => `approved a purchase asked for by ${t}`,
  "approval.deny": (t) => `denied a purchase asked for by ${t}`,
};

export interface AuditWords {
  /** Who did what, to whom: "ada changed the role of bo." */
  sentence: string;
  /** The proxy's own summary of the change, as a sentence: "Role buyer → analyst." (may be empty). */
  detail: string;
}

/** An audit entry in words: the sentence, and the proxy's summary of the change after it. */
export function auditWords(entry: AuditEntry): AuditWords {
  const actor = personLabel(entry.actor);
  // A sentence starts with a capital; a person's name stays as they spell it.
  const who = actor === entry.actor ? actor : `${actor.charAt(0).toUpperCase()}${actor.slice(1)}`;
  const sentence = `${who} ${DID[entry.action](entry.target ?? "someone")}.`;
  const summary = entry.summary.trim().replace(/\.$/, "");
  const detail = summary ? `${summary.charAt(0).toUpperCase()}${summary.slice(1)}.` : "";
  return { sentence, detail };
}
