import type { OpResult } from "../../../../src/app/lib/filter/tree";
import type {
  ConditionNode,
  FilterNode,
  GroupNode,
  LookalikeNode,
  SemanticNode,
} from "../../../../src/contract/filter";
import { strictFilterSchemas } from "../../../../src/contract/filter";

/** A valid text condition with a readable id. */
export function cond(id: string, extra: Partial<ConditionNode> = {}): ConditionNode {
  return { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: id, id, ...extra };
}

export function group(id: string, children: FilterNode[], extra: Partial<GroupNode> = {}): GroupNode {
  return { type: "group", op: "AND", negate: false, children, id, ...extra };
}

export function sem(id: string, extra: Partial<SemanticNode> = {}): SemanticNode {
  return { type: "semantic", on: "title", text: "Marketing Manager", negate: false, id, ...extra };
}

export function look(id: string, extra: Partial<LookalikeNode> = {}): LookalikeNode {
  return { type: "lookalike", domain: "acme.com", rbidOrg: "", negate: false, id, ...extra };
}

/** The tree of a successful result (fails the test otherwise). */
export function okTree(result: OpResult): GroupNode {
  if (!result.ok) throw new Error(`expected ok, got error: ${result.error}`);
  return result.tree;
}

/** The error of a failed result (fails the test otherwise). */
export function errorOf(result: OpResult): string {
  if (result.ok) throw new Error("expected an error, got ok");
  return result.error;
}

/** Ids in document order, groups as `id(...)`: a compact picture of a tree's shape. */
export function shape(node: FilterNode): string {
  const join = node.joinWithPrevious ? `${node.joinWithPrevious.toLowerCase()}:` : "";
  const neg = "negate" in node && node.negate ? "!" : "";
  if (node.type === "group")
    return `${join}${neg}${node.id}${node.op === "OR" ? "|" : ""}(${node.children.map(shape).join(" ")})`;
  return `${join}${neg}${node.id}`;
}

/** A chain of `depth` nested groups (root included), the innermost holding one condition. */
export function deepTree(depth: number): GroupNode {
  let node: GroupNode = group(`g${depth - 1}`, [cond("leaf")]);
  for (let i = depth - 2; i >= 0; i--) node = group(i === 0 ? "root" : `g${i}`, [node]);
  return node;
}

/**
 * A condition whose operand is still blank, or a range whose ends are swapped: the contract accepts
 * it, but the editor does not send it (restated here from the rule, not imported from validate.ts).
 */
export function hasBlankValue(tree: unknown): boolean {
  const blank = (v: unknown) => typeof v === "string" && v.trim() === "";
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | null;
    if (!node || typeof node !== "object") continue;
    if (Array.isArray(node.children)) stack.push(...node.children);
    if (node.type !== "condition") continue;
    const op = node.operator;
    if (
      ["eq", "ne", "gt", "gte", "lt", "lte", "contains", "startsWith", "endsWith"].includes(op as string) &&
      blank(node.value)
    )
      return true;
    if (op === "between" && (blank(node.value) || blank(node.value2))) return true;
    // Ends in the wrong order match nobody: the editor holds such a range back too.
    if (op === "between" && Number(node.value) > Number(node.value2)) return true;
    if ((op === "in" || op === "notIn") && Array.isArray(node.valueList) && node.valueList.every(blank))
      return true;
  }
  return false;
}

/** What the editor sends: accepted by the strict contract, and no rule left blank. */
export function sendable(tree: unknown): boolean {
  return strictFilterSchemas.root.safeParse(tree).success && !hasBlankValue(tree);
}
