import type { Kysely } from "kysely";
import type { TeamJob } from "../../contract/team";
import type { Tables } from "../db/schema";

/**
 * Jobs started through the proxy (exports, verification batches) and who started them: the export
 * history shows it, and a cancel is allowed to that person or an admin.
 */
/** A job id the table can hold (PostgreSQL text cannot hold U+0000): anything else was never recorded. */
export const storableJobId = (jobId: string) => jobId.length <= 256 && !jobId.includes("\u0000");

export async function recordJob(db: Kysely<Tables>, kind: TeamJob["kind"], jobId: string, person: string) {
  if (!storableJobId(jobId)) return;
  await db
    .insertInto("team_jobs")
    .values({ kind, job_id: jobId, person, at: new Date() })
    .onConflict((oc) => oc.columns(["kind", "job_id"]).doNothing())
    .execute();
}

export async function startedBy(db: Kysely<Tables>, kind: TeamJob["kind"], jobId: string) {
  if (!storableJobId(jobId)) return null;
  const row = await db
    .selectFrom("team_jobs")
    .select("person")
    .where("kind", "=", kind)
    .where("job_id", "=", jobId)
    .executeTakeFirst();
  return row?.person ?? null;
}

/** The latest 1,000 of a kind, newest first (more than any export list the app shows). */
export async function listJobs(db: Kysely<Tables>, kind?: TeamJob["kind"]): Promise<TeamJob[]> {
  let query = db.selectFrom("team_jobs").selectAll().orderBy("at", "desc").limit(1000);
  if (kind) query = query.where("kind", "=", kind);
  return (await query.execute()).map((r) => ({
    kind: r.kind,
    jobId: r.job_id,
    person: r.person,
    at: new Date(r.at).toISOString(),
  }));
}
