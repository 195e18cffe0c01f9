import type { Kysely } from "kysely";
import type { AuditEntry } from "../../contract/team";
import type { Tables } from "../db/schema";

/**
 * The audit list: every change to people, roles, audiences and the key, who made it and when.
 * Written in the same transaction as the change it describes, so neither exists without the other.
 */
export type AuditAction = AuditEntry["action"];

export async function audit(
  db: Kysely<Tables>,
  entry: { actor: string; action: AuditAction; target: string | null; summary: string },
): Promise<void> {
  await db.insertInto("audit_log").values(entry).execute();
}

/** Newest first, `limit` entries older than `before` (an entry's id), and whether there are more. */
export async function auditPage(
  db: Kysely<Tables>,
  options: { before?: number; limit: number },
): Promise<{ entries: AuditEntry[]; more: boolean }> {
  let query = db
    .selectFrom("audit_log")
    .selectAll()
    .orderBy("id", "desc")
    .limit(options.limit + 1);
  if (options.before !== undefined) query = query.where("id", "<", options.before);
  const rows = await query.execute();
  return {
    entries: rows.slice(0, options.limit).map((r) => ({
      id: Number(r.id),
      at: new Date(r.at).toISOString(),
      actor: r.actor,
      action: r.action as AuditAction,
      target: r.target,
      summary: r.summary,
    })),
    more: rows.length > options.limit,
  };
}
