/**
 * The filter tree as the editor edits it: pure, immutable operations addressed by paths (child
 * indexes from the root group), in the manner of react-querybuilder's core. No operation throws:
 * each answers an `OpResult`, and on failure hands back the input tree unchanged with a reason a
 * person can read. Operations copy only the nodes along the changed path, so untouched subtrees keep
 * their identity (React.memo, per-node validation caches).
 *
 * Connectors (`joinWithPrevious`): a node's connector joins it to the sibling before it and is
 * ignored on a first child. The operations keep first children free of one where they decide where
 * a node lands (add, remove, indent, outdent, wrap, unwrap, negate, move up / down). `moveNode` is a
 * pure permutation that carries each node's own connector with it, so that moving a node back
 * restores the tree exactly; a connector it leaves on a first child is ignored by the service, and
 * `toRequestFilter` (validate.ts) drops it.
 */
import { getColumn, operatorsFor } from "../../../contract/columns";
import type {
  ConditionNode,
  FilterNode,
  GroupNode,
  JoinOp,
  LookalikeNode,
  NodeType,
  SemanticNode,
} from "../../../contract/filter";
import {
  andsEverything,
  isOptionalField,
  NODE_FIELDS,
  nodeDefaults,
  nodeFieldSchema,
  withoutJoin,
} from "../../../contract/filter";
import { MATCH_LEVELS, MAX_FILTER_DEPTH, OPERATOR_READS, OPERATORS } from "../../../contract/inferred";

export type { ConditionNode, FilterNode, GroupNode, JoinOp, LookalikeNode, SemanticNode };

/** Child indexes from the root group; `[]` is the root. */
export type Path = readonly number[];
export type OpResult =
  | { ok: true; tree: GroupNode; focus?: Path }
  | { ok: false; tree: GroupNode; error: string };

export const DEFAULT_CONDITION_COLUMN = "COUNTRY_NAME_PER";

// ---------------------------------------------------------------------------------------------
// Ids and new nodes
// ---------------------------------------------------------------------------------------------

const ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * A short unique id (14 characters, about 83 random bits). Uses `crypto.getRandomValues`, which,
 * unlike `crypto.randomUUID`, also exists on pages served over plain http (a LAN address).
 */
