import type { FilterNode, GroupNode, JoinOp } from "./filter";
import { DEFAULT_MATCH_LEVEL, OPERATOR_READS } from "./inferred";

/**
 * The canonical form of a filter: equal for trees that the service must answer alike, so it can
 * key a cache. Ids are dropped, defaults made explicit or dropped, operands the operator does not
 * read are dropped, `in` lists sorted and deduplicated, and a connector equal to the group's `op`
 * (or on a first child, where it is ignored) is left out. Keys come out in a fixed order.
 */
export function canonicalFilter(filter: GroupNode | null | undefined): GroupNode {
  if (!filter) return { type: "group", op: "AND", negate: false, children: [] };
  return canonicalGroup(filter);
}

/** A stable string of the canonical form, for cache keys. */
export function canonicalKey(filter: GroupNode | null | undefined): string {
  return stableStringify(canonicalFilter(filter));
}

function canonicalGroup(group: GroupNode): GroupNode {
  // An empty group matches everything whatever its op; one spelling keeps cache keys equal.
  const op = (group.children ?? []).length === 0 ? "AND" : (group.op ?? "AND");
  return {
    type: "group",
    op,
    negate: group.negate ?? false,
    children: (group.children ?? []).map((child, i) =>
      withConnector(canonicalNode(child), i === 0 ? null : (child.joinWithPrevious ?? op), op),
    ),
  };
}

function withConnector(node: FilterNode, connector: JoinOp | null, op: JoinOp): FilterNode {
  if (connector !== null && connector !== op) return { ...node, joinWithPrevious: connector };
  return node;
}

function canonicalNode(node: FilterNode): FilterNode {
  switch (node.type) {
    case "group":
      return canonicalGroup(node);
    case "condition": {
      const base = { type: "condition" as const, column: node.column, operator: node.operator };
      switch (OPERATOR_READS[node.operator]) {
        case "value":
          return { ...base, value: node.value ?? null };
        case "range":
          return { ...base, value: node.value ?? null, value2: node.value2 ?? null };
        case "list":
          return { ...base, valueList: [...new Set(node.valueList ?? [])].sort() };
        case "none":
          return base;
      }
      break;
    }
    case "semantic":
      return {
        type: "semantic",
        on: node.on,
        text: node.text,
        negate: node.negate ?? false,
        ...distance(node),
      };
    case "lookalike":
      return {
        type: "lookalike",
        rbidOrg: node.rbidOrg ?? "",
        domain: node.domain ?? "",
        negate: node.negate ?? false,
        ...distance(node),
      };
  }
}

/** `maxDistance`, when given, wins over `match`; otherwise the level with its default. */
function distance(node: { maxDistance?: number | null | undefined; match?: string | null | undefined }) {
  if (node.maxDistance !== undefined && node.maxDistance !== null) return { maxDistance: node.maxDistance };
  return { match: (node.match ?? DEFAULT_MATCH_LEVEL) as typeof DEFAULT_MATCH_LEVEL };
}

/** JSON with object keys sorted at every level. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
}
