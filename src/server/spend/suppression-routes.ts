import { randomUUID } from "node:crypto";
import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import type { z } from "zod";
import { toValidationRecord } from "../../contract/errors";
import {
  SUPPRESSION_KINDS,
  SUPPRESSION_TEXT_MAX_BYTES,
  type SuppressionImport,
  type SuppressionKind,
  type SuppressionList,
  suppressionAdd,
  suppressionCreate,
} from "../../contract/spending";
import type { Role } from "../../contract/team";
import { TEAM_CODES } from "../../contract/team";
import type { ProxyEnv } from "../context";
import type { Tables } from "../db/schema";
import { API_PREFIX } from "../http/allowlist";
import { fail, unprocessable } from "../http/answer";
import { readJsonBody } from "../http/request-input";
import type { Access } from "../team/access";
import { audit } from "../team/audit";
import {
  addEntries,
  allLists,
  createList,
  deleteList,
  entriesPage,
  listName,
  listOf,
  type ParsedEntries,
  parseEntries,
} from "./suppression";

type Db = Kysely<Tables>;

const STORE_DOWN =
  "The proxy cannot reach its database right now, so nothing was read or saved. Try again in a moment.";

const mayManage = (role: Role) => role === "admin" || role === "buyer";

/** `/api/suppression…`: everyone signed in reads; admins and buyers manage (audited). */
export function suppressionRoutes(
  app: Hono<ProxyEnv>,
  deps: { db: Db; access: Access; maxBodyBytes: number },
) {
  const { db, access } = deps;
  const manager = async (c: Context<ProxyEnv>) => {
    const person = await access.confirm(c);
    if (!mayManage(person.role))
      throw fail(403, "Changing the do-not-contact lists needs a buyer or an admin; ask one of them.", {
        code: TEAM_CODES.roleRequired,
      });
    return person;
  };
  const body = async <S extends z.ZodType>(c: Context<ProxyEnv>, schema: S): Promise<z.output<S>> => {
    // The text's own limit plus room for the JSON around it (its escapes included).
    const raw = await readJsonBody(c, Math.max(deps.maxBodyBytes, SUPPRESSION_TEXT_MAX_BYTES + 1024 * 1024));
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw unprocessable(toValidationRecord(parsed.error.issues, "body", raw));
    return parsed.data;
  };
  const answerImport = (
    list: SuppressionList,
    counts: { added: number; duplicates: number },
    parsed: ParsedEntries,
  ) =>
    ({
      list,
      ...counts,
      rejected: parsed.rejected.slice(0, 100),
      rejectedTotal: parsed.rejected.length,
    }) satisfies SuppressionImport;

  app.get(`${API_PREFIX}/suppression`, async (c) => {
    await access.confirm(c);
    const lists = await access.store(() => allLists(db), STORE_DOWN);
    return c.json({ lists });
  });

  app.post(`${API_PREFIX}/suppression`, async (c) => {
    const person = await manager(c);
    const input = await body(c, suppressionCreate);
    const parsed = parseEntries(input.text);
    const answer = await access.store(
      () =>
        db.transaction().execute(async (trx) => {
          const id = randomUUID();
          await createList(trx, { id, name: input.name, createdBy: person.name });
          const counts = await addEntries(trx, id, parsed);
          await audit(trx, {
            actor: person.name,
            action: "suppression.create",
            target: id,
            summary: `made the do-not-contact list "${input.name}" with ${counts.added} entries`,
          });
          return answerImport((await listOf(trx, id))!, counts, parsed);
        }),
      STORE_DOWN,
    );
    return c.json(answer, 201);
  });

  app.post(`${API_PREFIX}/suppression/:id/entries`, async (c) => {
    const person = await manager(c);
    const id = c.req.param("id");
    const input = await body(c, suppressionAdd);
    const parsed = parseEntries(input.text);
    const answer = await access.store(
      () =>
        db.transaction().execute(async (trx) => {
          const name = await listName(trx, id);
          if (name === null) return null;
          const counts = await addEntries(trx, id, parsed);
          await audit(trx, {
            actor: person.name,
            action: "suppression.add",
            target: id,
            summary: `added ${counts.added} entries to the do-not-contact list "${name}"`,
          });
          return answerImport((await listOf(trx, id))!, counts, parsed);
        }),
      STORE_DOWN,
    );
    if (!answer) throw fail(404, "There is no such do-not-contact list (it may have been deleted).");
    return c.json(answer);
  });

  app.get(`${API_PREFIX}/suppression/:id/entries`, async (c) => {
    await access.confirm(c);
    const id = c.req.param("id");
    const kind = c.req.query("kind");
    const after = c.req.query("after");
    if (kind !== undefined && !(SUPPRESSION_KINDS as readonly string[]).includes(kind))
      throw fail(422, `kind must be one of ${SUPPRESSION_KINDS.join(", ")}.`);
    const page = await access.store(async () => {
      if (!(await listOf(db, id))) return null;
      return entriesPage(db, id, kind as SuppressionKind | undefined, after);
    }, STORE_DOWN);
    if (!page) throw fail(404, "There is no such do-not-contact list (it may have been deleted).");
    return c.json(page);
  });

  app.delete(`${API_PREFIX}/suppression/:id`, async (c) => {
    const person = await manager(c);
    const id = c.req.param("id");
    const done = await access.store(
      () =>
        db.transaction().execute(async (trx) => {
          const name = await deleteList(trx, id);
          if (name === null) return false;
          await audit(trx, {
            actor: person.name,
            action: "suppression.delete",
            target: id,
            summary: `deleted the do-not-contact list "${name}"`,
          });
          return true;
        }),
      STORE_DOWN,
    );
    if (!done) throw fail(404, "There is no such do-not-contact list (it may have been deleted).");
    return c.body(null, 204);
  });
}
