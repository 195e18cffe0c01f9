import type { FilterNode } from "../../../../contract/filter";
import { OPERATOR_READS } from "../../../../contract/inferred";

/**
 * Which field of a node a validation reason (model/validate.ts) is about, so the editor can show it
 * beside that field. Reasons it cannot place are shown for the node as a whole.
 */
export type ProblemField =
  | "column"
  | "operator"
  | "value"
  | "value2"
  | "valueList"
  | "text"
  | "match"
  | "company";

export function problemField(node: FilterNode, reason: string): ProblemField | null {
  switch (node.type) {
    case "condition": {
      if (/choose a column|there is no column/i.test(reason)) return "column";
      if (/cannot use|choose a comparison|can only be checked/i.test(reason)) return "operator";
      if (/upper end/i.test(reason)) return "value2";
      if (/lower end/i.test(reason)) return "value";
      if (OPERATOR_READS[node.operator] === "list") return "valueList";
      if (/enter (a value|text|a whole number)/i.test(reason)) return "value";
      return null;
    }
    case "semantic":
      if (/job title|kind of company|enter a text|choose job title/i.test(reason)) return "text";
      if (/match level|distance/i.test(reason)) return "match";
      return null;
    case "lookalike":
      if (/domain|company id/i.test(reason)) return "company";
      if (/match level|distance/i.test(reason)) return "match";
      return null;
    case "group":
      return null;
  }
}

/** A node's reasons sorted by field; `node` holds those that belong to no single field. */
export function problemsByField(
  node: FilterNode,
  reasons: readonly string[] | undefined,
): Partial<Record<ProblemField | "node", string[]>> {
  const out: Partial<Record<ProblemField | "node", string[]>> = {};
  for (const reason of reasons ?? []) {
    const field = problemField(node, reason) ?? "node";
    const list = out[field];
    if (list) list.push(reason);
    else out[field] = [reason];
  }
  return out;
}

/** The id of the element listing a node's reasons for one field. */
export function problemId(nodeId: string, field: ProblemField | "node"): string {
  return `fe-problem-${nodeId}-${field}`;
}
