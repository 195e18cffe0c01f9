import { randomBytes } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import { stableStringify } from "../../contract/canonical";
import type { GroupNode } from "../../contract/filter";
import {
  type Audience,
  type AudienceVersion,
  LOCAL_PERSON,
  type OpenAudienceAnswer,
  type Role,
  TEAM_CODES,
} from "../../contract/team";
import type { AudienceTable, AudienceVersionTable, Tables } from "../db/schema";
import { fail, ProxyProblem } from "../http/answer";
import { audit } from "./audit";

/**
 * Saved audiences, shared with the team or private, each save a version. Object-level rules, for
 * every route (the caller is the signed-in person and their role):
 * - visible: your own, or shared with the team. Anything else (someone else's private audience,
 *   even for an admin; an unknown or deleted one) is a 404: its existence is not told.
 * - edit (name, filter, count): visible ones (a shared audience is the team's to improve).
 * - manage (share or unshare, delete, undelete): the owner, or an admin for shared ones.
 * Saves are optimistic: a `PUT` names the version it replaces, and one that is no longer the
 * latest is a 409 carrying the latest, so nobody overwrites a colleague's save unknowingly.
 */
export interface Caller {
  name: string;
  role: Role;
}

type Row = Selectable<AudienceTable>;

const NOT_FOUND = "There is no such audience, or it is someone else's private one.";
/** The one 404 of audiences (unknown, deleted, someone else's private one, an impossible id). */
export const notFound = () => fail(404, NOT_FOUND);

/**
 * How the audit list names an audience: a private one is not named (admins read the list, and a
 * private audience is its owner's alone; its id is still the entry's target).
 */
const named = (row: { name: string; shared: boolean }) =>
  row.shared ? `“${row.name}”` : "a private audience";

const visible = (row: Row, caller: Caller) => row.owner === caller.name || row.shared;
const mayManage = (row: Row, caller: Caller) =>
  row.owner === caller.name || (row.shared && caller.role === "admin");

const count = (value: Row["last_count"]) => (value === null ? null : Number(value));
const iso = (value: Date | string) => new Date(value).toISOString();

export function toAudience(row: Row, caller: Caller): Audience {
  return {
    id: row.id,
    name: row.name,
    filter: row.filter as GroupNode,
    owner: row.owner,
    shared: row.shared,
    lastCount: count(row.last_count),
    version: row.version,
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    updatedAt: iso(row.updated_at),
    updatedBy: row.updated_by,
    canEdit: visible(row, caller),
    canManage: mayManage(row, caller),
  };
}

/** 10 characters of base64url: 60 random bits, short enough for a link, never guessed. */
export const newAudienceId = () => randomBytes(8).toString("base64url").slice(0, 10);