export function newId(): string {
  const bytes = new Uint8Array(14);
  const cryptoApi = (globalThis as { crypto?: Crypto }).crypto;
  if (cryptoApi?.getRandomValues) cryptoApi.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  let id = "";
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

/**
 * Every node gets an id: a node keeps its id when it is a non-empty string not already used
 * earlier in the tree (document order); otherwise it gets a fresh one, so ids are unique. Fields
 * the types require but a client may leave out (the schema's defaults: a group's `op`, `negate`,
 * `children`; a semantic node's `text`; ...) are filled in with those defaults, which changes
 * nothing the service sees. Subtrees that need no change are returned as they are.
 */
export function withIds(tree: GroupNode): GroupNode {
  const seen = new Set<string>();
  return assignIds(tree, seen) as GroupNode;
}

function assignIds(node: FilterNode, seen: Set<string>): FilterNode {
  if (node === null || typeof node !== "object") return node;
  let out: FilterNode = node;
  const set = (key: string, value: unknown) => {
    if (out === node) out = { ...node } as FilterNode;
    (out as unknown as Record<string, unknown>)[key] = value;
  };
  const id = node.id;
  if (typeof id === "string" && id !== "" && !seen.has(id)) seen.add(id);
  else {
    const fresh = newId();
    seen.add(fresh);
    set("id", fresh);
  }
  if (isNodeType(node.type))
    for (const [key, value] of Object.entries(nodeDefaults(node.type)))
      if ((node as unknown as Record<string, unknown>)[key] === undefined) set(key, value);
  if (node.type === "group") {
    const children = (out as GroupNode).children;
    if (Array.isArray(children)) {
      let changed = false;
      const next = children.map((child) => {
        const updated = assignIds(child, seen);
        if (updated !== child) changed = true;
        return updated;
      });
      if (changed) set("children", next);
    }
  }
  return out;
}

/** A fresh, empty root: matches everyone. */
export function emptyTree(): GroupNode {
  return { type: "group", op: "AND", negate: false, children: [] };
}

/** True for a root that filters nothing (no rules, not negated). */
export function isEmptyTree(tree: GroupNode): boolean {
  return childrenOf(tree).length === 0 && !tree.negate;
}

/**
 * A new condition: on `column` (default `COUNTRY_NAME_PER`), operator `eq`, value `""`. On a column
 * that does not allow `eq` (a masked one) the first operator it allows, with no value when that
 * operator reads none.
 */
export function newCondition(column: string = DEFAULT_CONDITION_COLUMN): ConditionNode {
  const known = getColumn(column);
  const allowed = known ? operatorsFor(known) : OPERATORS;
  const operator = allowed.includes("eq") ? "eq" : (allowed[0] ?? "eq");
  const node: ConditionNode = { type: "condition", column, operator, id: newId() };
  if (OPERATOR_READS[operator] !== "none") node.value = "";
  return node;
}

/** A new group holding one new condition. */
export function newGroup(op: JoinOp = "AND"): GroupNode {
  return { type: "group", op, negate: false, children: [newCondition()], id: newId() };
}

export function newSemantic(on: "title" | "company"): SemanticNode {
  return { type: "semantic", on, text: "", match: "similar", negate: false, id: newId() };
}

export function newLookalike(): LookalikeNode {
  return { type: "lookalike", domain: "", rbidOrg: "", match: "similar", negate: false, id: newId() };
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** A group's children, whatever the input (a client may leave `children` out). */
export function childrenOf(group: GroupNode): readonly FilterNode[] {
  return Array.isArray(group.children) ? group.children : [];
}

function isGroup(node: FilterNode | undefined): node is GroupNode {
  return node !== null && typeof node === "object" && node.type === "group";
}

export function nodeAt(tree: GroupNode, path: Path): FilterNode | undefined {
  let node: FilterNode | undefined = tree;
  for (const index of path) {
    if (!isGroup(node) || !Number.isInteger(index) || index < 0) return undefined;
    node = childrenOf(node)[index];
  }
  return node ?? undefined;
}

/** Index of the ids of a tree, built once per tree object. */
const idIndexes = new WeakMap<GroupNode, Map<string, Path>>();

function idIndex(tree: GroupNode): Map<string, Path> {
  let index = idIndexes.get(tree);
  if (!index) {
    const built = new Map<string, Path>();
    walk(tree, (node, path) => {
      if (typeof node.id === "string" && !built.has(node.id)) built.set(node.id, path);
    });
    index = built;
    idIndexes.set(tree, index);
  }
  return index;
}

export function pathOfId(tree: GroupNode, id: string): Path | undefined {
  if (tree === null || typeof tree !== "object") return undefined;
  return idIndex(tree).get(id);
}

/** Visits every node in document order (root first, then depth first), with its path. */
export function walk(tree: GroupNode, visit: (node: FilterNode, path: Path) => void): void {
  const stack: [FilterNode, Path][] = [[tree, []]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    visit(node, path);
    if (node.type === "group") {
      const children = childrenOf(node);
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, [...path, i]]);
    }
  }
}

/**
 * How deep the tree nests, as the contract counts it (`filterDepth`): the root is level 1 and every
 * node, a condition included, one level below its parent.
 */
export function depthOf(tree: GroupNode): number {
  return heightOf(tree);
}

