import type { Kysely } from "kysely";
import { validationError } from "../../contract/errors";
import { CLI_PERSON, LOCAL_PERSON, type Person, type Role, TEAM_CODES } from "../../contract/team";
import type { Tables } from "../db/schema";
import { fail, unprocessable } from "../http/answer";
import { adoptLocalAudiences, passAudiences } from "./audiences";
import { audit } from "./audit";
import { hashPassword } from "./passwords";
import {
  countPeople,
  deletePeople,
  deleteSessionsOf,
  insertTeamPerson,
  lockAdmins,
  lockPerson,
  lockTeam,
  longestStandingAdmin,
  nameTakenAs,
  type PersonRow,
  peopleRows,
  roleOf,
  updatePerson,
} from "./people-store";

/**
 * The team's people, for the Team page and `npm run users` alike (one set of rules for both; their
 * rows are read and written by people-store.ts). Every change is audited in its own transaction,
 * and a change of role or password, or a removal, deletes that person's sessions there too (callers
 * also drop their instance's cache of them: `Sessions.forget`).
 */
const toPerson = (r: PersonRow): Person => ({
  name: r.name,
  role: r.role,
  source: r.source,
  createdAt: new Date(r.created_at).toISOString(),
  createdBy: r.created_by,
});

/** A 422 with the service's validation record, for checks zod cannot make. */
export const invalid = (loc: (string | number)[], msg: string, input?: unknown) =>
  unprocessable(validationError(loc, msg, input));

export async function listPeople(db: Kysely<Tables>): Promise<Person[]> {
  return (await peopleRows(db)).map(toPerson);
}

/**
 * Adds a person. `firstOnly`: the caller is local mode's person, who may add the very first person
 * only (a team that has people, added meanwhile by the CLI or another instance, is refused: 409).
 * The first person added as an admin takes over the audiences the local person saved, in the same
 * transaction (the Team page and `npm run users` alike).
 */
export async function addPerson(
  db: Kysely<Tables>,
  actor: string,
  body: { name: string; role: Role; password: string },
  options: { firstOnly?: boolean } = {},
): Promise<Person> {
  const hash = await hashPassword(body.password);
  return db.transaction().execute(async (tx) => {
    await lockTeam(tx);
    const empty = (await countPeople(tx)) === 0;
    if (options.firstOnly && !empty)
      throw fail(409, "Someone has already set up this team: sign in.", { code: TEAM_CODES.teamExists });
    // Whoever adds the first person makes the team: it needs an admin to manage it.
    if (body.role !== "admin" && empty)
      throw invalid(
        ["body", "role"],
        "The first person of the team must be an admin (someone has to manage it).",
        body.role,
      );
    const taken = await nameTakenAs(tx, body.name);
    if (taken !== undefined)
      throw fail(409, `Someone called ${taken} is on the team already. Choose another name.`, {
        code: TEAM_CODES.nameTaken,
      });
    const row = await insertTeamPerson(tx, {
      name: body.name,
      passwordHash: hash,
      role: body.role,
      createdBy: actor,
    });
    await audit(tx, { actor, action: "person.add", target: body.name, summary: `added as ${body.role}` });
    // The local person's audiences become the first admin's: nothing saved before is orphaned.
    if (empty && body.role === "admin") await adoptLocalAudiences(tx, actor, body.name);
    return toPerson(row);
  });
}

/** The person to change, locked; refuses unknown names and people of USERS_FILE. */
async function changeable(tx: Kysely<Tables>, name: string): Promise<PersonRow> {
  const row = await lockPerson(tx, name);
  if (!row) throw fail(404, `Nobody called ${name} is on the team.`);
  if (row.source === "file")
    throw fail(
      409,
      `${name} is listed in the proxy's USERS_FILE: whoever runs the proxy changes them there (then restarts it).`,
      { code: TEAM_CODES.managedByFile },
    );
  return row;
}

/** Refuses a change that would leave the team without an admin (the admins are locked meanwhile). */
async function keepAnAdmin(tx: Kysely<Tables>, leaving: string, doing: string) {
  const admins = await lockAdmins(tx);
  if (admins.every((a) => a === leaving))
    throw fail(
      409,
      `${leaving} is the team's last admin: ${doing} would leave nobody to manage people and the key. Make someone else an admin first.`,
      { code: TEAM_CODES.lastAdmin },
    );
}

export async function changePerson(
  db: Kysely<Tables>,
  actor: string,
  name: string,
  body: { role?: Role; password?: string },
): Promise<Person> {
  const hash = body.password === undefined ? undefined : await hashPassword(body.password);
  return db.transaction().execute(async (tx) => {
    await lockTeam(tx);
    const row = await changeable(tx, name);
    const roleChanges = body.role !== undefined && body.role !== row.role;
    if (roleChanges && row.role === "admin") await keepAnAdmin(tx, name, `making them ${body.role}`);
    if (!roleChanges && hash === undefined) return toPerson(row);
    await updatePerson(tx, name, {
      ...(roleChanges ? { role: body.role! } : {}),
      ...(hash !== undefined ? { passwordHash: hash } : {}),
    });
    // Sessions end at once: a new role or password is only had by signing in again.
    await deleteSessionsOf(tx, name);
    if (roleChanges)
      await audit(tx, {
        actor,
        action: "person.role",
        target: name,
        summary: `role ${row.role} → ${body.role}`,
      });
    if (hash !== undefined)
      await audit(tx, { actor, action: "person.password", target: name, summary: "password changed" });
    return toPerson({ ...row, role: roleChanges ? body.role! : row.role });
  });
}

/**
 * Removes a person. Their audiences (private and shared, deleted ones too) pass to the admin who
 * removes them, or, for the CLI (or an admin removing themselves), to the longest-standing
 * remaining admin: owners are names, so a later person of the same name must not inherit them.
 */
export async function removePerson(
  db: Kysely<Tables>,
  actor: string,
  name: string,
): Promise<{ heir: string | null; passed: number }> {
  return db.transaction().execute(async (tx) => {
    await lockTeam(tx);
    const row = await changeable(tx, name);
    if (row.role === "admin") await keepAnAdmin(tx, name, "removing them");
    // Their sessions go with them (sessions reference users, on delete cascade).
    // Their caps too (person_caps reference users, on delete cascade): rules belong to a person, and
    // a later person of the same name starts under the team's rules, not the removed one's.
    await deletePeople(tx, [name]);
    await audit(tx, { actor, action: "person.remove", target: name, summary: `removed (was ${row.role})` });
    const heir = await heirOf(tx, actor);
    return { heir, passed: heir ? await passAudiences(tx, actor, name, heir) : 0 };
  });
}

/**
 * People removed by the USERS_FILE import: their audiences pass to the longest-standing admin
 * (audited as the server's side, `cli`), like a removal with `npm run users`.
 */
export async function passAudiencesOfRemoved(tx: Kysely<Tables>, names: string[]): Promise<void> {
  const heir = await heirOf(tx, CLI_PERSON);
  if (heir) for (const name of names) await passAudiences(tx, CLI_PERSON, name, heir);
}

/** Who takes a removed person's audiences: the admin removing them, else the longest-standing admin. */
async function heirOf(tx: Kysely<Tables>, actor: string): Promise<string | null> {
  if (actor !== CLI_PERSON && actor !== LOCAL_PERSON) {
    if ((await roleOf(tx, actor)) !== null) return actor;
  }
  return longestStandingAdmin(tx);
}
