import type { Context, Hono } from "hono";
import { z } from "zod";
import { toValidationRecord, validationError } from "../../contract/errors";
import {
  AUDIENCE_ID,
  addPersonBody,
  changePersonBody,
  createAudienceBody,
  mayManageTeam,
  openAudienceBody,
  restoreAudienceBody,
  TEAM_CODES,
  USER_NAME,
  updateAudienceBody,
} from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { Database } from "../db/database";
import { API_PREFIX } from "../http/allowlist";
import { fail, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "./access";
import * as audiences from "./audiences";
import { auditPage } from "./audit";
import { listJobs } from "./jobs";
import { addPerson, changePerson, listPeople, removePerson } from "./people";
import { countPeople } from "./people-store";

/**
 * The proxy's own team API (src/contract/team.ts): people and the audit list for admins, saved
 * audiences for everyone signed in, who started which job. Every body is validated with the
 * contract's schemas (a 422 record like the service's); every database failure is a 503 in plain
 * words. The SQL lives in people-store.ts (people, sessions, settings), audiences.ts, audit.ts and
 * jobs.ts.
 */
export interface TeamDeps {
  database: Database;
  access: Access;
  maxBodyBytes: number;
}

/** Paths whose routes take PUT and DELETE besides GET and POST (the service's operations do not). */
export const TEAM_PATH = new RegExp(`^${API_PREFIX}/(team/|audiences(/|$)|suppression/|spending/caps$)`);

const auditQuery = z.strictObject({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
const jobsQuery = z.strictObject({ kind: z.enum(["export", "verification"]).optional() });

const STORE_DOWN =
  "The proxy cannot reach its database right now, so nothing was read or saved. Try again in a moment.";

function parse<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw unprocessable(toValidationRecord(result.error.issues, where, withoutPassword(value)));
  const nul = nulAt(result.data);
  if (nul) throw unprocessable(validationError([where, ...nul], "text may not contain the NUL character"));
  return result.data;
}

/**
 * The value a 422 record may echo: a password is never sent back (a refused one is still somebody's
 * password, and a long one would fill the answer), so any key named like one is hidden.
 */
function withoutPassword(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, /password/i.test(key) ? "[hidden]" : inner]),
  );
}

/**
 * Where a string (or a key) holds U+0000, or null. PostgreSQL's text and jsonb cannot store it: it
 * would be a failed query (a 503) instead of the 422 it is.
 */
function nulAt(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object") return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (key.includes("\u0000")) return at;
    const found = nulAt(inner, at);
    if (found) return found;
  }
  return null;
}

const caller = (c: Context<ProxyEnv>): audiences.Caller => ({ name: c.get("caller"), role: c.get("role") });

/**
 * The caller must be an admin as the database has them now, not as this instance's session memory
 * remembers them (a demoted or removed admin loses the team's pages at once on every instance).
 */
async function admin(c: Context<ProxyEnv>, access: Access) {
  const person = await access.confirm(c);
  c.set("caller", person.name);
  c.set("role", person.role);
  const verdict = mayManageTeam(person.role);
  if (!verdict.ok) throw fail(403, verdict.reason, { code: TEAM_CODES.roleRequired });
}

/** An id that cannot be an audience's is answered like an unknown one. */
function audienceId(c: Context<ProxyEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!AUDIENCE_ID.test(id)) throw audiences.notFound();
  return id;
}

function personName(c: Context<ProxyEnv>): string {
  const name = c.req.param("name") ?? "";
  if (!USER_NAME.test(name)) throw fail(404, `Nobody called ${name.slice(0, 64)} is on the team.`);
  return name;
}

