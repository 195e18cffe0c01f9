import type { OperationSpec } from "../../contract/routes";
import type { Role } from "../../contract/team";

/**
 * Who may call which of the service's operations: one table, read from the contract's operation
 * table (its `spends` flag) plus the downloads of purchased data and the key rotations. Pure, so
 * it is tested on its own; the proxy asks it before anything is read or sent.
 */
export const DOWNLOADS: ReadonlySet<string> = new Set(["exportDownload", "batchDownloadV1", "jobDownloadV2"]);
export const ROTATIONS: ReadonlySet<string> = new Set(["rotateV1", "rotateV2"]);
/** Cancels of a job: allowed to whoever started it (team_jobs) or an admin; see `mayCancel`. */
export const CANCELS: Readonly<Record<string, "export" | "verification">> = {
  exportCancel: "export",
  cancelV1: "verification",
  jobCancelV2: "verification",
};

export type Verdict = { ok: true } | { ok: false; reason: string };
const OK: Verdict = { ok: true };

const A: Record<Role, string> = { admin: "an admin", buyer: "a buyer", analyst: "an analyst" };
const deny = (what: string, needs: string, role: Role): Verdict => ({
  ok: false,
  reason: `${what} needs ${needs}; you are signed in as ${A[role]}. Ask an admin of your team.`,
});

/** What the caller's role allows for one operation (the job-level check of cancels is separate). */
export function mayCall(role: Role, op: Pick<OperationSpec, "id" | "spends">): Verdict {
  if (role === "admin") return OK;
  if (ROTATIONS.has(op.id)) return deny("Rotating the team's key", "an admin", role);
  if (role === "buyer") return OK;
  if (op.spends) return deny("Buying", "a buyer or an admin", role);
  if (DOWNLOADS.has(op.id)) return deny("Downloading purchased data", "a buyer or an admin", role);
  if (op.id in CANCELS) return deny("Cancelling a job", "a buyer or an admin", role);
  return OK;
}

/**
 * Cancelling a job: the person who started it, or an admin. A job the proxy has no record of
 * (started before this version, or directly at the service) may be cancelled by any buyer: the
 * proxy cannot tell whose it is, and a stuck job must not need an admin.
 */
export function mayCancel(
  person: { name: string; role: Role },
  startedBy: string | null,
  kind: "export" | "verification",
): Verdict {
  if (person.role === "admin" || startedBy === person.name) return OK;
  const what = kind === "export" ? "this export" : "this verification job";
  if (startedBy !== null)
    return {
      ok: false,
      reason: `Only ${startedBy}, who started ${what}, or an admin may cancel it.`,
    };
  return person.role === "buyer" ? OK : deny(`Cancelling ${what}`, "a buyer or an admin", person.role);
}

/** The team's own pages (people, audit): admins only. */
export function mayManageTeam(role: Role): Verdict {
  return role === "admin" ? OK : deny("Managing the team's people", "an admin", role);
}