/** Levels a subtree spans: 1 for a leaf or an empty group. Iterative: no recursion to exhaust. */
function heightOf(node: FilterNode): number {
  let deepest = 0;
  const stack: [FilterNode, number][] = [[node, 1]];
  while (stack.length > 0) {
    const [here, depth] = stack.pop()!;
    if (here === null || typeof here !== "object") continue;
    if (depth > deepest) deepest = depth;
    if (here.type === "group") for (const child of childrenOf(here)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** An error when a subtree of height `height` whose root sits at `level` would nest too deep. */
function depthError(level: number, height: number): string | undefined {
  const depth = level + height - 1;
  if (depth <= MAX_FILTER_DEPTH) return undefined;
  return `That would nest the filter ${depth} levels deep; at most ${MAX_FILTER_DEPTH} are allowed.`;
}

// ---------------------------------------------------------------------------------------------
// Building blocks (all copy along the path only)
// ---------------------------------------------------------------------------------------------

const fail = (tree: GroupNode, error: string): OpResult => ({ ok: false, tree, error });
const done = (tree: GroupNode, focus?: Path): OpResult =>
  focus === undefined ? { ok: true, tree } : { ok: true, tree, focus };

const NOTHING_THERE = "There is nothing at that position in the filter.";
const ROOT_GROUP = "the top-level group";

/** Replaces the children of the group at `groupPath` (assumed to exist). */
function withChildren(node: GroupNode, groupPath: Path, children: FilterNode[], at = 0): GroupNode {
  if (at === groupPath.length) return { ...node, children };
  const index = groupPath[at]!;
  const copy = childrenOf(node).slice();
  copy[index] = withChildren(copy[index] as GroupNode, groupPath, children, at + 1);
  return { ...node, children: copy };
}

/** Replaces the node at a non-empty `path` (assumed to exist) by `nodes` (none, one or several). */
function spliceAt(tree: GroupNode, path: Path, nodes: FilterNode[]): GroupNode {
  const parentPath = path.slice(0, -1);
  const index = path[path.length - 1]!;
  const parent = nodeAt(tree, parentPath) as GroupNode;
  const children = childrenOf(parent).slice();
  children.splice(index, 1, ...nodes);
  return withChildren(tree, parentPath, children);
}

function replaceAt(tree: GroupNode, path: Path, node: FilterNode): GroupNode {
  if (path.length === 0) return node as GroupNode;
  return spliceAt(tree, path, [node]);
}

/** The node with connector `join` (none when null or undefined); the same object when unchanged. */
function withJoin<T extends FilterNode>(node: T, join: JoinOp | null | undefined): T {
  if (join === null || join === undefined) return withoutJoin(node);
  if (node.joinWithPrevious === join) return node;
  return { ...node, joinWithPrevious: join };
}

interface Located {
  node: FilterNode;
  parent: GroupNode;
  parentPath: Path;
  index: number;
}

/** The node at a non-root path with its parent, or an error. */
function locate(tree: GroupNode, path: Path, what: string): Located | string {
  if (!Array.isArray(path)) return NOTHING_THERE;
  if (path.length === 0) return `${capitalise(ROOT_GROUP)} cannot be ${what}.`;
  const parentPath = path.slice(0, -1);
  const parent = nodeAt(tree, parentPath);
  const index = path[path.length - 1]!;
  if (!isGroup(parent)) return NOTHING_THERE;
  const node = Number.isInteger(index) && index >= 0 ? childrenOf(parent)[index] : undefined;
  if (node === undefined || node === null || typeof node !== "object") return NOTHING_THERE;
  return { node, parent, parentPath, index };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isNodeType(type: unknown): type is NodeType {
  return typeof type === "string" && Object.hasOwn(NODE_FIELDS, type);
}

function isFilterNode(value: unknown): value is FilterNode {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    isNodeType((value as { type?: unknown }).type)
  );
}

/** A deep copy in which every node has a fresh id. */
function copyWithFreshIds(node: FilterNode): FilterNode {
  if (node.type === "group")
    return { ...node, id: newId(), children: childrenOf(node).map(copyWithFreshIds) };
  return { ...node, id: newId() };
}

/** The subtree with fresh ids wherever one is missing or already used in `tree` (or earlier in it). */
function freshenIds(tree: GroupNode, node: FilterNode): FilterNode {
  const used = idIndex(tree);
  const seen = new Set<string>();
  const visit = (here: FilterNode): FilterNode => {
    let out = here;
    const id = here.id;
    if (typeof id !== "string" || id === "" || used.has(id) || seen.has(id)) {
      const fresh = newId();
      seen.add(fresh);
      out = { ...here, id: fresh };
    } else seen.add(id);
    if (out.type === "group" && Array.isArray(out.children)) {
      let changed = false;
      const next = out.children.map((child) => {
        const updated = isFilterNode(child) ? visit(child) : child;
        if (updated !== child) changed = true;
        return updated;
      });
      if (changed) out = { ...out, children: next };
    }
    return out;
  };
  return visit(node);
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/**
 * Adds `node` to the group at `parent`, at `index` (default: at the end). Ids the node lacks, or
 * that the tree already uses, are replaced by fresh ones. A node added first loses its connector.
 * Focus: the new node.
 */
export function addNode(tree: GroupNode, parent: Path, node: FilterNode, index?: number): OpResult {
  if (!Array.isArray(parent)) return fail(tree, NOTHING_THERE);
  const group = nodeAt(tree, parent);
  if (group === undefined) return fail(tree, NOTHING_THERE);
  if (!isGroup(group)) return fail(tree, "Items can only be added to a group.");
  if (!isFilterNode(node)) return fail(tree, "That is not something a filter can hold.");
  const children = childrenOf(group);
  const at = index ?? children.length;
  if (!Number.isInteger(at) || at < 0 || at > children.length)
    return fail(tree, `Position ${at} is outside the group, which holds ${children.length} items.`);
  const tooDeep = depthError(parent.length + 2, heightOf(node));
  if (tooDeep) return fail(tree, tooDeep);
  let added = freshenIds(tree, node);
  if (at === 0) added = withoutJoin(added);
  const next = children.slice();
  next.splice(at, 0, added);
  return done(withChildren(tree, parent, next), [...parent, at]);
}

/**
 * Removes the node at `path` (never the root). When it was a first child, its successor becomes
 * first and drops its connector. Focus: the successor, else the previous sibling, else the parent.
 */
export function removeNode(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "removed");
  if (typeof here === "string") return fail(tree, here);
  const { parent, parentPath, index } = here;
  const children = childrenOf(parent).slice();
  children.splice(index, 1);
  if (index === 0 && children[0]) children[0] = withoutJoin(children[0]);
  const focus =
    index < children.length ? [...parentPath, index] : index > 0 ? [...parentPath, index - 1] : parentPath;
  return done(withChildren(tree, parentPath, children), focus);
}

/** A deep copy of the node at `path`, with fresh ids, inserted right after it. Focus: the copy. */
export function duplicateNode(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "duplicated");
  if (typeof here === "string") return fail(tree, here);
  const { node, parent, parentPath, index } = here;
  const children = childrenOf(parent).slice();
  children.splice(index + 1, 0, copyWithFreshIds(node));
  return done(withChildren(tree, parentPath, children), [...parentPath, index + 1]);
}

const KIND_NAMES: Record<FilterNode["type"], string> = {
  condition: "A condition",
  group: "A group",
  semantic: "A similarity match",
  lookalike: "A lookalike match",
};

/**
 * What a field may hold, in words, for a refused update. Whether a value fits is the field's own
 * schema's answer (`nodeFieldSchema`), so that an update never leaves the tree outside its types.
 */
const isJoin = (v: unknown) => v === "AND" || v === "OR";

const EXPECTED: Record<string, string> = {
  column: "a column name",
  operator: "a known comparison",
  value: "a text, a number, true, false or nothing",
  value2: "a text, a number, true, false or nothing",
  valueList: "a list of texts",
  joinWithPrevious: "AND, OR or nothing",
  op: "AND or OR",
  negate: "true or false",
  on: "title or company",
  text: "a text",
  rbidOrg: "a text",
  domain: "a text",
  maxDistance: "a number from 0 to 2, or nothing",
  match: `one of ${MATCH_LEVELS.join(", ")} or nothing`,
};

/**
 * Shallow-merges `patch` into the node at `path`. A field set to `undefined` is removed. `type`,
 * `id` and `children` cannot change through it (passing their current value is allowed); fields the
 * node's kind does not have, values of the wrong type and removing a required field are refused.
 * An update that changes nothing answers the same tree object. Focus: the node.
 */
export function updateNode(tree: GroupNode, path: Path, patch: Record<string, unknown>): OpResult {
  if (!Array.isArray(path)) return fail(tree, NOTHING_THERE);
  const node = nodeAt(tree, path);
  if (!isFilterNode(node)) return fail(tree, NOTHING_THERE);
  if (patch === null || typeof patch !== "object") return fail(tree, "Nothing to update.");
  const current = node as unknown as Record<string, unknown>;
  let next: Record<string, unknown> | undefined;
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (key === "type" || key === "id" || key === "children") {
      if (value === current[key]) continue;
      if (key === "type") return fail(tree, "The kind of an item cannot be changed; add a new one instead.");
      if (key === "id") return fail(tree, "An item's id cannot be changed.");
      return fail(tree, "A group's items change through add, remove and move, not through an update.");
    }
    const schema = nodeFieldSchema(node.type, key);
    if (!schema) return fail(tree, `${KIND_NAMES[node.type]} has no field "${key}".`);
    if (value === undefined) {
      if (!isOptionalField(node.type, key)) return fail(tree, `"${key}" cannot be removed.`);
      if (!Object.hasOwn(current, key)) continue;
      next ??= { ...current };
      delete next[key];
      continue;
    }
    if (!schema.safeParse(value).success)
      return fail(tree, `"${key}" must be ${EXPECTED[key] ?? "of the right kind"}.`);
    if (Object.is(current[key], value) && Object.hasOwn(current, key)) continue;
    next ??= { ...current };
    next[key] = value;
  }
  if (!next) return done(tree, path);
  return done(replaceAt(tree, path, next as unknown as FilterNode), path);
}

/**
 * Moves the node at `from` into the group at `toParent` (a path in the input tree), at `toIndex`
 * counted among that group's children once the node has left its place. Refuses moving a node into
 * itself or one of its descendants. Connectors travel with their nodes and are otherwise left alone
 * (see the file's header), so moving the node back restores the tree. Focus: the moved node.
 */
export function moveNode(tree: GroupNode, from: Path, toParent: Path, toIndex: number): OpResult {
  const here = locate(tree, from, "moved");
  if (typeof here === "string") return fail(tree, here);
  if (!Array.isArray(toParent)) return fail(tree, NOTHING_THERE);
  const target = nodeAt(tree, toParent);
  if (target === undefined) return fail(tree, "There is no group at the destination.");
  if (!isGroup(target)) return fail(tree, "Items can only be moved into a group.");
  if (toParent.length >= from.length && from.every((index, i) => toParent[i] === index))
    return fail(tree, "A group cannot be moved into itself or into a group inside it.");
  const { node, parentPath, index } = here;
  // Where the destination group sits once the node has left: an earlier sibling of one of its
  // ancestors (or of itself) leaving shifts that index down by one.
  const destination = toParent.slice();
  const depth = parentPath.length;
  if (
    destination.length > depth &&
    parentPath.every((p, i) => destination[i] === p) &&
    destination[depth]! > index
  )
    destination[depth] = destination[depth]! - 1;
  const sameParent =
    destination.length === parentPath.length && destination.every((p, i) => parentPath[i] === p);
  const size = childrenOf(target).length - (sameParent ? 1 : 0);
  if (!Number.isInteger(toIndex) || toIndex < 0 || toIndex > size)
    return fail(tree, `Position ${toIndex} is outside the group, which holds ${size} other items.`);
  if (sameParent && toIndex === index) return done(tree, from);
  const tooDeep = depthError(destination.length + 2, heightOf(node));
  if (tooDeep) return fail(tree, tooDeep);
  const removed = spliceAt(tree, from, []);
  const group = nodeAt(removed, destination) as GroupNode;
  const children = childrenOf(group).slice();
  children.splice(toIndex, 0, node);
  return done(withChildren(removed, destination, children), [...destination, toIndex]);
}

/**
 * Swaps the node with its previous (or next) sibling. Connectors stay between the same positions:
 * `A OR B` becomes `B OR A`, so a move up then down restores the tree. Focus: the moved node.
 */
export function moveUp(tree: GroupNode, path: Path): OpResult {
  return swap(tree, path, -1);
}

export function moveDown(tree: GroupNode, path: Path): OpResult {
  return swap(tree, path, 1);
}

function swap(tree: GroupNode, path: Path, step: -1 | 1): OpResult {
  const here = locate(tree, path, "moved");
  if (typeof here === "string") return fail(tree, here);
  const { parent, parentPath, index } = here;
  const children = childrenOf(parent).slice();
  const other = index + step;
  if (other < 0) return fail(tree, "It is already first in its group.");
  if (other >= children.length) return fail(tree, "It is already last in its group.");
  const a = children[index]!;
  const b = children[other]!;
  children[index] = withJoin(b, index === 0 ? null : a.joinWithPrevious);
  children[other] = withJoin(a, other === 0 ? null : b.joinWithPrevious);
  return done(withChildren(tree, parentPath, children), [...parentPath, other]);
}

/**
 * Indents the node: into its previous sibling when that is a group (appended at its end, keeping
 * its connector unless it lands first); otherwise wraps the previous sibling and the node into a new
 * group whose `op` is the connector that joined them, and which takes over the previous sibling's
 * connector. Refused on a first child. Focus: the node.
 */
export function indent(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "indented");
  if (typeof here === "string") return fail(tree, here);
  const { node, parent, parentPath, index } = here;
  if (index === 0) return fail(tree, "The first item of a group cannot be indented: nothing is above it.");
  const previous = childrenOf(parent)[index - 1]!;
  if (isGroup(previous)) {
    const tooDeep = depthError(path.length + 2, heightOf(node));
    if (tooDeep) return fail(tree, tooDeep);
    const inner = childrenOf(previous);
    const moved = inner.length === 0 ? withoutJoin(node) : node;
    const group: GroupNode = { ...previous, children: [...inner, moved] };
    const children = childrenOf(parent).slice();
    children.splice(index - 1, 2, group);
    return done(withChildren(tree, parentPath, children), [...parentPath, index - 1, inner.length]);
  }
  const tooDeep = depthError(path.length + 2, Math.max(heightOf(node), heightOf(previous)));
  if (tooDeep) return fail(tree, tooDeep);
  const group = withJoin<GroupNode>(
    {
      type: "group",
      op: node.joinWithPrevious ?? parent.op ?? "AND",
      negate: false,
      children: [withoutJoin(previous), withoutJoin(node)],
      id: newId(),
    },
    index - 1 === 0 ? null : previous.joinWithPrevious,
  );
  const children = childrenOf(parent).slice();
  children.splice(index - 1, 2, group);
  return done(withChildren(tree, parentPath, children), [...parentPath, index - 1, 1]);
}

