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

/**
 * A stable string of the canonical form, for cache keys: exactly
 * `stableStringify(canonicalFilter(filter))`, built node by node and remembered per node object, so
 * an edit re-serialises only the path it changed (trees are treated as immutable: a node object is
 * never changed after it has been keyed, which the editor's structural sharing guarantees).
 */
export function canonicalKey(filter: GroupNode | null | undefined): string {
  return filter ? nodeKey(filter, null) : EMPTY_KEY;
}

const EMPTY_KEY = stableStringify(canonicalFilter(null));

/** Per node object, its key for each connector it may be written with ("" for none). */
const keys = new WeakMap<object, Map<string, string>>();

function nodeKey(node: FilterNode, connector: JoinOp | null): string {
  let byConnector = keys.get(node);
  const cached = byConnector?.get(connector ?? "");
  if (cached !== undefined) return cached;
  const key =
    node.type === "group"
      ? groupKey(node, connector)
      : stableStringify(withConnector(canonicalNode(node), connector, null));
  if (!byConnector) {
    byConnector = new Map();
    keys.set(node, byConnector);
  }
  byConnector.set(connector ?? "", key);
  return key;
}

/** The group's canonical JSON with its children's keys spliced in; keys in sorted order. */
function groupKey(group: GroupNode, connector: JoinOp | null): string {
  const children = group.children ?? [];
  const op = children.length === 0 ? "AND" : (group.op ?? "AND");
  const parts = children.map((child, i) => {
    const join = i === 0 ? null : (child.joinWithPrevious ?? op);
    return nodeKey(child, join !== null && join !== op ? join : null);
  });
  const join = connector === null ? "" : `"joinWithPrevious":${JSON.stringify(connector)},`;
  return `{"children":[${parts.join(",")}],${join}"negate":${group.negate ?? false},"op":${JSON.stringify(op)},"type":"group"}`;
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

/** Writes the connector when it differs from the group's op (`op` null: it is known to differ). */
function withConnector(node: FilterNode, connector: JoinOp | null, op: JoinOp | null): FilterNode {
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
