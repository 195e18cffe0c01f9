import { getColumn } from "./columns";
import type { FilterNode, GroupNode, JoinOp, LookalikeNode } from "./filter";
import { DEFAULT_MATCH_LEVEL } from "./inferred";

/**
 * A filter in plain English, e.g. `Country is United States and (Job level is Director or VP)`.
 * AND binds tighter than OR, so a group with mixed connectors reads as OR-separated runs of ANDs.
 * Never throws: whatever it cannot read it says as "(unreadable condition)".
 */
export function describe(filter: GroupNode | null | undefined, names: CompanyNames = NO_NAMES): string {
  try {
    if (!filter) return "Everyone";
    const text = describeGroup(filter, true, names);
    return text === "" ? "Everyone" : capitalise(text);
  } catch {
    return "(unreadable filter)";
  }
}

/** One node on its own, for per-node labels in the editor. */
export function describeNode(node: FilterNode, names: CompanyNames = NO_NAMES): string {
  try {
    return capitalise(describeAny(node, true, names)) || "Everyone";
  } catch {
    return "(unreadable condition)";
  }
}

/**
 * The name of a lookalike's company when the caller knows it (the service said it), so that a
 * company named by an ID reads as the company: "similar to Northwind Analytics (org_…)".
 */
export type CompanyNames = (node: LookalikeNode) => string | undefined;
const NO_NAMES: CompanyNames = () => undefined;

const LIST_SHOWN = 5;

function describeAny(node: FilterNode, top: boolean, names: CompanyNames): string {
  switch (node?.type) {
    case "group":
      return describeGroup(node, top, names);
    case "condition":
      return describeCondition(node);
    case "semantic": {
      const text = `"${node.text}"`;
      const phrase =
        node.on === "title"
          ? isExact(node)
            ? `job title is exactly ${text}`
            : `job title is ${level(node)} ${text}`
          : isExact(node)
            ? `company is named ${text}`
            : `company's business is ${level(node)} ${text}`;
      return node.negate ? `not (${phrase})` : phrase;
    }
    case "lookalike": {
      const ref = node.domain || node.rbidOrg;
      const name = ref ? names(node) : undefined;
      const which = !ref ? "a company not named yet" : name ? `${name} (${ref})` : ref;
      const phrase = isExact(node) ? `works at ${which}` : `works at a company ${level(node)} ${which}`;
      return node.negate ? `not (${phrase})` : phrase;
    }
    default:
      return "(unreadable condition)";
  }
}

function describeGroup(group: GroupNode, top: boolean, names: CompanyNames): string {
  const children = Array.isArray(group.children) ? group.children : [];
  if (children.length === 0) return group.negate ? "no one" : top ? "" : "everyone";
  // Split into OR-separated terms, each a run of ANDs.
  const terms: string[][] = [[]];
  children.forEach((child, i) => {
    const connector: JoinOp = i === 0 ? "AND" : (child.joinWithPrevious ?? group.op ?? "AND");
    if (connector === "OR") terms.push([]);
    const text = describeAny(child, false, names);
    const needsParens = child?.type === "group" && !child.negate && (child.children?.length ?? 0) > 1;
    terms.at(-1)!.push(needsParens ? `(${text})` : text);
  });
  const multi = terms.length > 1;
  const body = terms
    .map((term) => (multi && term.length > 1 ? `(${term.join(" and ")})` : term.join(" and ")))
    .join(" or ");
  if (group.negate) return `not (${body})`;
  return body;
}

function describeCondition(node: Extract<FilterNode, { type: "condition" }>): string {
  const column = getColumn(node.column);
  const label = column?.label ?? (node.column || "(no column)");
  // A rule still being filled in reads as "…" rather than "undefined".
  const v = (x: unknown) =>
    typeof x === "string" ? `"${x}"` : x === undefined || x === null ? "…" : String(x);
  if (column?.maskedAs) {
    const what = column.maskedAs === "hasEmail" ? "an email" : "a mobile";
    if (node.operator === "isNotNull") return `has ${what}`;
    if (node.operator === "isNull") return `has no ${what.replace(/^an? /, "")}`;
  }
  switch (node.operator) {
    case "eq":
      return `${label} is ${v(node.value)}`;
    case "ne":
      return `${label} is not ${v(node.value)}`;
    case "gt":
      return `${label} is more than ${v(node.value)}`;
    case "gte":
      return `${label} is at least ${v(node.value)}`;
    case "lt":
      return `${label} is less than ${v(node.value)}`;
    case "lte":
      return `${label} is at most ${v(node.value)}`;
    case "contains":
      return `${label} contains ${v(node.value)}`;
    case "startsWith":
      return `${label} starts with ${v(node.value)}`;
    case "endsWith":
      return `${label} ends with ${v(node.value)}`;
    case "between":
      return `${label} is between ${v(node.value)} and ${v(node.value2)}`;
    case "isNull":
      return `${label} is empty`;
    case "isNotNull":
      return `${label} is known`;
    case "in":
      return `${label} is ${listText(node.valueList, "or")}`;
    case "notIn": {
      const values = node.valueList ?? [];
      if (values.length === 1) return `${label} is not "${values[0]}"`;
      if (values.length === 2) return `${label} is neither "${values[0]}" nor "${values[1]}"`;
      return `${label} is none of ${listText(values, "or").replace(/^one of /, "")}`;
    }
    default:
      return `${label} ${String(node.operator)} ${v(node.value)}`;
  }
}

function listText(list: readonly string[] | null | undefined, last: string): string {
  const values = (list ?? []).map((x) => `"${x}"`);
  if (values.length === 0) return "one of (nothing)";
  if (values.length === 1) return values[0]!;
  const shown = values.slice(0, LIST_SHOWN);
  const more = values.length - shown.length;
  if (more > 0) return `one of ${shown.join(", ")} and ${more} more`;
  return `one of ${shown.slice(0, -1).join(", ")} ${last} ${shown.at(-1)}`;
}

type Leveled = { maxDistance?: number | null | undefined; match?: string | null | undefined };

function isExact(node: Leveled): boolean {
  return (node.maxDistance === undefined || node.maxDistance === null) && node.match === "exact";
}

function level(node: Leveled): string {
  if (node.maxDistance !== undefined && node.maxDistance !== null)
    return `within distance ${node.maxDistance} of`;
  const match = node.match ?? DEFAULT_MATCH_LEVEL;
  return match === "same" ? "the same as" : match === "broad" ? "broadly like" : `${match} to`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