/**
 * Moves the node to its grandparent, right after its parent (keeping its own connector). When it
 * was its parent's first child, the successor there drops its connector. Refused at the top level.
 * Focus: the node.
 */
export function outdent(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "outdented");
  if (typeof here === "string") return fail(tree, here);
  if (path.length < 2) return fail(tree, "It is already at the top level.");
  const { node, parent, parentPath, index } = here;
  const inner = childrenOf(parent).slice();
  inner.splice(index, 1);
  if (index === 0 && inner[0]) inner[0] = withoutJoin(inner[0]);
  const grandPath = parentPath.slice(0, -1);
  const parentIndex = parentPath[parentPath.length - 1]!;
  const grand = nodeAt(tree, grandPath) as GroupNode;
  const outer = childrenOf(grand).slice();
  outer.splice(parentIndex, 1, { ...parent, children: inner }, node);
  return done(withChildren(tree, grandPath, outer), [...grandPath, parentIndex + 1]);
}

/**
 * Replaces the node by a group (op AND, not negated) holding it; the group takes over the node's
 * connector. Focus: the new group.
 */
export function wrapInGroup(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "wrapped");
  if (typeof here === "string") return fail(tree, here);
  const tooDeep = depthError(path.length + 2, heightOf(here.node));
  if (tooDeep) return fail(tree, tooDeep);
  return done(replaceAt(tree, path, wrap(here.node, false)), path);
}

