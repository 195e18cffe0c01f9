import { type Kysely, sql } from "kysely";
import type { Role } from "../../contract/team";
import type { Tables } from "../db/schema";

/**
 * The one owner of the tables `users`, `sessions` and `proxy_settings`: every statement on them in
 * src/server is here, and nothing else. The rules (who may add whom, the last admin, USERS_FILE, how
 * long a session lives) are the callers' (people.ts, access.ts); these functions only read and
 * write. Each takes the handle to run on: `db` for a statement of its own, or a transaction's handle
 * (a `Transaction<Tables>` is a `Kysely<Tables>`), so several statements commit or roll back
 * together, under the locks below.
 */

/** A person as the Team page and the CLI show them (no password hash). */
export type PersonRow = {
  name: string;
  role: Role;
  source: "file" | "team";
  created_at: Date | string;
  created_by: string | null;
};

const COLUMNS = ["name", "role", "source", "created_at", "created_by"] as const;

// ---- Locks (transaction-level advisory locks: released at commit or rollback) ----

/**
 * One lock for the whole team, taken first by every change of people (add, change, remove, the
 * USERS_FILE import), so they run one after another: two admins demoting each other at once are
 * serialized (one wins, the other is told LAST_ADMIN) instead of deadlocking on each other's rows.
 */
const TEAM_LOCK = 0x7465616d; // "team"
export async function lockTeam(tx: Kysely<Tables>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(TEAM_LOCK)})`.execute(tx);
}

/** The lock of one setting's name: instances starting together import a USERS_FILE once. */
export async function lockSetting(tx: Kysely<Tables>, setting: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${setting}))`.execute(tx);
}

// ---- People (`users`) ----

/** Everyone on the team, ordered by name. */
export async function peopleRows(db: Kysely<Tables>): Promise<PersonRow[]> {
  return (await db.selectFrom("users").select(COLUMNS).orderBy("name").execute()) as PersonRow[];
}

