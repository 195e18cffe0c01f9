import { getColumn } from "../../contract/columns";
import type {
  ConditionNode,
  FilterNode,
  GroupNode,
  JoinOp,
  LookalikeNode,
  SemanticNode,
} from "../../contract/filter";
import type { SqlBuilder } from "../db";

/**
 * Compiles a validated filter tree into a SQL boolean expression over `contacts`, with every value
 * bound as a parameter. Semantics (INFERRED-CONTRACT.md, "Filter semantics"):
 * - every leaf is made two-valued (NULL counts as no match), so NOT is the exact complement and
 *   count(A) + count(NOT A) = count(all);
 * - a child's `joinWithPrevious` overrides its group's `op`; AND binds tighter than OR;
 * - text comparisons ignore case. Categorical (ENUM) columns are matched against their small
 *   dictionary here, in JS, and become `IN (...)` on the ENUM column, which DuckDB scans fast.
 */

/** Values a semantic or lookalike node matched, with their distances (0 for exact). */
export interface Resolved {
  /** `title`: JOB_TITLE_PER values; `org`: company org_idx values. */
  kind: "title" | "org";
  distances: Map<string | number, number>;
}

export interface CompileContext {
  /** Distinct values of each ENUM column, as stored. */
  dictionaries: ReadonlyMap<string, readonly string[]>;
  /** What each semantic and lookalike node matched, resolved beforehand (see resolveNodes). */
  resolved: ReadonlyMap<SemanticNode | LookalikeNode, Resolved>;
}

export interface Compiled {
  where: string;
  /** Matches of semantic/lookalike nodes not under a negation: the sources of a row's score. */
  scoreSources: Resolved[];
}

/** Above this many values a list is passed as one LIST parameter and joined, not as placeholders. */
const INLINE_LIST_MAX = 64;

export function compileFilter(
  filter: GroupNode | null | undefined,
  sql: SqlBuilder,
  ctx: CompileContext,
): Compiled {
  const scoreSources: Resolved[] = [];
  if (!filter) return { where: "TRUE", scoreSources };
  const where = group(filter, sql, ctx, scoreSources, true);
  return { where, scoreSources };
}

function group(
  node: GroupNode,
  sql: SqlBuilder,
  ctx: CompileContext,
  scores: Resolved[],
  positive: boolean,
): string {
  const here = positive && !node.negate;
  const children = node.children ?? [];
  if (children.length === 0) return node.negate ? "FALSE" : "TRUE";
  // OR-separated runs of ANDs: AND binds tighter.
  const runs: string[][] = [[]];
  children.forEach((child, i) => {
    const connector: JoinOp = i === 0 ? "AND" : (child.joinWithPrevious ?? node.op ?? "AND");
    if (connector === "OR") runs.push([]);
    runs.at(-1)!.push(compileNode(child, sql, ctx, scores, here));
  });
  const body = runs.map((run) => (run.length === 1 ? run[0]! : `(${run.join(" AND ")})`)).join(" OR ");
  const wrapped = runs.length === 1 && runs[0]!.length === 1 ? body : `(${body})`;
  return node.negate ? `(NOT ${wrapped})` : wrapped;
}

function compileNode(
  node: FilterNode,
  sql: SqlBuilder,
  ctx: CompileContext,
  scores: Resolved[],
  positive: boolean,
) {
  switch (node.type) {
    case "group":
      return group(node, sql, ctx, scores, positive);
    case "condition":
      return condition(node, sql, ctx);
    case "semantic":
    case "lookalike": {
      const resolved = ctx.resolved.get(node);
      if (!resolved) throw new Error("semantic node was not resolved before compiling");
      if (positive && !node.negate) scores.push(resolved);
      const column = resolved.kind === "title" ? '"JOB_TITLE_PER"' : "org_idx";
      const match = inValues(column, [...resolved.distances.keys()], sql);
      return node.negate ? `(NOT ${match})` : match;
    }
  }
}

/** `column IN (values)`, two-valued; FALSE for no values. */
function inValues(column: string, values: readonly (string | number)[], sql: SqlBuilder): string {
  if (values.length === 0) return "FALSE";
  if (values.length <= INLINE_LIST_MAX) return `coalesce(${column} IN (${sql.list(values)}), FALSE)`;
  // A long list becomes a semi-join on an unnested LIST parameter: one bind, hashed once.
  const isNumber = typeof values[0] === "number";
  const list = sql.param(JSON.stringify(values));
  const type = isNumber ? "BIGINT[]" : "VARCHAR[]";
  return `coalesce(${column} IN (SELECT unnest(CAST(json(${list}) AS ${type}))), FALSE)`;
}

function notInValues(column: string, values: readonly (string | number)[], sql: SqlBuilder): string {
  if (values.length === 0) return `(${column} IS NOT NULL)`;
  return `(${column} IS NOT NULL AND NOT ${inValues(column, values, sql)})`;
}

