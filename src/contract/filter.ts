import { z } from "zod";
import { getColumn, operatorsFor } from "./columns";
import { INT_MESSAGE } from "./errors";
import {
  MATCH_LEVELS,
  MAX_FILTER_DEPTH,
  type MatchLevel,
  OPERATOR_READS,
  OPERATORS,
  type Operator,
  VALUE_LIST_MAX,
} from "./inferred";

const joinOp = z.enum(["AND", "OR"]);
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const nodeId = z.string().nullable().optional();
/** Cosine distance lies in [0, 2]. */
const maxDistance = z.number().min(0).max(2).nullable().optional();
export type JoinOp = z.output<typeof joinOp>;
export type Scalar = z.output<typeof scalar>;
/** What every node carries besides its own fields. */
const placement = { joinWithPrevious: joinOp.nullable().optional(), id: nodeId };
/** The fields a semantic and a lookalike match share. */
const matchFields = {
  maxDistance,
  match: z.enum(MATCH_LEVELS).nullable().optional(),
  ...placement,
  negate: z.boolean().default(false),
};

/**
 * Each kind of node's own fields, once: the schemas below are built from these, and the node types
 * are read off them. A group's `children` is added by the schema (it recurses into the union).
 */
const conditionFields = {
  type: z.literal("condition"),
  column: z.string().default(""),
  operator: z.enum(OPERATORS),
  value: scalar.optional(),
  value2: scalar.optional(),
  valueList: z.array(z.string()).nullable().optional(),
  ...placement,
};
const groupFields = {
  type: z.literal("group"),
  op: joinOp.default("AND"),
  negate: z.boolean().default(false),
  ...placement,
};
const semanticFields = {
  type: z.literal("semantic"),
  on: z.enum(["company", "title"]),
  text: z.string().default(""),
  ...matchFields,
};
const lookalikeFields = {
  type: z.literal("lookalike"),
  rbidOrg: z.string().default(""),
  domain: z.string().default(""),
  ...matchFields,
};

/** What a schema built from `Fields` gives, defaults applied. */
type NodeOutput<Fields extends z.core.$ZodLooseShape> = z.output<z.ZodObject<Fields>>;
/** What a client may send for it: every defaulted field may be left out. */
type NodeInputOf<Fields extends z.core.$ZodLooseShape> = z.input<z.ZodObject<Fields>>;

/** The filter tree as a client may send it (before defaults). */
export type ConditionInput = NodeInputOf<typeof conditionFields>;
export type GroupInput = NodeInputOf<typeof groupFields> & { children?: FilterNodeInput[] };
export type SemanticInput = NodeInputOf<typeof semanticFields>;
export type LookalikeInput = NodeInputOf<typeof lookalikeFields>;
export type FilterNodeInput = ConditionInput | GroupInput | SemanticInput | LookalikeInput;

/** The filter tree as the service takes it, after defaults are applied. */
export type ConditionNode = NodeOutput<typeof conditionFields>;
export type GroupNode = NodeOutput<typeof groupFields> & { children: FilterNode[] };
export type SemanticNode = NodeOutput<typeof semanticFields>;
export type LookalikeNode = NodeOutput<typeof lookalikeFields>;
export type FilterNode = ConditionNode | GroupNode | SemanticNode | LookalikeNode;
export type NodeType = FilterNode["type"];

/**
 * Builds the filter schemas. `strict` rejects unknown fields (the proxy's copy, so that our own
 * client's mistakes surface before anything is sent); the lenient copy ignores them, as the
 * service's framework does.
 */
export function makeFilterSchemas(strict: boolean) {
  // Same output types either way; only the handling of unknown keys differs at run time.
  const obj = (strict ? z.strictObject : z.object) as typeof z.object;

  const condition = obj(conditionFields).superRefine(checkCondition);

  const semantic = obj(semanticFields).superRefine((node, ctx) => {
    if (node.text.trim() === "")
      ctx.addIssue({ code: "custom", path: ["text"], message: "text must not be empty" });
  });

  const lookalike = obj(lookalikeFields).superRefine((node, ctx) => {
    if (node.rbidOrg.trim() === "" && node.domain.trim() === "")
      ctx.addIssue({ code: "custom", path: [], message: "a lookalike needs rbidOrg or domain" });
  });

  const group = obj({
    ...groupFields,
    get children(): z.ZodDefault<z.ZodArray<z.ZodType<FilterNode>>> {
      return z.array(node).default([]) as z.ZodDefault<z.ZodArray<z.ZodType<FilterNode>>>;
    },
  });

  const node = z.discriminatedUnion("type", [condition, group, semantic, lookalike]);

  /** The root: a group, or null / absent for "the whole dataset". */
  const root = z
    .unknown()
    .superRefine((value, ctx) => {
      const depth = filterDepth(value);
      if (depth > MAX_FILTER_DEPTH)
        ctx.addIssue({
          code: "custom",
          message: `filter nests ${depth} levels deep; at most ${MAX_FILTER_DEPTH} are allowed`,
          params: { omitInput: true },
          abort: true,
        });
    })
    .pipe(group.nullable().optional())
    // Outside the pipe too, so that an absent `filter` key is optional (the whole dataset).
    .optional();

  return { condition, semantic, lookalike, group, node, root };
}