export async function listAudiences(db: Kysely<Tables>, caller: Caller): Promise<Audience[]> {
  const rows = await db
    .selectFrom("audiences")
    .selectAll()
    .where("deleted_at", "is", null)
    .where((eb) => eb.or([eb("owner", "=", caller.name), eb("shared", "=", true)]))
    .orderBy("updated_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((r) => toAudience(r, caller));
}

/** The audience if the caller may see it (404 otherwise); `forUpdate` locks it for a change. */
async function find(
  db: Kysely<Tables>,
  id: string,
  caller: Caller,
  options: { forUpdate?: boolean; deleted?: boolean } = {},
): Promise<Row> {
  let query = db.selectFrom("audiences").selectAll().where("id", "=", id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row || !visible(row, caller)) throw notFound();
  if (row.deleted_at !== null) {
    // A deleted audience is only seen again to be brought back, by whoever may delete it.
    if (options.deleted && mayManage(row, caller)) return row;
    throw notFound();
  }
  return row;
}

export async function getAudience(db: Kysely<Tables>, id: string, caller: Caller): Promise<Audience> {
  return toAudience(await find(db, id, caller), caller);
}

async function saveVersion(
  tx: Kysely<Tables>,
  row: Row,
  at: Date,
  by: string,
  restoredFrom: number | null = null,
) {
  await tx
    .insertInto("audience_versions")
    .values({
      audience_id: row.id,
      version: row.version,
      name: row.name,
      filter: JSON.stringify(row.filter),
      shared: row.shared,
      last_count: count(row.last_count),
      saved_at: at,
      saved_by: by,
      restored_from: restoredFrom,
    })
    .execute();
}

export async function createAudience(
  db: Kysely<Tables>,
  caller: Caller,
  body: { name: string; filter: GroupNode; shared: boolean; lastCount: number | null; clientId?: string },
): Promise<{ audience: Audience; created: boolean }> {
  return db.transaction().execute(async (tx) => {
    const at = new Date();
    const row: Row = {
      id: newAudienceId(),
      name: body.name,
      owner: caller.name,
      shared: body.shared,
      filter: body.filter,
      last_count: body.lastCount,
      version: 1,
      created_at: at,
      created_by: caller.name,
      updated_at: at,
      updated_by: caller.name,
      deleted_at: null,
      client_id: body.clientId ?? null,
    };
    // The same browser audience sent twice (a retry, two tabs moving at once) is created once.
    const inserted = await tx
      .insertInto("audiences")
      .values({ ...row, filter: JSON.stringify(body.filter), last_count: body.lastCount })
      .onConflict((oc) => oc.columns(["owner", "client_id"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) {
      const existing = await tx
        .selectFrom("audiences")
        .selectAll()
        .where("owner", "=", caller.name)
        .where("client_id", "=", body.clientId ?? "")
        .executeTakeFirstOrThrow();
      return { audience: toAudience(existing, caller), created: false };
    }
    await saveVersion(tx, row, at, caller.name);
    await audit(tx, {
      actor: caller.name,
      action: "audience.create",
      target: row.id,
      summary: row.shared ? `created “${row.name}”, shared with the team` : "created a private audience",
    });
    return { audience: toAudience(inserted, caller), created: true };
  });
}

function conflict(row: Row, caller: Caller): ProxyProblem {
  const current = toAudience(row, caller);
  return new ProxyProblem({
    status: 409,
    headers: [],
    body: JSON.stringify({
      detail: `${row.updated_by} saved a newer version of “${row.name}” (version ${row.version}) since you opened it.`,
      code: TEAM_CODES.versionConflict,
      current,
    }),
  });
}

export async function updateAudience(
  db: Kysely<Tables>,
  caller: Caller,
  id: string,
  body: { version: number; name?: string; filter?: GroupNode; shared?: boolean; lastCount?: number | null },
): Promise<Audience> {
  return db.transaction().execute(async (tx) => {
    const row = await find(tx, id, caller, { forUpdate: true });
    if (body.shared !== undefined && body.shared !== row.shared && !mayManage(row, caller))
      throw fail(403, `Only ${row.owner}, who owns “${row.name}”, or an admin may change who sees it.`, {
        code: TEAM_CODES.roleRequired,
      });
    if (body.version !== row.version) throw conflict(row, caller);
    const changes: string[] = [];
    if (body.name !== undefined && body.name !== row.name)
      changes.push((body.shared ?? row.shared) ? `renamed to “${body.name}”` : "renamed");
    if (body.filter !== undefined && stableStringify(body.filter) !== stableStringify(row.filter))
      changes.push("filter changed");
    if (body.shared !== undefined && body.shared !== row.shared)
      changes.push(body.shared ? "shared with the team" : "made private");
    const at = new Date();
    const next: Row = {
      ...row,
      name: body.name ?? row.name,
      filter: body.filter ?? row.filter,
      shared: body.shared ?? row.shared,
      last_count: body.lastCount !== undefined ? body.lastCount : count(row.last_count),
      version: row.version + 1,
      updated_at: at,
      updated_by: caller.name,
    };
    return commit(tx, caller, row, next, "audience.update", changes.join(", ") || "saved");
  });
}

/** Writes `next` as the latest version (its row, its version row, the audit entry). */
async function commit(
  tx: Kysely<Tables>,
  caller: Caller,
  row: Row,
  next: Row,
  action: "audience.update" | "audience.restore",
  what: string,
  restoredFrom: number | null = null,
): Promise<Audience> {
  const updated = await tx
    .updateTable("audiences")
    .set({
      name: next.name,
      filter: JSON.stringify(next.filter),
      shared: next.shared,
      last_count: count(next.last_count),
      version: next.version,
      updated_at: next.updated_at,
      updated_by: next.updated_by,
    })
    .where("id", "=", row.id)
    .where("version", "=", row.version)
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw conflict(row, caller);
  await saveVersion(tx, next, new Date(next.updated_at), caller.name, restoredFrom);
  await audit(tx, {
    actor: caller.name,
    action,
    target: row.id,
    summary: `version ${next.version}: ${what}`,
  });
  return toAudience(updated, caller);
}

export async function restoreAudience(
  db: Kysely<Tables>,
  caller: Caller,
  id: string,
  body: { version: number; restore: number },
): Promise<Audience> {
  return db.transaction().execute(async (tx) => {
    const row = await find(tx, id, caller, { forUpdate: true });
    if (body.version !== row.version) throw conflict(row, caller);
    const old = await tx
      .selectFrom("audience_versions")
      .selectAll()
      .where("audience_id", "=", id)
      .where("version", "=", body.restore)
      .executeTakeFirst();
    if (!old) throw fail(404, `“${row.name}” has no version ${body.restore}.`);
    // Name, filter and count come back; who sees it does not (sharing is its own decision).
    const next: Row = {
      ...row,
      name: old.name,
      filter: old.filter,
      last_count: count(old.last_count),
      version: row.version + 1,
      updated_at: new Date(),
      updated_by: caller.name,
    };
    return commit(
      tx,
      caller,
      row,
      next,
      "audience.restore",
      `brought back version ${body.restore}`,
      body.restore,
    );
  });
}

export async function deleteAudience(db: Kysely<Tables>, caller: Caller, id: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const row = await find(tx, id, caller, { forUpdate: true });
    if (!mayManage(row, caller))
      throw fail(403, `Only ${row.owner}, who owns “${row.name}”, or an admin may delete it.`, {
        code: TEAM_CODES.roleRequired,
      });
    await tx.updateTable("audiences").set({ deleted_at: new Date() }).where("id", "=", id).execute();
    await audit(tx, {
      actor: caller.name,
      action: "audience.delete",
      target: id,
      summary: `deleted ${named(row)}`,
    });
  });
}

export async function undeleteAudience(db: Kysely<Tables>, caller: Caller, id: string): Promise<Audience> {
  return db.transaction().execute(async (tx) => {
    const row = await find(tx, id, caller, { forUpdate: true, deleted: true });
    if (row.deleted_at === null) return toAudience(row, caller);
    const back = await tx
      .updateTable("audiences")
      .set({ deleted_at: null })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(tx, {
      actor: caller.name,
      action: "audience.undelete",
      target: id,
      summary: `brought back ${named(row)} after it was deleted`,
    });
    return toAudience(back, caller);
  });
}

export async function audienceVersions(
  db: Kysely<Tables>,
  caller: Caller,
  id: string,
): Promise<AudienceVersion[]> {
  await find(db, id, caller);
  const rows = await db
    .selectFrom("audience_versions")
    .selectAll()
    .where("audience_id", "=", id)
    .orderBy("version", "desc")
    .execute();
  return rows.map(toVersion);
}

function toVersion(r: Selectable<AudienceVersionTable>): AudienceVersion {
  return {
    version: r.version,
    name: r.name,
    filter: r.filter as GroupNode,
    shared: r.shared,
    lastCount: count(r.last_count),
    savedAt: iso(r.saved_at),
    savedBy: r.saved_by,
    restoredFrom: r.restored_from,
  };
}

/**
 * The first admin of a team takes over what the local person saved (called in addPerson's
 * transaction, for the Team page and `npm run users` alike).
 */
export async function adoptLocalAudiences(tx: Kysely<Tables>, actor: string, name: string): Promise<void> {
  // What the local person had open stays open for them under their new name.
  await tx
    .updateTable("open_audiences")
    .set({ person: name })
    .where("person", "=", LOCAL_PERSON)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("open_audiences as mine").select("person").where("mine.person", "=", name))),
    )
    .execute();
  await passAudiences(tx, actor, LOCAL_PERSON, name);
}