function wrap(node: FilterNode, negate: boolean): GroupNode {
  return withJoin<GroupNode>(
    { type: "group", op: "AND", negate, children: [withoutJoin(node)], id: newId() },
    node.joinWithPrevious,
  );
}

/**
 * Replaces a group by its children. The first child takes the group's connector; the others keep
 * theirs, and those without one get the group's `op` when it differs from the parent's, so the
 * connectors read as before. Refused on the root and on a negated group. Focus: the first child,
 * or what follows an empty group.
 */
export function unwrap(tree: GroupNode, path: Path): OpResult {
  const here = locate(tree, path, "ungrouped");
  if (typeof here === "string") return fail(tree, here);
  const { node, parent, parentPath, index } = here;
  if (!isGroup(node)) return fail(tree, "Only a group can be ungrouped.");
  if (node.negate)
    return fail(tree, "Remove NOT first: ungrouping a negated group would change what it means.");
  const children = childrenOf(node);
  if (children.length === 0) return removeNode(tree, path);
  const parentOp = parent.op ?? "AND";
  const op = node.op ?? "AND";
  const lifted = children.map((child, i) => {
    if (i === 0) return withJoin(child, index === 0 ? null : node.joinWithPrevious);
    if (child.joinWithPrevious == null && op !== parentOp) return withJoin(child, op);
    return child;
  });
  return done(spliceAt(tree, path, lifted), [...parentPath, index]);
}