export function teamRoutes(app: Hono<ProxyEnv>, deps: TeamDeps) {
  const { database, access } = deps;
  const db = database.db;
  const store = <T>(work: () => Promise<T>) => access.store(work, STORE_DOWN);
  const body = (c: Context<ProxyEnv>) => readJsonBody(c, deps.maxBodyBytes);

  // People (admins; in local mode the one local person is the admin and may add the first).
  app.get(`${API_PREFIX}/team/people`, async (c) => {
    await admin(c, access);
    return c.json({ people: await store(() => listPeople(db)) });
  });
  app.post(`${API_PREFIX}/team/people`, async (c) => {
    // Local mode's person may add the very first person only: addPerson refuses (409) under the
    // team's lock when anybody exists by then (added by the CLI, another instance, a second tab).
    const local = !access.required;
    if (!local) await admin(c, access);
    const input = parse(addPersonBody, await body(c), "body");
    try {
      const person = await store(() => addPerson(db, c.get("caller"), input, { firstOnly: local }));
      return c.json(person, 201);
    } finally {
      // Added, or refused as people exist: from now on everyone signs in (the local person too).
      if (local && (await countPeople(db).catch(() => 0)) > 0) access.peopleExist();
    }
  });
  app.put(`${API_PREFIX}/team/people/:name`, async (c) => {
    await admin(c, access);
    const name = personName(c);
    const input = parse(changePersonBody, await body(c), "body");
    const person = await store(() => changePerson(db, c.get("caller"), name, input));
    access.sessions.forget(name);
    return c.json(person);
  });
  app.delete(`${API_PREFIX}/team/people/:name`, async (c) => {
    await admin(c, access);
    const name = personName(c);
    await store(() => removePerson(db, c.get("caller"), name));
    access.sessions.forget(name);
    return c.json({ removed: true });
  });
  app.get(`${API_PREFIX}/team/audit`, async (c) => {
    await admin(c, access);
    const query = parse(auditQuery, c.req.query(), "query");
    return c.json(await store(() => auditPage(db, query)));
  });

  // Who started which job (anyone signed in: the export history shows it).
  app.get(`${API_PREFIX}/team/jobs`, async (c) => {
    const { kind } = parse(jobsQuery, c.req.query(), "query");
    return c.json({ jobs: await store(() => listJobs(db, kind)) });
  });

  // Saved audiences (anyone signed in; the object-level rules are in audiences.ts).
  app.get(`${API_PREFIX}/audiences`, async (c) =>
    c.json({ audiences: await store(() => audiences.listAudiences(db, caller(c))) }),
  );
  app.post(`${API_PREFIX}/audiences`, async (c) => {
    const input = parse(createAudienceBody, await body(c), "body");
    const { audience, created } = await store(() => audiences.createAudience(db, caller(c), input));
    return c.json(audience, created ? 201 : 200);
  });
  // Which audience the caller has open (before `/:id`: "open" is no audience's id, too short for one).
  app.get(`${API_PREFIX}/audiences/open`, async (c) =>
    c.json({ open: await store(() => audiences.openAudience(db, caller(c))) }),
  );
  app.put(`${API_PREFIX}/audiences/open`, async (c) => {
    const input = parse(openAudienceBody, await body(c), "body");
    await store(() => audiences.rememberOpen(db, caller(c), input));
    return c.json({ remembered: true });
  });
  app.delete(`${API_PREFIX}/audiences/open`, async (c) => {
    await store(() => audiences.forgetOpen(db, caller(c)));
    return c.json({ forgotten: true });
  });
  app.get(`${API_PREFIX}/audiences/:id`, async (c) => {
    const id = audienceId(c);
    return c.json(await store(() => audiences.getAudience(db, id, caller(c))));
  });
  app.put(`${API_PREFIX}/audiences/:id`, async (c) => {
    const id = audienceId(c);
    const input = parse(updateAudienceBody, await body(c), "body");
    return c.json(await store(() => audiences.updateAudience(db, caller(c), id, input)));
  });
  app.delete(`${API_PREFIX}/audiences/:id`, async (c) => {
    const id = audienceId(c);
    await store(() => audiences.deleteAudience(db, caller(c), id));
    return c.json({ deleted: true });
  });
  app.post(`${API_PREFIX}/audiences/:id/undelete`, async (c) => {
    const id = audienceId(c);
    return c.json(await store(() => audiences.undeleteAudience(db, caller(c), id)));
  });
  app.get(`${API_PREFIX}/audiences/:id/versions`, async (c) => {
    const id = audienceId(c);
    return c.json({ versions: await store(() => audiences.audienceVersions(db, caller(c), id)) });
  });
  app.post(`${API_PREFIX}/audiences/:id/restore`, async (c) => {
    const id = audienceId(c);
    const input = parse(restoreAudienceBody, await body(c), "body");
    return c.json(await store(() => audiences.restoreAudience(db, caller(c), id, input)));
  });
}
