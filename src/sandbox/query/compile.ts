import { LIST, listValue, VARCHAR } from "@duckdb/node-api";
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
 * bound as a parameter. Semantics (src/sandbox/README.md, "Filter semantics"):
 * - a row matches when the expression is TRUE. Leaves may be NULL (a NULL column), and with only
 *   AND and OR above them NULL keeps exactly the rows "NULL is no match" would; a negation is
 *   `(…) IS NOT TRUE`, the exact complement, so count(A) + count(NOT A) = count(all). (Wrapping every
 *   leaf in coalesce() instead costs DuckDB about 40% on a typical count.)
 * - a child's `joinWithPrevious` overrides its group's `op`; AND binds tighter than OR;
 * - text comparisons ignore case. Categorical (ENUM) columns are matched against their small
 *   dictionary here, in JS, and become `enum_code(column) IN (codes)`: integer compares.
 */

/** Values a semantic or lookalike node matched, with their distances (0 for exact). */
export interface Resolved {
  /** `title`: JOB_TITLE_PER values; `org`: company org_idx values. */
  kind: "title" | "org";
  distances: Map<string | number, number>;
}

/** An ENUM column's values in code order (the value at index i has enum_code i). */
export interface Dictionary {
  values: readonly string[];
  codeOf: ReadonlyMap<string, number>;
}

export function dictionary(values: readonly string[]): Dictionary {
  return { values, codeOf: new Map(values.map((v, i) => [v, i])) };
}

export interface CompileContext {
  /** The dictionary of each ENUM column. */
  dictionaries: ReadonlyMap<string, Dictionary>;
  /** What each semantic and lookalike node matched, resolved beforehand (see resolveNodes). */
  resolved: ReadonlyMap<SemanticNode | LookalikeNode, Resolved>;
  /** One past the highest company index: every org_idx is below it. */
  orgIdxLimit: number;
}

export interface Compiled {
  where: string;
  /** Matches of semantic/lookalike nodes not under a negation: the sources of a row's score. */
  scoreSources: Resolved[];
}

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
  const runs: FilterNode[][] = [[]];
  children.forEach((child, i) => {
    const connector: JoinOp = i === 0 ? "AND" : (child.joinWithPrevious ?? node.op ?? "AND");
    if (connector === "OR") runs.push([]);
    runs.at(-1)!.push(child);
  });
  const compileRun = (run: FilterNode[]) => {
    // `col notIn A AND col notIn B` is `col notIn (A + B)`: one semi-join instead of one per list
    // (an export leaving out 50,000 owned contacts sends five lists of 10,000).
    const merged = mergeLists(run, "notIn", ctx);
    const parts = merged.rest.map((child) => compileNode(child, sql, ctx, scores, here));
    for (const [column, values] of merged.lists)
      parts.push(notIn(caseless(column), inValues(caseless(column), values, sql)));
    return parts.length === 1 ? parts[0]! : `(${parts.join(" AND ")})`;
  };
  // `col in A OR col in B` (each alone between ORs) is `col in (A + B)`.
  const single = runs.filter((run) => run.length === 1).map((run) => run[0]!);
  const orMerged = mergeLists(single, "in", ctx);
  const compiled = [
    ...runs.filter((run) => run.length !== 1 || orMerged.rest.includes(run[0]!)).map(compileRun),
    ...[...orMerged.lists].map(([column, values]) => inValues(caseless(column), values, sql)),
  ];
  const body = compiled.join(" OR ");
  const wrapped = compiled.length === 1 ? body : `(${body})`;
  return node.negate ? `(${wrapped} IS NOT TRUE)` : wrapped;
}

/**
 * Of these siblings, the `operator` conditions on the same free-text column whose lists together
 * are long (above LITERAL_TEXT_MAX): their values as one list per column; the rest as they are.
 */
