import type { FilterNode, GroupNode } from "../../../contract/filter";
import { ApiError, readableIssue } from "../../api/api-error";
import { inWords } from "./check";
import { nodeAt } from "./tree";

/**
 * The node a service's 422 points at in the filter that was sent (`["body", "filter", "children",
 * 2, "children", 0, "domain"]` is the first child of the third item), with the reason in words, or
 * null when the answer names no node of it. The sent filter keeps the editor's ids and order (the
 * canonical form only drops the ids), so the node found is the editor's own.
 */
export function refusedNode(sent: GroupNode, error: unknown): { node: FilterNode; reason: string } | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  for (const issue of error.issues) {
    const loc = issue.loc[0] === "body" ? issue.loc.slice(1) : issue.loc;
    if (loc[0] !== "filter") continue;
    const path: number[] = [];
    for (let i = 1; i + 1 < loc.length && loc[i] === "children"; i += 2) {
      const index = loc[i + 1];
      if (typeof index !== "number") break;
      path.push(index);
    }
    if (path.length === 0) continue;
    const node = nodeAt(sent, path);
    if (!node) continue;
    const said = inWords(readableIssue(issue.msg)).replace(/\.$/, "");
    return { node, reason: `The data service refused this rule: ${said}.` };
  }
  return null;
}
