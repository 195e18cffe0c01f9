/**
 * Validation for the editor: the contract's STRICT schemas (the proxy's copy), applied one node at a
 * time so that a keystroke re-checks only the node it changed (results are memoised per node
 * object), with reasons written for people and keyed by node id.
 */
import type { z } from "zod";
import { getColumn, operatorsFor } from "../../../contract/columns";
import { type FilterNode, type GroupNode, strictFilterSchemas } from "../../../contract/filter";
import { MAX_FILTER_DEPTH, OPERATOR_READS, type Operator, VALUE_LIST_MAX } from "../../../contract/inferred";
import { formatNumber } from "../format";
import { depthOf, type Path, walk } from "./tree";

/** Node id -> readable reasons. Nodes without an id are keyed `path:` + their path (e.g. `path:0.2`). */
export type Problems = ReadonlyMap<string, readonly string[]>;

/** How each operator reads in the editor, for messages (and menus). */
export const OPERATOR_LABELS: Record<Operator, string> = {
  eq: "is",
  ne: "is not",
  gt: "is more than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
  contains: "contains",
  startsWith: "starts with",
  endsWith: "ends with",
  isNull: "is empty",
  isNotNull: "is known",
  in: "is one of",
  notIn: "is none of",
  between: "is between",
};

const NONE: readonly string[] = Object.freeze([]);
const EMPTY: Problems = new Map();

/** Reasons of one node, its own fields only (a group's children are checked as nodes of their own). */
const nodeCache = new WeakMap<object, readonly string[]>();
/** Whole results, per root object. */
const treeCache = new WeakMap<object, Problems>();

/**
 * Problems of every node of the tree, by the strict schema: empty exactly when
 * `strictFilterSchemas.root` accepts the tree.
 */
export function validateTree(tree: GroupNode): Problems {
  if (tree === null || tree === undefined) return EMPTY;
  if (typeof tree !== "object" || Array.isArray(tree))
    return new Map([["path:", ["The filter is unreadable."]]]);
  const cached = treeCache.get(tree);
  if (cached) return cached;
  const problems = new Map<string, string[]>();
  const add = (key: string, reasons: readonly string[]) => {
    if (reasons.length === 0) return;
    const list = problems.get(key);
    if (list) {
      for (const reason of reasons) if (!list.includes(reason)) list.push(reason);
    } else problems.set(key, [...reasons]);
  };
  const depth = depthOf(tree);
  if (depth > MAX_FILTER_DEPTH) {
    // The proxy refuses such a tree before looking any further; so do we.
    add(keyOf(tree, []), [
      `The filter nests ${depth} levels deep; at most ${MAX_FILTER_DEPTH} are allowed. Ungroup some items.`,
    ]);
  } else {
    walk(tree, (node, path) => {
      add(keyOf(node, path), reasonsOf(node, path.length === 0));
      if (node.type === "group" && Array.isArray(node.children) && node.children.some((c) => !isObject(c)))
        add(keyOf(node, path), ["Part of this group is unreadable; delete it."]);
    });
  }
  const result: Problems = problems.size === 0 ? EMPTY : problems;
  treeCache.set(tree, result);
  return result;
}

/** The key a node's problems are filed under. */
export function problemKey(node: FilterNode, path: Path): string {
  return keyOf(node, path);
}