/**
 * Every audience of `from` (private and shared, deleted ones too) becomes `to`'s, audited. Owners
 * are names: what a removed person owned must not wait for the next person of that name.
 */
export async function passAudiences(
  tx: Kysely<Tables>,
  actor: string,
  from: string,
  to: string,
): Promise<number> {
  const moved = await tx
    .updateTable("audiences")
    .set({ owner: to })
    .where("owner", "=", from)
    .returning("id")
    .execute();
  // Which audience they had open is theirs alone: not passed on, and not left for a namesake.
  await tx.deleteFrom("open_audiences").where("person", "=", from).execute();
  if (moved.length > 0)
    await audit(tx, {
      actor,
      action: "audience.owner",
      target: from,
      summary: `audiences of ${from} passed to ${to} (${moved.length})`,
    });
  return moved.length;
}

// ---------------------------------------------------------------------------------------------
// The audience each person has open
// ---------------------------------------------------------------------------------------------

/**
 * Remembers that `caller` has audience `id` open at `version` (one they may see, a version it has),
 * editing the tree whose canonical key is `workingKey`. The latest write wins: a person with two
 * windows reopens the one they touched last.
 */
export async function rememberOpen(
  db: Kysely<Tables>,
  caller: Caller,
  body: { id: string; version: number; workingKey: string },
): Promise<void> {
  const row = await find(db, body.id, caller);
  if (body.version > row.version)
    throw fail(422, `“${row.name}” has no version ${body.version} yet (its latest is ${row.version}).`);
  const values = {
    audience_id: row.id,
    version: body.version,
    working_key: body.workingKey,
    opened_at: new Date(),
  };
  await db
    .insertInto("open_audiences")
    .values({ person: caller.name, ...values })
    .onConflict((oc) => oc.column("person").doUpdateSet(values))
    .execute();
}

/** Forgets which audience `caller` has open (they closed it, or started a new one). */
export async function forgetOpen(db: Kysely<Tables>, caller: Caller): Promise<void> {
  await db.deleteFrom("open_audiences").where("person", "=", caller.name).execute();
}

/**
 * What `caller` last had open: the audience as it is now and the version they opened. Null when
 * nothing, or when it is no longer theirs to see (deleted, made private by its owner).
 */
export async function openAudience(db: Kysely<Tables>, caller: Caller): Promise<OpenAudienceAnswer["open"]> {
  const open = await db
    .selectFrom("open_audiences")
    .selectAll()
    .where("person", "=", caller.name)
    .executeTakeFirst();
  if (!open) return null;
  let row: Row;
  try {
    row = await find(db, open.audience_id, caller);
  } catch (error) {
    if (error instanceof ProxyProblem && error.status === 404) return null;
    throw error;
  }
  const opened = await db
    .selectFrom("audience_versions")
    .selectAll()
    .where("audience_id", "=", row.id)
    .where("version", "=", open.version)
    .executeTakeFirst();
  if (!opened) return null;
  return {
    audience: toAudience(row, caller),
    opened: toVersion(opened),
    workingKey: open.working_key,
  };
}