export async function countPeople(db: Kysely<Tables>): Promise<number> {
  const { n } = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The person's role, null when nobody is called `name` (exactly). */
export async function roleOf(db: Kysely<Tables>, name: string): Promise<Role | null> {
  const row = await db.selectFrom("users").select("role").where("name", "=", name).executeTakeFirst();
  return row?.role ?? null;
}

/** Every person's name, ordered by name. */
export async function peopleNames(db: Kysely<Tables>): Promise<string[]> {
  return (await db.selectFrom("users").select("name").orderBy("name").execute()).map((r) => r.name);
}

/** Which of `names` are people (exact names; each at most once, ordered by name). */
export async function existingNames(db: Kysely<Tables>, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  return (
    await db.selectFrom("users").select("name").where("name", "in", names).orderBy("name").execute()
  ).map((r) => r.name);
}

/** The stored name of someone called `name` without regard to case, if anyone is. */
export async function nameTakenAs(db: Kysely<Tables>, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("users")
    .select("name")
    .where(sql<string>`lower(name)`, "=", name.toLowerCase())
    .executeTakeFirst();
  return row?.name;
}

/**
 * Who signs in as `name`: names are unique without case, so `ADA` is the person `ada`; an exact
 * match wins should an old USERS_FILE hold both.
 */
export async function signInCandidate(
  db: Kysely<Tables>,
  name: string,
): Promise<{ name: string; password_hash: string; role: Role } | undefined> {
  return db
    .selectFrom("users")
    .select(["name", "password_hash", "role"])
    .where(sql<string>`lower(name)`, "=", name.toLowerCase())
    .orderBy(sql`name = ${name}`, "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Adds a person of the Team page or the CLI (source `team`), created now. */
export async function insertTeamPerson(
  tx: Kysely<Tables>,
  person: { name: string; passwordHash: string; role: Role; createdBy: string },
): Promise<PersonRow> {
  return (await tx
    .insertInto("users")
    .values({
      name: person.name,
      password_hash: person.passwordHash,
      role: person.role,
      source: "team",
      created_at: new Date(),
      created_by: person.createdBy,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()) as PersonRow;
}

/** The person called `name`, their row locked until the transaction ends; undefined for nobody. */
export async function lockPerson(tx: Kysely<Tables>, name: string): Promise<PersonRow | undefined> {
  return (await tx
    .selectFrom("users")
    .select(COLUMNS)
    .where("name", "=", name)
    .forUpdate()
    .executeTakeFirst()) as PersonRow | undefined;
}

/** The admins' names, their rows locked until the transaction ends. */
export async function lockAdmins(tx: Kysely<Tables>): Promise<string[]> {
  return (await tx.selectFrom("users").select("name").where("role", "=", "admin").forUpdate().execute()).map(
    (a) => a.name,
  );
}

/** Sets a person's role and/or password hash (whichever is given). */
export async function updatePerson(
  tx: Kysely<Tables>,
  name: string,
  change: { role?: Role; passwordHash?: string },
): Promise<void> {
  await tx
    .updateTable("users")
    .set({
      ...(change.role !== undefined ? { role: change.role } : {}),
      ...(change.passwordHash !== undefined ? { password_hash: change.passwordHash } : {}),
    })
    .where("name", "=", name)
    .execute();
}

/** Deletes people; their sessions go with them (sessions reference users, on delete cascade). */
export async function deletePeople(tx: Kysely<Tables>, names: readonly string[]): Promise<void> {
  if (names.length > 0) await tx.deleteFrom("users").where("name", "in", names).execute();
}

/** The longest-standing admin (the earliest added; by name among equals), or null. */
export async function longestStandingAdmin(tx: Kysely<Tables>): Promise<string | null> {
  const admin = await tx
    .selectFrom("users")
    .select("name")
    .where("role", "=", "admin")
    .orderBy("created_at")
    .orderBy("name")
    .executeTakeFirst();
  return admin?.name ?? null;
}

/** Everyone's roles (one per person). */
export async function allRoles(db: Kysely<Tables>): Promise<Role[]> {
  return (await db.selectFrom("users").select("role").execute()).map((u) => u.role);
}

// ---- USERS_FILE people (`users` with source `file`) ----

/** Everyone, with what the USERS_FILE import compares: password hash, role and source. */
export async function peopleForImport(
  tx: Kysely<Tables>,
): Promise<{ name: string; password_hash: string; role: Role; source: "file" | "team" }[]> {
  return tx.selectFrom("users").select(["name", "password_hash", "role", "source"]).execute();
}

/** Makes `name` the file's person, with the file's password hash and role. */
export async function updateFilePerson(
  tx: Kysely<Tables>,
  name: string,
  entry: { hash: string; role: Role },
): Promise<void> {
  await tx
    .updateTable("users")
    .set({ password_hash: entry.hash, role: entry.role, source: "file" })
    .where("name", "=", name)
    .execute();
}

/** Adds a person of the file (source `file`, added by nobody). */
export async function insertFilePerson(
  tx: Kysely<Tables>,
  name: string,
  entry: { hash: string; role: Role },
): Promise<void> {
  await tx
    .insertInto("users")
    .values({ name, password_hash: entry.hash, role: entry.role, source: "file", created_by: null })
    .execute();
}

// ---- Sessions (`sessions`; the id is the sha256 of the cookie's token) ----

export async function insertSession(
  db: Kysely<Tables>,
  session: { idHash: string; user: string; lastSeen: Date },
): Promise<void> {
  await db
    .insertInto("sessions")
    .values({ id_hash: session.idHash, user_name: session.user, last_seen: session.lastSeen })
    .execute();
}

/** A session with its person's current role (none when the session or the person is gone). */
export async function sessionOf(
  db: Kysely<Tables>,
  idHash: string,
): Promise<{ user: string; lastSeen: Date; role: Role } | undefined> {
  const row = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.name", "sessions.user_name")
    .select(["sessions.user_name", "sessions.last_seen", "users.role"])
    .where("sessions.id_hash", "=", idHash)
    .executeTakeFirst();
  return row && { user: row.user_name, lastSeen: row.last_seen, role: row.role };
}

export async function touchSession(db: Kysely<Tables>, idHash: string, at: Date): Promise<void> {
  await db.updateTable("sessions").set({ last_seen: at }).where("id_hash", "=", idHash).execute();
}

export async function deleteSession(db: Kysely<Tables>, idHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("id_hash", "=", idHash).execute();
}

/** Ends every session of a person (a new role or password is only had by signing in again). */
export async function deleteSessionsOf(tx: Kysely<Tables>, name: string): Promise<void> {
  await tx.deleteFrom("sessions").where("user_name", "=", name).execute();
}

/** Deletes the sessions last seen before `before`. */
export async function deleteSessionsIdleSince(db: Kysely<Tables>, before: Date): Promise<void> {
  await db.deleteFrom("sessions").where("last_seen", "<", before).execute();
}

// ---- Settings (`proxy_settings`: small facts the proxy keeps about itself) ----

/** A setting's value (JSON, read back parsed), undefined when never set. */
export async function readSetting(db: Kysely<Tables>, name: string): Promise<unknown> {
  const row = await db
    .selectFrom("proxy_settings")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirst();
  return row?.value;
}

/** Sets a setting (written as JSON), now. */
export async function writeSetting(db: Kysely<Tables>, name: string, value: unknown): Promise<void> {
  await db
    .insertInto("proxy_settings")
    .values({ name, value: JSON.stringify(value), updated_at: new Date() })
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({ value: JSON.stringify(value), updated_at: new Date() }),
    )
    .execute();
}