/**
 * NOT on and off. Groups, similarity and lookalike matches flip `negate` (the root too). A
 * condition, which has no `negate`, is wrapped in a negated group; toggling again, on the condition
 * or on that group, turns a negated group holding exactly one item back into that item (it takes
 * the group's connector). Focus: the toggled item (for a wrapped condition, the condition).
 */
export function toggleNegate(tree: GroupNode, path: Path): OpResult {
  if (!Array.isArray(path)) return fail(tree, NOTHING_THERE);
  const node = nodeAt(tree, path);
  if (!isFilterNode(node)) return fail(tree, NOTHING_THERE);
  if (path.length > 0) {
    const parentPath = path.slice(0, -1);
    const parent = nodeAt(tree, parentPath) as GroupNode;
    // On the only item of a negated group (not the root): remove the NOT by unwrapping it.
    if (
      node.type === "condition" &&
      parentPath.length > 0 &&
      parent.negate &&
      childrenOf(parent).length === 1
    ) {
      const join = parentPath[parentPath.length - 1] === 0 ? null : parent.joinWithPrevious;
      return done(replaceAt(tree, parentPath, withJoin(node, join)), parentPath);
    }
    if (isGroup(node) && node.negate && childrenOf(node).length === 1) {
      const only = childrenOf(node)[0]!;
      const index = path[path.length - 1]!;
      return done(replaceAt(tree, path, withJoin(only, index === 0 ? null : node.joinWithPrevious)), path);
    }
  }
  if (node.type === "condition") {
    const tooDeep = depthError(path.length + 2, 1);
    if (tooDeep) return fail(tree, tooDeep);
    return done(replaceAt(tree, path, wrap(node, true)), [...path, 0]);
  }
  return done(replaceAt(tree, path, { ...node, negate: !node.negate }), path);
}