function mergeLists(
  nodes: FilterNode[],
  operator: "in" | "notIn",
  ctx: CompileContext,
): { lists: Map<string, string[]>; rest: FilterNode[] } {
  const byColumn = new Map<string, ConditionNode[]>();
  for (const n of nodes) {
    if (n.type !== "condition" || n.operator !== operator) continue;
    const column = getColumn(n.column);
    if (!column || column.type === "integer" || ctx.dictionaries.has(column.name)) continue;
    const col = `"${column.name}"`;
    byColumn.set(col, [...(byColumn.get(col) ?? []), n]);
  }
  const lists = new Map<string, string[]>();
  const taken = new Set<FilterNode>();
  for (const [col, conditions] of byColumn) {
    const total = conditions.reduce((sum, c) => sum + (c.valueList?.length ?? 0), 0);
    if (conditions.length < 2 || total <= LITERAL_TEXT_MAX) continue;
    lists.set(col, lowerUnique(conditions.flatMap((c) => c.valueList ?? [])));
    for (const c of conditions) taken.add(c);
  }
  return { lists, rest: nodes.filter((n) => !taken.has(n)) };
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
      const match =
        resolved.kind === "title"
          ? enumIn(
              '"JOB_TITLE_PER"',
              ctx.dictionaries.get("JOB_TITLE_PER"),
              [...resolved.distances.keys()] as string[],
              sql,
            )
          : codeIn("org_idx", [...resolved.distances.keys()] as number[], ctx.orgIdxLimit, sql);
      return node.negate ? `(${match} IS NOT TRUE)` : match;
    }
  }
}

/**
 * Above this many text values a literal list (one bound parameter per value, compared with every
 * row) costs more than a semi-join on one bound list: 5 lists of 10,000 contact ids took 5.8 s on
 * 1M rows as literals, ~75 ms as semi-joins.
 */
export const LITERAL_TEXT_MAX = 256;

const SEPARATOR = "\u001f";

/** `column IN (values)` for values the caller gave; FALSE for none. */
function inValues(column: string, values: readonly (string | number)[], sql: SqlBuilder): string {
  if (values.length === 0) return "FALSE";
  // Whole numbers (an integer column's list, which the contract admits only as whole numbers) go
  // into the SQL as literals: a safe integer prints as digits only.
  if (values.every((v) => typeof v === "number" && Number.isSafeInteger(v)))
    return `(${column} IN (${values.join(", ")}))`;
  // Short lists: bound parameters, one per value. No semi-join on an unnested list for them: under
  // DuckDB 1.5 each such query kept 2-11 KB of native memory for good (the soak's growth), and a
  // short list ran slower that way.
  if (values.length <= LITERAL_TEXT_MAX || !values.every((v) => typeof v === "string"))
    return `(${column} IN (${sql.list(values)}))`;
  // Long text lists (exclusion lists of thousands of ids): one bound VARCHAR[] and a semi-join,
  // hashed once per query instead of compared per row. The list holds no NULL, so membership is
  // TRUE or FALSE for a present column and NULL for a NULL one, exactly as the literal list.
  // Bound as one string split in SQL where no value holds the separator (U+001F): binding a
  // VARCHAR[] of 50,000 converts each value on its own (~100 ms), one string ~14 ms.
  const texts = values as string[];
  if (!texts.some((v) => v.includes(SEPARATOR)))
    return `(${column} IN (SELECT unnest(string_split(${sql.param(texts.join(SEPARATOR))}, chr(31)))))`;
  const list = sql.param(listValue(texts), LIST(VARCHAR));
  return `(${column} IN (SELECT unnest(${list})))`;
}

/**
 * Up to this many codes a literal `IN` list is the cheapest membership test; DuckDB compares each
 * row with every literal, so a longer list costs more per row (250 codes: 8x a short list's CPU).
 */
export const LITERAL_CODES_MAX = 32;

/**
 * `column IN (codes)` for codes we made ourselves (ENUM codes, company indexes), all in
 * [0, domain). A long list becomes one bit per possible code, bound as a BIT string and tested with
 * get_bit: constant CPU per row whatever the list's length, and no semi-join (see inValues).
 * A NULL column stays NULL, as with IN.
 */
export function codeIn(column: string, codes: readonly number[], domain: number, sql: SqlBuilder): string {
  const inDomain = codes.every((c) => Number.isSafeInteger(c) && c >= 0 && c < domain);
  if (codes.length <= LITERAL_CODES_MAX || !inDomain) return inValues(column, codes, sql);
  const bits = new Uint8Array(domain).fill(48); // "0"
  for (const code of codes) bits[code] = 49; // "1"
  const mask = sql.param(Buffer.from(bits).toString("latin1"));
  return `(get_bit(${mask}::BIT, ${column}) = 1)`;
}

/** Present, and not one of the values: `ne` and `notIn` never match a NULL. */
function notIn(column: string, membership: string): string {
  if (membership === "FALSE") return `(${column} IS NOT NULL)`;
  return `(${column} IS NOT NULL AND ${membership} IS NOT TRUE)`;
}