function keyOf(node: FilterNode, path: Path): string {
  return typeof node.id === "string" && node.id !== "" ? node.id : `path:${path.join(".")}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function reasonsOf(node: FilterNode, root: boolean): readonly string[] {
  const cacheable = !root;
  if (cacheable) {
    const hit = nodeCache.get(node);
    if (hit) return hit;
  }
  const reasons = computeReasons(node, root);
  if (cacheable) nodeCache.set(node, reasons);
  return reasons;
}

/**
 * Beyond the contract: the service accepts `Country is ""`, but a person who has not typed a value
 * yet has not finished the rule, and counting it would show a misleading 0. Such a rule blocks
 * sending, like an invalid one, until it is filled in.
 */
function unfinished(node: FilterNode): readonly string[] {
  if (node.type !== "condition") return NONE;
  const blank = (v: unknown) => typeof v === "string" && v.trim() === "";
  const reads = OPERATOR_READS[node.operator];
  if ((reads === "value" || reads === "range") && blank(node.value)) return [ENTER_VALUE];
  if (reads === "range" && blank(node.value2)) return [ENTER_VALUE];
  if (reads === "list" && (node.valueList ?? []).every(blank)) return [ENTER_VALUES];
  if (reads === "range") return swappedEnds(node.value, node.value2);
  return NONE;
}

/**
 * Beyond the contract too: the service takes "between 2020 and 1990" and answers 0, which reads as
 * "nobody" rather than as a typing slip. The ends must be in order (equal ends are one value).
 */
function swappedEnds(low: unknown, high: unknown): readonly string[] {
  const [a, b] = [Number(low), Number(high)];
  if (!Number.isFinite(a) || !Number.isFinite(b) || a <= b) return NONE;
  return [
    // As typed: a year reads "2020", not "2,020".
    `The lower end (${a}) is above the upper end (${b}): swap them, or nobody matches.`,
  ];
}

const ENTER_VALUE = "Enter a value.";
const ENTER_VALUES = "Enter at least one value.";

function computeReasons(node: FilterNode, root: boolean): readonly string[] {
  if (root && node.type !== "group") return ["The top level of a filter must be a group."];
  // A group is checked without its children: each child is a node of its own.
  const local = node.type === "group" && Array.isArray(node.children) ? { ...node, children: [] } : node;
  const schema = root ? strictFilterSchemas.group : strictFilterSchemas.node;
  const parsed = schema.safeParse(local);
  if (parsed.success) return unfinished(node);
  const reasons: string[] = [];
  const badEntries: string[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.path[0] === "valueList" && typeof issue.path[1] === "number") {
      const entry = (node as { valueList?: unknown[] }).valueList?.[issue.path[1]];
      badEntries.push(String(entry));
      continue;
    }
    const reason = describeIssue(issue, node);
    if (!reasons.includes(reason)) reasons.push(reason);
  }
  if (badEntries.length > 0) {
    const shown = badEntries.slice(0, 3).map((e) => `"${e}"`);
    const rest = badEntries.length - shown.length;
    reasons.push(
      `Enter whole numbers only (${shown.join(", ")}${rest > 0 ? ` and ${rest} more` : ""} ${
        badEntries.length === 1 ? "is not one" : "are not"
      }).`,
    );
  }
  return reasons.length > 0 ? reasons : ["This part of the filter is not valid."];
}

const KIND: Record<string, string> = {
  condition: "This condition",
  group: "This group",
  semantic: "This match",
  lookalike: "This lookalike",
};

function describeIssue(issue: z.core.$ZodIssue, node: FilterNode): string {
  const field = issue.path[0];
  const record = node as unknown as Record<string, unknown>;
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    const kind = Object.hasOwn(KIND, node.type) ? KIND[node.type] : "This item";
    return `${kind} has ${issue.keys.length === 1 ? "a field" : "fields"} the service does not know (${keys}); remove ${issue.keys.length === 1 ? "it" : "them"}.`;
  }
  if (field === "type") return "This item is of an unknown kind; delete it.";
  switch (node.type) {
    case "condition":
      if (
        field === "column" ||
        field === "operator" ||
        field === "value" ||
        field === "value2" ||
        field === "valueList"
      )
        return conditionIssue(issue, node, field);
      break;
    case "semantic":
      if (field === "text")
        return typeof record.text === "string"
          ? node.on === "company"
            ? "Describe the kind of company."
            : "Enter a job title."
          : "Enter a text.";
      if (field === "on") return "Choose job title or company.";
      break;
    case "lookalike":
      if (field === undefined) return "Name the company: its domain, its name or its company ID.";
      if (field === "domain" || field === "rbidOrg") return "Enter a company domain or company ID as text.";
      break;
    case "group":
      if (field === "op") return "Choose AND or OR for this group.";
      if (field === "children") return "This group's items are unreadable.";
      break;
  }
  switch (field) {
    case "maxDistance":
      return typeof record.maxDistance === "number"
        ? "Enter a distance between 0 and 2."
        : "Enter a number for the distance.";
    case "match":
      return "Choose a match level.";
    case "joinWithPrevious":
      return "Choose AND or OR to join this to the item before it.";
    case "negate":
      return "NOT must be on or off.";
    case "id":
      return "This item's id is not readable.";
    default:
      return "This part of the filter is not valid.";
  }
}

function conditionIssue(
  issue: z.core.$ZodIssue,
  node: Extract<FilterNode, { type: "condition" }>,
  field: "column" | "operator" | "value" | "value2" | "valueList",
): string {
  const column = typeof node.column === "string" ? getColumn(node.column) : undefined;
  switch (field) {
    case "column":
      if (typeof node.column !== "string" || node.column.trim() === "") return "Choose a column.";
      return `There is no column "${node.column}"; choose another.`;
    case "operator": {
      if (!column || !Object.hasOwn(OPERATOR_READS, node.operator)) return "Choose a comparison.";
      if (column.maskedAs) return `${column.label} can only be checked for being known or empty.`;
      const allowed = operatorsFor(column).map((op) => `"${OPERATOR_LABELS[op]}"`);
      return `${column.label} cannot use "${OPERATOR_LABELS[node.operator]}"; choose ${allowed.join(", ")}.`;
    }
    case "value":
    case "value2": {
      const range = OPERATOR_READS[node.operator] === "range";
      const which = range ? (field === "value" ? " for the lower end" : " for the upper end") : "";
      const missing =
        node[field] === undefined ||
        node[field] === null ||
        (issue.code === "custom" && (issue.params as { type?: string } | undefined)?.type === "missing");
      if (column?.type === "integer") return `Enter a whole number${which}.`;
      if (missing) return range ? `Enter a value${which}.` : "Enter a value.";
      return `Enter text${which}.`;
    }
    case "valueList": {
      const list = node.valueList;
      if (Array.isArray(list) && list.length > VALUE_LIST_MAX)
        return `Enter at most ${formatNumber(VALUE_LIST_MAX)} values.`;
      if (Array.isArray(list) && list.some((v) => typeof v !== "string")) return "Enter the values as text.";
      return "Enter at least one value.";
    }
  }
}

/** One node's own reasons (a group's children are nodes of their own), said or not. */
export function nodeProblems(node: FilterNode): readonly string[] {
  return reasonsOf(node, false);
}

/** Reasons that only say a rule is not filled in yet (no value typed), not that it is wrong. */
export function isUnfinishedOnly(reasons: readonly string[] | undefined): boolean {
  return (
    reasons !== undefined &&
    reasons.length > 0 &&
    reasons.every((r) => r === ENTER_VALUE || r === ENTER_VALUES)
  );
}

/** The part of an audience that can be counted now, and what was left out of it. */
export interface CountablePart {
  /** The tree without its unfinished and broken items (groups left empty by that go too). */
  tree: GroupNode;
  /** Rules not filled in yet. */
  unfinished: number;
  /** Items with a problem, each with its first reason, in document order. */
  broken: { key: string; path: Path; message: string }[];
}

/**
 * What the count, the insights and the sample show while the audience is being edited: every item
 * that has a problem is left out (an unfinished rule is not wrong yet, a broken one is marked in
 * place) and the rest is counted, so a blank new rule keeps the count of what was there before and
 * one bad item does not sink the whole audience. Null when the top level itself has a problem.
 * Purchases never use this: they need the whole audience, finished.
 */
export function countablePart(tree: GroupNode, problems: Problems): CountablePart | null {
  if (problems.size === 0) return { tree, unfinished: 0, broken: [] };
  if (problems.has(keyOf(tree, []))) return null;
  const part: CountablePart = { tree, unfinished: 0, broken: [] };
  const keep = (node: FilterNode, path: Path): FilterNode | null => {
    const reasons = problems.get(keyOf(node, path));
    if (reasons && reasons.length > 0) {
      if (isUnfinishedOnly(reasons)) part.unfinished++;
      else part.broken.push({ key: keyOf(node, path), path, message: reasons[0]! });
      return null;
    }
    if (node.type !== "group" || !Array.isArray(node.children)) return node;
    const children = node.children.flatMap((child, i) => {
      const kept = keep(child, [...path, i]);
      return kept === null ? [] : [kept];
    });
    if (children.length === node.children.length && children.every((c, i) => c === node.children[i]))
      return node;
    // A group emptied by what was left out says nothing: it goes too (not at the top).
    if (children.length === 0 && path.length > 0) return null;
    return { ...node, children };
  };
  part.tree = toRequestFilter(keep(tree, []) as GroupNode);
  return part;
}

/** The first node with a problem, in document order, with its first reason. */
export function firstProblem(
  tree: GroupNode,
  problems: Problems,
): { id: string; path: Path; message: string } | undefined {
  if (problems.size === 0 || tree === null || typeof tree !== "object") return undefined;
  let found: { id: string; path: Path; message: string } | undefined;
  walk(tree, (node, path) => {
    if (found) return;
    const key = keyOf(node, path);
    const reasons = problems.get(key);
    if (reasons && reasons.length > 0) found = { id: key, path, message: reasons[0]! };
  });
  return found;
}

/**
 * What is sent upstream: the same tree (ids may stay, the contract allows them) without what the
 * service ignores anyway: a connector on a first child, and operands the operator does not read
 * (a `value` left over after switching to `in`, ...). Untouched subtrees are shared.
 */
export function toRequestFilter(tree: GroupNode): GroupNode {
  return clean(tree, true) as GroupNode;
}

function clean(node: FilterNode, first: boolean): FilterNode {
  if (!isObject(node)) return node;
  let out: Record<string, unknown> = node as unknown as Record<string, unknown>;
  const drop = (key: string) => {
    if (!Object.hasOwn(out, key)) return;
    if (out === (node as unknown)) out = { ...out };
    delete out[key];
  };
  if (first) drop("joinWithPrevious");
  if (node.type === "condition") {
    if (Object.hasOwn(OPERATOR_READS, node.operator)) {
      const reads = OPERATOR_READS[node.operator];
      if (reads !== "value" && reads !== "range") drop("value");
      if (reads !== "range") drop("value2");
      if (reads !== "list") drop("valueList");
    }
  } else if (node.type === "group" && Array.isArray(node.children)) {
    let changed = false;
    const children = node.children.map((child, i) => {
      const cleaned = clean(child, i === 0);
      if (cleaned !== child) changed = true;
      return cleaned;
    });
    if (changed) {
      if (out === (node as unknown)) out = { ...out };
      out.children = children;
    }
  }
  return out as unknown as FilterNode;
}