/** Sets a group's `op` (how its items combine where they carry no connector of their own). */
export function setGroupOp(tree: GroupNode, path: Path, op: JoinOp): OpResult {
  if (!Array.isArray(path)) return fail(tree, NOTHING_THERE);
  const node = nodeAt(tree, path);
  if (!isFilterNode(node)) return fail(tree, NOTHING_THERE);
  if (!isGroup(node)) return fail(tree, "Only a group combines items with AND or OR.");
  if (!isJoin(op)) return fail(tree, "A group combines its items with AND or OR.");
  if (node.op === op) return done(tree, path);
  return done(replaceAt(tree, path, { ...node, op }), path);
}

/**
 * Sets the connector between the node and its previous sibling; `null` removes it (the group's
 * `op` applies). Refused on a first child and on the root.
 */
export function setJoin(tree: GroupNode, path: Path, join: JoinOp | null): OpResult {
  const here = locate(tree, path, "joined to anything");
  if (typeof here === "string") return fail(tree, here);
  if (here.index === 0) return fail(tree, "The first item of a group has no connector before it.");
  if (join !== null && !isJoin(join)) return fail(tree, "A connector is AND or OR.");
  const next = withJoin(here.node, join);
  if (next === here.node) return done(tree, path);
  return done(replaceAt(tree, path, next), path);
}

/** The connector that actually applies before the child at `index` of `group` (null for the first). */
export function effectiveJoin(group: GroupNode, index: number): JoinOp | null {
  if (index <= 0) return null;
  return childrenOf(group)[index]?.joinWithPrevious ?? group.op ?? "AND";
}

// ---------------------------------------------------------------------------------------------
// Narrowing the whole audience (Insights: "add this value as a condition")
// ---------------------------------------------------------------------------------------------

/**
 * A condition that keeps exactly the people whose `column` holds `value`: `eq`, or `isNull` for
 * the "not given" value. An integer column given its value as digits (a service may send big
 * integers as text) gets it back as a number, which is what its `eq` reads.
 */
export function valueCondition(column: string, value: string | number | null): ConditionNode {
  if (value === null) return { type: "condition", column, operator: "isNull", id: newId() };
  const integer = getColumn(column)?.type === "integer";
  const typed = integer && typeof value === "string" && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  return { type: "condition", column, operator: "eq", value: typed, id: newId() };
}

/** Same column, operator and operands (a list's values too): the condition is already there. */
function sameCondition(a: FilterNode, b: ConditionNode): boolean {
  return (
    a.type === "condition" &&
    a.column === b.column &&
    a.operator === b.operator &&
    Object.is(a.value ?? null, b.value ?? null) &&
    Object.is(a.value2 ?? null, b.value2 ?? null) &&
    sameList(a.valueList, b.valueList)
  );
}

function sameList(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((value, i) => value === right[i]);
}

/**
 * `tree AND node`, so that the audience can only shrink. When the root already ANDs all its items
 * the node is appended to it (an empty root becomes AND: with no items its op meant nothing);
 * otherwise the root is wrapped, AND(root, node): appended to an OR root, or after an OR connector
 * (AND binds tighter), the node would narrow only the last branch, and under a negated root it
 * would be negated with the rest. A condition that is already one of the root's ANDed items is not
 * added twice (the same tree comes back, focus on it). Focus: the new node.
 */