/** Membership of stored ENUM values, compared by their integer codes. */
function enumIn(
  col: string,
  dict: Dictionary | undefined,
  values: readonly string[],
  sql: SqlBuilder,
): string {
  if (!dict) return inValues(col, values, sql);
  return codeIn(`enum_code(${col})`, codesOf(dict, values), dict.values.length, sql);
}

function enumNotIn(col: string, dict: Dictionary, values: readonly string[], sql: SqlBuilder): string {
  const codes = codesOf(dict, values);
  return notIn(`enum_code(${col})`, codeIn(`enum_code(${col})`, codes, dict.values.length, sql));
}

function codesOf(dict: Dictionary, values: readonly string[]): number[] {
  return values.map((v) => dict.codeOf.get(v)).filter((c): c is number => c !== undefined);
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
        return `(${col} = ${num(node.value)})`;
      case "ne":
        return `(${col} <> ${num(node.value)})`;
      case "gt":
        return `(${col} > ${num(node.value)})`;
      case "gte":
        return `(${col} >= ${num(node.value)})`;
      case "lt":
        return `(${col} < ${num(node.value)})`;
      case "lte":
        return `(${col} <= ${num(node.value)})`;
      case "between":
        return `(${col} BETWEEN ${num(node.value)} AND ${num(node.value2)})`;
      case "in":
        return inValues(col, (node.valueList ?? []).map(Number), sql);
      case "notIn":
        return notIn(col, inValues(col, (node.valueList ?? []).map(Number), sql));
      default:
        throw new Error(`operator ${op} on an integer column reached the compiler`);
    }
  }

  const dict = ctx.dictionaries.get(column.name);
  if (dict) return enumCondition(node, col, dict, sql);

  // Free text: ILIKE with the value escaped into a pattern (still a parameter).
  const value = String(node.value ?? "");
  const like = (pattern: string) => `(${col} ILIKE ${sql.param(pattern)} ESCAPE '\\')`;
  switch (op) {
    case "eq":
      return like(escapeLike(value));
    case "ne":
      return `(${col} IS NOT NULL AND ${like(escapeLike(value))} IS NOT TRUE)`;
    case "contains":
      return like(`%${escapeLike(value)}%`);
    case "startsWith":
      return like(`${escapeLike(value)}%`);
    case "endsWith":
      return like(`%${escapeLike(value)}`);
    case "in":
      return inValues(caseless(col), lowerUnique(node.valueList), sql);
    case "notIn":
      return notIn(caseless(col), inValues(caseless(col), lowerUnique(node.valueList), sql));
    default:
      throw new Error(`operator ${op} on a text column reached the compiler`);
  }
}

/** Matches the value against the column's dictionary, case-insensitively, then tests membership. */
function enumCondition(node: ConditionNode, col: string, dict: Dictionary, sql: SqlBuilder) {
  const value = String(node.value ?? "").toLowerCase();
  const pick = (test: (entry: string) => boolean) => dict.values.filter((entry) => test(entry.toLowerCase()));
  switch (node.operator) {
    case "eq":
      return enumIn(
        col,
        dict,
        pick((e) => e === value),
        sql,
      );
    case "ne":
      return enumNotIn(
        col,
        dict,
        pick((e) => e === value),
        sql,
      );
    case "contains":
      return enumIn(
        col,
        dict,
        pick((e) => e.includes(value)),
        sql,
      );
    case "startsWith":
      return enumIn(
        col,
        dict,
        pick((e) => e.startsWith(value)),
        sql,
      );
    case "endsWith":
      return enumIn(
        col,
        dict,
        pick((e) => e.endsWith(value)),
        sql,
      );
    case "in": {
      const wanted = new Set(lowerUnique(node.valueList));
      return enumIn(
        col,
        dict,
        pick((e) => wanted.has(e)),
        sql,
      );
    }
    case "notIn": {
      const wanted = new Set(lowerUnique(node.valueList));
      return enumNotIn(
        col,
        dict,
        pick((e) => wanted.has(e)),
        sql,
      );
    }
    default:
      throw new Error(`operator ${node.operator} on a text column reached the compiler`);
  }
}

/**
 * Columns whose stored values are lower-case by construction (the ids: `'pao_' || lower(hex(…))`,
 * src/sandbox/dataset/tables.ts): a case-insensitive list compares them as they are, without a
 * lower() of every row (an exclusion list probes all million).
 */
const LOWER_CASE_COLUMNS: ReadonlySet<string> = new Set(['"RBID_PAO"', '"RBID_PER"', '"RBID_ORG"']);
const caseless = (col: string) => (LOWER_CASE_COLUMNS.has(col) ? col : `lower(${col})`);

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
