import {
  ALLOWED_ROLES,
  CLI_PERSON,
  mayCancel as contractMayCancel,
  LOCAL_PERSON,
  type Role,
  rolesInWords,
} from "../../contract/team";
import { useSession } from "../api/session";

/**
 * What a person's role lets them do, asked before the click so that a screen can say why a button
 * is off instead of letting the proxy refuse it. The same rules as the proxy's (it still enforces
 * them, with a 403 ROLE_REQUIRED): an analyst builds, counts, samples and shares, but never spends
 * the team's credits nor downloads what was bought; a buyer does all that; only an admin rotates the
 * key and manages people (and reads the audit list).
 */
export const ABILITIES = ["buy", "download", "rotate", "managePeople"] as const;
export type Ability = (typeof ABILITIES)[number];

/** The contract's table (the proxy enforces the same one). */
const ALLOWED: Record<Ability, readonly Role[]> = {
  buy: ALLOWED_ROLES.spend,
  download: ALLOWED_ROLES.download,
  rotate: ALLOWED_ROLES.rotate,
  managePeople: ALLOWED_ROLES.manageTeam,
};

export const ROLE_NAMES: Record<Role, string> = { admin: "Admin", buyer: "Buyer", analyst: "Analyst" };

export function may(role: Role, ability: Ability): boolean {
  return ALLOWED[ability].includes(role);
}

/** The roles that may do `ability`, in words: "a buyer or an admin", "an admin". */
export function whoMay(ability: Ability): string {
  return rolesInWords(ALLOWED[ability]);
}

const WHAT: Record<Ability, string> = {
  buy: "Buying contacts and verifications uses the team's credits, so it",
  download: "Downloading a bought file",
  rotate: "Rotating the team's API key",
  managePeople: "Adding people and changing their roles",
};

/**
 * Why `role` may not do `ability`, as a sentence with what to do about it; null when it may.
 * `ask` names whom to ask (defaults to "an admin of your team").
 */
export function refusal(role: Role, ability: Ability, ask = "an admin of your team"): string | null {
  if (may(role, ability)) return null;
  return `${WHAT[ability]} needs ${whoMay(ability)}: ask ${ask}.`;
}

/**
 * The name the proxy records for the one local person of local mode (no people yet, nobody signs
 * in), and for `npm run users`: the contract's, reserved (no person may be called so). Shown as
 * words, not as if someone were called "local".
 */
export const LOCAL_PERSON_NAME = LOCAL_PERSON;
export const CLI_PERSON_NAME = CLI_PERSON;

/** A recorded person's name for people to read: the local admin and the command line said as such. */
export function personLabel(name: string): string {
  if (name === LOCAL_PERSON_NAME) return "the local admin";
  if (name === CLI_PERSON_NAME) return "the server's command line (npm run users)";
  return name;
}

/** What an analyst can do, said before what they cannot (the Checkout's and Verify's first line). */
export const ANALYST_CAN = "You can build, count, sample and share audiences.";

export interface Abilities {
  /** Null until the session is known (the shell shows no page before that). */
  role: Role | null;
  /** The signed-in person; null in local mode (one local person, the admin). */
  user: string | null;
  may(ability: Ability): boolean;
  /** The reason it may not, or null. */
  why(ability: Ability): string | null;
}

/**
 * The current person's abilities, from the session. While the session is not known nothing is
 * refused here: the proxy enforces every rule anyway.
 */
export function useAbilities(): Abilities {
  const session = useSession();
  const role = session.data?.role ?? null;
  return {
    role,
    user: session.data?.user ?? null,
    may: (ability) => role === null || may(role, ability),
    why: (ability) => (role === null ? null : refusal(role, ability)),
  };
}

/**
 * Whether the person may cancel a job: the one who started it, or an admin (the proxy's rule). A
 * job with no recorded starter (started elsewhere, or before people were recorded) may be
 * cancelled by any buyer, so that a stuck job needs no admin; an analyst never cancels.
 */
export function mayCancel(role: Role | null, user: string | null, starter: string | null): boolean {
  if (role === null) return true;
  return contractMayCancel({ name: user, role }, starter, "export").ok;
}

/** Why the person may not cancel a job, in words (null when they may). */
export function cancelRefusal(role: Role | null, user: string | null, starter: string | null): string | null {
  if (mayCancel(role, user, starter)) return null;
  return starter === null
    ? `Cancelling a job needs ${rolesInWords(ALLOWED_ROLES.cancel)}.`
    : `Only ${personLabel(starter)}, who started it, or an admin can cancel it.`;
}