export function andAtTop(tree: GroupNode, item: FilterNode): OpResult {
  if (!isFilterNode(item)) return fail(tree, "That is not something a filter can hold.");
  // Its own connector would join it by OR, or by an AND binding tighter than the root's OR.
  const node = withoutJoin(item);
  const children = childrenOf(tree);
  if (children.length === 0 && !tree.negate) {
    const root: GroupNode = tree.op === "AND" ? tree : { ...tree, op: "AND" };
    return addNode(root, [], node);
  }
  if (andsEverything(tree)) {
    if (node.type === "condition") {
      const existing = children.findIndex((child) => sameCondition(child, node));
      if (existing >= 0) return done(tree, [existing]);
    }
    // An OR root with one item ANDs everything too; `op: "AND"` changes no existing connector and
    // joins the new item by AND.
    return addNode(tree.op === "AND" ? tree : { ...tree, op: "AND" }, [], node);
  }
  const tooDeep = depthError(2, heightOf(tree));
  if (tooDeep) return fail(tree, tooDeep);
  const root: GroupNode = {
    type: "group",
    op: "AND",
    negate: false,
    children: [withoutJoin(tree)],
    id: newId(),
  };
  return addNode(root, [], node);
}

// ---------------------------------------------------------------------------------------------
// Excluding a value a match captures ("VP Marketing" without plain "Vice President")
// ---------------------------------------------------------------------------------------------

/** The condition that excludes values of `column` next to a match: `column is none of [...]`. */
function isExclusionOf(node: FilterNode | undefined, column: string): node is ConditionNode {
  return node?.type === "condition" && node.column === column && node.operator === "notIn";
}

/**
 * The match at `path` without the people whose `column` is `value`: a `notIn` condition ANDed with
 * the match alone. Beside the match when its group ANDs everything (it then narrows nothing else),
 * otherwise with the match wrapped in a group of its own, so that an OR around it is kept. A second
 * value goes into the same condition. Focus: the match.
 */
export function excludeFromMatch(tree: GroupNode, path: Path, column: string, value: string): OpResult {
  const here = locate(tree, path, "narrowed");
  if (typeof here === "string") return fail(tree, here);
  const { parent, parentPath, index } = here;
  const beside = !parent.negate && andsEverything(parent);
  if (beside) {
    const next = childrenOf(parent)[index + 1];
    if (isExclusionOf(next, column) && next.joinWithPrevious !== "OR") {
      const list = next.valueList ?? [];
      if (list.some((v) => v.toLowerCase() === value.toLowerCase())) return done(tree, path);
      return withFocus(updateNode(tree, [...parentPath, index + 1], { valueList: [...list, value] }), path);
    }
    return withFocus(addNode(tree, parentPath, exclusion(column, value), index + 1), path);
  }
  const wrapped = wrapInGroup(tree, path);
  if (!wrapped.ok) return wrapped;
  return withFocus(addNode(wrapped.tree, path, exclusion(column, value), 1), [...path, 0]);
}

/**
 * Puts back a value `excludeFromMatch` left out beside the match at `path`: it leaves the NOT
 * condition, which goes when it is the last one. Focus stays on the match.
 */
export function includeInMatch(tree: GroupNode, path: Path, column: string, value: string): OpResult {
  const here = locate(tree, path, "narrowed");
  if (typeof here === "string") return fail(tree, here);
  const { parent, parentPath, index } = here;
  const next = childrenOf(parent)[index + 1];
  if (!isExclusionOf(next, column) || next.joinWithPrevious === "OR") return done(tree, path);
  const list = next.valueList ?? [];
  const kept = list.filter((v) => v.toLowerCase() !== value.toLowerCase());
  if (kept.length === list.length) return done(tree, path);
  const nextPath = [...parentPath, index + 1];
  return withFocus(
    kept.length === 0 ? removeNode(tree, nextPath) : updateNode(tree, nextPath, { valueList: kept }),
    path,
  );
}

function exclusion(column: string, value: string): ConditionNode {
  return { type: "condition", column, operator: "notIn", valueList: [value], id: newId() };
}

function withFocus(result: OpResult, focus: Path): OpResult {
  return result.ok ? { ...result, focus } : result;
}

/** The values of `column` left out beside the match `nodeId` (see excludeFromMatch), in order. */
export function excludedBeside(tree: GroupNode, nodeId: string, column: string): readonly string[] {
  const path = pathOfId(tree, nodeId);
  if (!path || path.length === 0) return [];
  const parent = nodeAt(tree, path.slice(0, -1));
  if (!isGroup(parent)) return [];
  const next = childrenOf(parent)[path[path.length - 1]! + 1];
  return isExclusionOf(next, column) && next.joinWithPrevious !== "OR" ? (next.valueList ?? []) : [];
}
