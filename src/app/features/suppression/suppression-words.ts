import {
  SUPPRESSION_KIND_WORDS,
  SUPPRESSION_KINDS,
  type SuppressionImport,
  type SuppressionKind,
  type SuppressionList,
} from "../../../contract/spending";
import { TEAM_CODES } from "../../../contract/team";
import { ApiError, readableIssue } from "../../api/api-error";
import { formatCount, formatNumber } from "../../lib/format";
import { readableError } from "../../ui/status";

/** The do-not-contact page's words. */

/** The kinds a list holds, largest first, with their counts (kinds with none left out). */
export function kindCounts(
  list: Pick<SuppressionList, "counts">,
): { kind: SuppressionKind; words: string; count: number }[] {
  return SUPPRESSION_KINDS.map((kind) => ({
    kind,
    words: SUPPRESSION_KIND_WORDS[kind],
    count: list.counts[kind] ?? 0,
  }))
    .filter((k) => k.count > 0)
    .sort((a, b) => b.count - a.count);
}

/** "Added 120 entries. 4 were on the list already. 3 lines were not used (below)." */
export function importSentence(result: SuppressionImport): string {
  const parts = [`Added ${formatCount(result.added, "entry", "entries")} to ${result.list.name}.`];
  if (result.duplicates > 0)
    parts.push(
      `${formatNumber(result.duplicates)} ${result.duplicates === 1 ? "was" : "were"} on the list already.`,
    );
  if (result.rejectedTotal > 0)
    parts.push(
      `${formatCount(result.rejectedTotal, "line was", "lines were")} not used: ${result.rejectedTotal === 1 ? "it is" : "they are"} none of the kinds a list can hold.`,
    );
  return parts.join(" ");
}

/** A rejected line, for people: `Line 4: "acme" — not a domain`. */
export function rejectedLine(rejected: SuppressionImport["rejected"][number]): string {
  const value = rejected.value.length > 80 ? `${rejected.value.slice(0, 80)}…` : rejected.value;
  const reason = rejected.reason.trim().replace(/\.$/, "");
  return `Line ${formatNumber(rejected.line)}: “${value}” — ${reason}.`;
}

export type ListAction = "create" | "add" | "delete";
const FAILED: Record<ListAction, string> = {
  create: "The list was not created",
  add: "The entries were not added",
  delete: "The list was not deleted",
};

/** Why a change to a list was refused, in words (never a field path). */
export function listRefusal(error: unknown, action: ListAction): string {
  const failed = FAILED[action];
  if (!(error instanceof ApiError)) return `${failed}: ${readableError(error)}`;
  if (error.code === TEAM_CODES.roleRequired)
    return `${failed}: changing the team's do-not-contact lists needs a buyer or an admin. Ask an admin of your team.`;
  if (error.kind === "not-found") return `${failed}: the list is no longer there (someone deleted it).`;
  if (error.kind === "validation") {
    const first = error.issues[0];
    return `${failed}: ${first ? readableIssue(first.msg) : error.message}`;
  }
  if (error.status === 413)
    return `${failed}: the text is too large (at most 20 MB at once). Split it in parts.`;
  return `${failed}: ${error.message}`;
}