/** A condition reads the operands its operator needs, typed as its column; checked at the node. */
function checkCondition(
  // Written out rather than Pick<ConditionNode>: that type is read off the schema this check is part of.
  node: { column: string; operator: Operator; value?: Scalar; value2?: Scalar; valueList?: string[] | null },
  ctx: z.RefinementCtx,
) {
  const column = getColumn(node.column);
  if (!column) {
    ctx.addIssue({ code: "custom", path: ["column"], message: `unknown column '${node.column}'` });
    return;
  }
  const allowed = operatorsFor(column);
  if (!allowed.includes(node.operator)) {
    ctx.addIssue({
      code: "custom",
      path: ["operator"],
      message: `operator '${node.operator}' is not allowed on ${column.name}; use one of ${allowed.join(", ")}`,
    });
    return;
  }
  const wantScalar = (key: "value" | "value2") => {
    const v = node[key];
    if (v === undefined || v === null) {
      ctx.addIssue({ code: "custom", path: [key], message: "Field required", params: { type: "missing" } });
    } else if (column.type === "integer" ? !Number.isSafeInteger(v) : typeof v !== "string") {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: column.type === "integer" ? INT_MESSAGE : "Input should be a valid string",
        params: { type: column.type === "integer" ? "int_type" : "string_type" },
      });
    }
  };
  switch (OPERATOR_READS[node.operator]) {
    case "value":
      wantScalar("value");
      break;
    case "range":
      wantScalar("value");
      wantScalar("value2");
      break;
    case "list": {
      const list = node.valueList;
      if (!list) {
        ctx.addIssue({
          code: "custom",
          path: ["valueList"],
          message: "Field required",
          params: { type: "missing" },
        });
      } else if (list.length === 0 || list.length > VALUE_LIST_MAX) {
        ctx.addIssue({
          code: "custom",
          path: ["valueList"],
          message: `valueList must hold 1 to ${VALUE_LIST_MAX} values`,
        });
      } else if (column.type === "integer") {
        list.forEach((entry, i) => {
          if (!/^-?\d{1,15}$/.test(entry.trim()))
            ctx.addIssue({
              code: "custom",
              path: ["valueList", i],
              message: `'${entry}' is not a whole number`,
            });
        });
      }
      break;
    }
    case "none":
      break;
  }
}

/**
 * How deep a value nests through `children`, computed without recursion so that a hostile,
 * absurdly deep body cannot exhaust the stack before it is refused.
 */
export function filterDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [here, depth] = stack.pop()!;
    if (here === null || typeof here !== "object" || Array.isArray(here)) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_FILTER_DEPTH) return deepest;
    const children = (here as { children?: unknown }).children;
    if (Array.isArray(children)) for (const child of children) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The lenient schemas (the service ignores unknown fields). */
export const filterSchemas = makeFilterSchemas(false);
/** The strict schemas (the proxy's copy: unknown fields are a 422). */
export const strictFilterSchemas = makeFilterSchemas(true);

type NodeSchema = { shape: Record<string, z.ZodType> };
const nodeSchemas: Record<NodeType, NodeSchema> = filterSchemas;

/** The fields each kind of node has, read off its schema (the strict schema refuses any other). */
export const NODE_FIELDS: Readonly<Record<NodeType, readonly string[]>> = {
  condition: Object.keys(filterSchemas.condition.shape),
  group: Object.keys(filterSchemas.group.shape),
  semantic: Object.keys(filterSchemas.semantic.shape),
  lookalike: Object.keys(filterSchemas.lookalike.shape),
};

/** The schema of one field of a kind of node (undefined for a field the kind does not have). */
export function nodeFieldSchema(type: NodeType, field: string): z.ZodType | undefined {
  const shape = nodeSchemas[type].shape;
  return Object.hasOwn(shape, field) ? shape[field] : undefined;
}

/** True when the field may be left out of a node after defaults are applied (`value`, `id`, ...). */
export function isOptionalField(type: NodeType, field: string): boolean {
  return nodeFieldSchema(type, field)?._zod.optout === "optional";
}

/**
 * The schema's defaults for one kind of node (a group's `op`, `negate` and `children`, a semantic
 * node's `text`, ...), fresh copies on every call.
 */
export function nodeDefaults(type: NodeType): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const field of NODE_FIELDS[type]) {
    const schema = nodeFieldSchema(type, field);
    if (schema instanceof z.ZodDefault) defaults[field] = structuredClone(schema.def.defaultValue);
  }
  return defaults;
}

/** Resolves the effective distance ceiling of a semantic or lookalike node; null means `exact`. */
export function effectiveMaxDistance(
  node: Pick<SemanticNode, "maxDistance" | "match">,
  levels: Record<Exclude<MatchLevel, "exact">, number>,
  fallback: MatchLevel,
): number | null {
  if (node.maxDistance !== undefined && node.maxDistance !== null) return node.maxDistance;
  const level = node.match ?? fallback;
  return level === "exact" ? null : levels[level];
}

/** The node without a connector (the same object when it has none): it is about to move. */
export function withoutJoin<T extends FilterNode>(node: T): T {
  if (!("joinWithPrevious" in node)) return node;
  const { joinWithPrevious: _dropped, ...rest } = node;
  return rest as T;
}

/**
 * True when the group ANDs every item (no OR connector, not negated): one more item ANDed at its
 * end narrows all of it. Anywhere else (an OR, an OR connector, AND binding tighter, a NOT) a new
 * item must wrap the group instead: AND(group, item).
 */
export function andsEverything(group: GroupNode): boolean {
  if (group.negate) return false;
  const op = group.op ?? "AND";
  return (group.children ?? []).every((child, i) => i === 0 || (child.joinWithPrevious ?? op) === "AND");
}
