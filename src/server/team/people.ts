import { type Kysely, sql } from "kysely";
import { validationError } from "../../contract/errors";
import { CLI_PERSON, LOCAL_PERSON, type Person, type Role, TEAM_CODES } from "../../contract/team";
import type { Tables } from "../db/schema";
import { fail, unprocessable } from "../http/answer";
import { adoptLocalAudiences, passAudiences } from "./audiences";
import { audit } from "./audit";
import { hashPassword } from "./passwords";

/**
 * The team's people: the `users` table, for the Team page and `npm run users` alike (one set of
 * rules for both). Every change is audited in its own transaction, and a change of role or
 * password, or a removal, deletes that person's sessions there too (callers also drop their
 * instance's cache of them: `Sessions.forget`).
 */
type Row = {
  name: string;
  role: Role;
  source: "file" | "team";
  created_at: Date | string;
  created_by: string | null;
};

const toPerson = (r: Row): Person => ({
  name: r.name,
  role: r.role,
  source: r.source,
  createdAt: new Date(r.created_at).toISOString(),
  createdBy: r.created_by,
});

const COLUMNS = ["name", "role", "source", "created_at", "created_by"] as const;

/** A 422 with the service's validation record, for checks zod cannot make. */
export const invalid = (loc: (string | number)[], msg: string, input?: unknown) =>
  unprocessable(validationError(loc, msg, input));

/**
 * One lock for the whole team, taken first by every change of people (add, change, remove, the
 * USERS_FILE import), so they run one after another: two admins demoting each other at once are
 * serialized (one wins, the other is told LAST_ADMIN) instead of deadlocking on each other's rows.
 * A transaction-level advisory lock: released at commit or rollback.
 */
const TEAM_LOCK = 0x7465616d; // "team"
export async function lockTeam(tx: Kysely<Tables>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(TEAM_LOCK)})`.execute(tx);
}

export async function listPeople(db: Kysely<Tables>): Promise<Person[]> {
  return (await db.selectFrom("users").select(COLUMNS).orderBy("name").execute()).map(toPerson);
}

export async function countPeople(db: Kysely<Tables>): Promise<number> {
  const { n } = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function roleOf(db: Kysely<Tables>, name: string): Promise<Role | null> {
  const row = await db.selectFrom("users").select("role").where("name", "=", name).executeTakeFirst();
  return row?.role ?? null;
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
    const taken = await tx
      .selectFrom("users")
      .select("name")
      .where(sql<string>`lower(name)`, "=", body.name.toLowerCase())
      .executeTakeFirst();
    if (taken)
      throw fail(409, `Someone called ${taken.name} is on the team already. Choose another name.`, {
        code: TEAM_CODES.nameTaken,
      });
    const row = await tx
      .insertInto("users")
      .values({
        name: body.name,
        password_hash: hash,
        role: body.role,
        source: "team",
        created_at: new Date(),
        created_by: actor,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    await audit(tx, { actor, action: "person.add", target: body.name, summary: `added as ${body.role}` });
    // The local person's audiences become the first admin's: nothing saved before is orphaned.
    if (empty && body.role === "admin") await adoptLocalAudiences(tx, actor, body.name);
    return toPerson(row as Row);
  });
}

/** The person to change, locked; refuses unknown names and people of USERS_FILE. */
async function changeable(tx: Kysely<Tables>, name: string): Promise<Row> {
  const row = await tx
    .selectFrom("users")
    .select(COLUMNS)
    .where("name", "=", name)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw fail(404, `Nobody called ${name} is on the team.`);
  if (row.source === "file")
    throw fail(
      409,
      `${name} is listed in the proxy's USERS_FILE: whoever runs the proxy changes them there (then restarts it).`,
      { code: TEAM_CODES.managedByFile },
    );
  return row as Row;
}

/** Refuses a change that would leave the team without an admin (the admins are locked meanwhile). */
async function keepAnAdmin(tx: Kysely<Tables>, leaving: string, doing: string) {
  const admins = await tx
    .selectFrom("users")
    .select("name")
    .where("role", "=", "admin")
    .forUpdate()
    .execute();
  if (admins.every((a) => a.name === leaving))
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
    await tx
      .updateTable("users")
      .set({
        ...(roleChanges ? { role: body.role } : {}),
        ...(hash !== undefined ? { password_hash: hash } : {}),
      })
      .where("name", "=", name)
      .execute();
    // Sessions end at once: a new role or password is only had by signing in again.
    await tx.deleteFrom("sessions").where("user_name", "=", name).execute();
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
    await tx.deleteFrom("users").where("name", "=", name).execute();
    await forgetCaps(tx, [name]);
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
  await forgetCaps(tx, names);
  const heir = await heirOf(tx, CLI_PERSON);
  if (heir) for (const name of names) await passAudiences(tx, CLI_PERSON, name, heir);
}

/**
 * A removed person's cap and approval threshold go with them: rules belong to a person, and a
 * later person of the same name starts under the team's rules, not the removed one's.
 */
async function forgetCaps(tx: Kysely<Tables>, names: string[]): Promise<void> {
  if (names.length > 0) await tx.deleteFrom("person_caps").where("name", "in", names).execute();
}

/** Who takes a removed person's audiences: the admin removing them, else the longest-standing admin. */
async function heirOf(tx: Kysely<Tables>, actor: string): Promise<string | null> {
  if (actor !== CLI_PERSON && actor !== LOCAL_PERSON) {
    const self = await tx.selectFrom("users").select("name").where("name", "=", actor).executeTakeFirst();
    if (self) return self.name;
  }
  const admin = await tx
    .selectFrom("users")
    .select("name")
    .where("role", "=", "admin")
    .orderBy("created_at")
    .orderBy("name")
    .executeTakeFirst();
  return admin?.name ?? null;
}