function condition(node: ConditionNode, sql: SqlBuilder, ctx: CompileContext): string {
  const column = getColumn(node.column);
  if (!column) throw new Error(`unknown column ${node.column} reached the compiler`);
  const col = `"${column.name}"`;
  const op = node.operator;
  if (op === "isNull") return `(${col} IS NULL)`;
  if (op === "isNotNull") return `(${col} IS NOT NULL)`;

  if (column.type === "integer") {
    const num = (v: unknown) => sql.param(Number(v));
    switch (op) {
      case "eq":
        return `coalesce(${col} = ${num(node.value)}, FALSE)`;
      case "ne":
        return `coalesce(${col} <> ${num(node.value)}, FALSE)`;
      case "gt":
        return `coalesce(${col} > ${num(node.value)}, FALSE)`;
      case "gte":
        return `coalesce(${col} >= ${num(node.value)}, FALSE)`;
      case "lt":
        return `coalesce(${col} < ${num(node.value)}, FALSE)`;
      case "lte":
        return `coalesce(${col} <= ${num(node.value)}, FALSE)`;
      case "between":
        return `coalesce(${col} BETWEEN ${num(node.value)} AND ${num(node.value2)}, FALSE)`;
      case "in":
        return inValues(col, (node.valueList ?? []).map(Number), sql);
      case "notIn":
        return notInValues(col, (node.valueList ?? []).map(Number), sql);
      default:
        throw new Error(`operator ${op} on an integer column reached the compiler`);
    }
  }

  const dictionary = ctx.dictionaries.get(column.name);
  if (dictionary) return enumCondition(node, col, dictionary, sql);

  // Free text: ILIKE with the value escaped into a pattern (still a parameter).
  const value = String(node.value ?? "");
  const like = (pattern: string) => `coalesce(${col} ILIKE ${sql.param(pattern)} ESCAPE '\\', FALSE)`;
  switch (op) {
    case "eq":
      return like(escapeLike(value));
    case "ne":
      return `(${col} IS NOT NULL AND NOT ${like(escapeLike(value))})`;
    case "contains":
      return like(`%${escapeLike(value)}%`);
    case "startsWith":
      return like(`${escapeLike(value)}%`);
    case "endsWith":
      return like(`%${escapeLike(value)}`);
    case "in":
      return inValues(`lower(${col})`, lowerUnique(node.valueList), sql);
    case "notIn":
      return notInValues(`lower(${col})`, lowerUnique(node.valueList), sql);
    default:
      throw new Error(`operator ${op} on a text column reached the compiler`);
  }
}

/** Matches the value against the column's dictionary, case-insensitively, then tests membership. */
function enumCondition(node: ConditionNode, col: string, dictionary: readonly string[], sql: SqlBuilder) {
  const value = String(node.value ?? "").toLowerCase();
  const pick = (test: (entry: string) => boolean) => dictionary.filter((entry) => test(entry.toLowerCase()));
  switch (node.operator) {
    case "eq":
      return inValues(
        col,
        pick((e) => e === value),
        sql,
      );
    case "ne":
      return notInValues(
        col,
        pick((e) => e === value),
        sql,
      );
    case "contains":
      return inValues(
        col,
        pick((e) => e.includes(value)),
        sql,
      );
    case "startsWith":
      return inValues(
        col,
        pick((e) => e.startsWith(value)),
        sql,
      );
    case "endsWith":
      return inValues(
        col,
        pick((e) => e.endsWith(value)),
        sql,
      );
    case "in": {
      const wanted = new Set(lowerUnique(node.valueList));
      return inValues(
        col,
        pick((e) => wanted.has(e)),
        sql,
      );
    }
    case "notIn": {
      const wanted = new Set(lowerUnique(node.valueList));
      return notInValues(
        col,
        pick((e) => wanted.has(e)),
        sql,
      );
    }
    default:
      throw new Error(`operator ${node.operator} on a text column reached the compiler`);
  }
}

function lowerUnique(list: readonly string[] | null | undefined): string[] {
  return [...new Set((list ?? []).map((v) => v.toLowerCase()))];
}

/** Escapes LIKE's wildcards so the user's text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Every semantic and lookalike node of a tree, for resolving before compiling. */
export function semanticNodes(
  filter: GroupNode | null | undefined,
): { node: SemanticNode | LookalikeNode; path: (string | number)[] }[] {
  const found: { node: SemanticNode | LookalikeNode; path: (string | number)[] }[] = [];
  const walk = (node: FilterNode, path: (string | number)[]) => {
    if (node.type === "group") {
      for (const [i, child] of node.children.entries()) walk(child, [...path, "children", i]);
    } else if (node.type === "semantic" || node.type === "lookalike") found.push({ node, path });
  };
  if (filter) walk(filter, []);
  return found;
}
