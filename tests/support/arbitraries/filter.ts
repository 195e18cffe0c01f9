/**
 * fast-check arbitraries for the filter tree and every request body of `src/contract`, built from
 * the real catalogue (COLUMNS, operatorsFor, OPERATOR_READS) so that they follow the contract when
 * it changes. Reused by the contract unit tests, other suites and the fuzz script.
 *
 * - `validFilterArb`: filter trees every copy of the schema accepts (as a client would send them:
 *   defaults often left out, optional fields present or not).
 * - `invalidFilterArb`: a valid tree with exactly one node made invalid: refused by both copies.
 * - `brokenFilterArb`: adversarial filter-ish values (invalid trees, unknown fields, prototype keys,
 *   deep nesting, huge strings, arbitrary JSON). Some are accepted (null, or unknown fields by the
 *   lenient copy): what they test is that nothing throws and every refusal is a proper 422.
 * - `bodyArbs[key]`: `valid` bodies of `requests[key]` and `broken` ones (always refused by both
 *   copies of the schema).
 */
import fc from "fast-check";
import {
  COLUMN_NAMES,
  COLUMNS,
  COMPANY_COLUMNS,
  type Column,
  operatorsFor,
} from "../../../src/contract/columns";
import {
  COUNT_MODES,
  ENRICH_MAX_ENTRIES,
  INSIGHTS_MAX_FIELDS,
  MATCH_LEVELS,
  MAX_FILTER_DEPTH,
  OPERATOR_READS,
  OPERATORS,
  type Operator,
  REVEALS,
  VALUE_LIST_MAX,
  VERIFY_BATCH_MAX,
} from "../../../src/contract/inferred";
import type { Requests } from "../../../src/contract/operations";

// ---------------------------------------------------------------------------------------------
// Input shapes (what a client sends: every defaulted field may be left out)
// ---------------------------------------------------------------------------------------------

export type Join = "AND" | "OR";
export type ScalarInput = string | number | boolean | null;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface ConditionInput {
  type: "condition";
  column?: string;
  operator: Operator;
  value?: ScalarInput;
  value2?: ScalarInput;
  valueList?: string[] | null;
  joinWithPrevious?: Join | null;
  id?: string | null;
}
export interface GroupInput {
  type: "group";
  op?: Join;
  children?: NodeInput[];
  joinWithPrevious?: Join | null;
  negate?: boolean;
  id?: string | null;
}
export interface SemanticInput {
  type: "semantic";
  on: "company" | "title";
  text?: string;
  maxDistance?: number | null;
  match?: (typeof MATCH_LEVELS)[number] | null;
  joinWithPrevious?: Join | null;
  id?: string | null;
  negate?: boolean;
}
export interface LookalikeInput {
  type: "lookalike";
  rbidOrg?: string;
  domain?: string;
  maxDistance?: number | null;
  match?: (typeof MATCH_LEVELS)[number] | null;
  joinWithPrevious?: Join | null;
  id?: string | null;
  negate?: boolean;
}
export type NodeInput = ConditionInput | GroupInput | SemanticInput | LookalikeInput;

/** Fields each node type knows; anything else is an unknown field. */
export const KNOWN_NODE_KEYS: Record<NodeInput["type"], readonly string[]> = {
  condition: ["type", "column", "operator", "value", "value2", "valueList", "joinWithPrevious", "id"],
  group: ["type", "op", "children", "joinWithPrevious", "negate", "id"],
  semantic: ["type", "on", "text", "maxDistance", "match", "joinWithPrevious", "id", "negate"],
  lookalike: ["type", "rbidOrg", "domain", "maxDistance", "match", "joinWithPrevious", "id", "negate"],
};

// ---------------------------------------------------------------------------------------------
// Realistic values
// ---------------------------------------------------------------------------------------------

export const TITLES = [
  "CMO",
  "Chief Marketing Officer",
  "Marketing Manager",
  "Sales Director",
  "Software Engineer",
  "Chief Executive Officer",
  "VP of Sales",
  "Head of Growth",
  "Data Scientist",
  "HR Business Partner",
] as const;
export const COMPANY_TEXTS = [
  "cloud security software",
  "B2B payments platform",
  "renewable energy developer",
  "industrial IoT sensors",
  "healthcare staffing agency",
  "craft brewery",
] as const;
export const TEXT_VALUES = [
  "United States",
  "Germany",
  "France",
  "Director",
  "VP",
  "Manager",
  "C-Level",
  "Marketing",
  "Engineering",
  "Software Development",
  "Acme",
  "San Francisco",
  "11-50",
  "$1M-$10M",
  "Zürich",
  "東京",
] as const;
export const DOMAINS = ["acme.com", "example.org", "globex.io", "initech.co.uk", "umbrella-corp.de"] as const;

const MASKED = COLUMNS.filter((c) => c.maskedAs);
export const UNMASKED_COLUMN_NAMES: readonly string[] = COLUMNS.filter((c) => !c.maskedAs).map((c) => c.name);
const INTEGER_COLUMNS = COLUMNS.filter((c) => c.type === "integer" && !c.maskedAs);
const TEXT_COLUMNS = COLUMNS.filter((c) => c.type === "text" && !c.maskedAs);
export const UNKNOWN_COLUMNS = [
  "NOPE",
  "",
  "country_name_per",
  "COUNTRY",
  "hasEmail",
  "score",
  "*",
  "__proto__",
  "constructor",
  "toString",
] as const;

const join = fc.constantFrom<Join>("AND", "OR");
const optionalJoin = fc.option(join, { nil: null });
const nodeId = fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })), { nil: null });

export const intValueArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 100_000 }), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER), weight: 1 },
);
export const textValueArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TEXT_VALUES), weight: 4 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }), weight: 1 },
);
/** Non-blank text (what semantic nodes, lookalike names and required strings need). */
export const nonBlankTextArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TITLES, ...COMPANY_TEXTS), weight: 4 },
  { arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ""), weight: 1 },
  {
    arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ""),
    weight: 1,
  },
);
/** Any scalar the documentation allows in `value` / `value2` (used where the operator ignores it). */
const anyScalar: fc.Arbitrary<ScalarInput> = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const maxDistanceArb = fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null });
const matchArb = fc.option(fc.constantFrom(...MATCH_LEVELS), { nil: null });

function digitStringArb(): fc.Arbitrary<string> {
  return fc.oneof(fc.integer().map(String), fc.integer({ min: 0, max: 3000 }).map(String));
}

// ---------------------------------------------------------------------------------------------
// Valid trees
// ---------------------------------------------------------------------------------------------

/** A valid condition: a catalogue column, an operator it allows, the operands that operator reads. */
export function validConditionArb(): fc.Arbitrary<ConditionInput> {
  return fc
    .constantFrom(...COLUMNS)
    .chain((column) =>
      fc.constantFrom(...operatorsFor(column)).chain((operator) => conditionFor(column, operator)),
    );
}

function conditionFor(column: Column, operator: Operator): fc.Arbitrary<ConditionInput> {
  const value = column.type === "integer" ? intValueArb : textValueArb;
  const listEntry = column.type === "integer" ? digitStringArb() : textValueArb;
  const list = fc.array(listEntry, { minLength: 1, maxLength: 5 });
  const unreadList = fc.option(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), { nil: null });
  const common = { joinWithPrevious: optionalJoin, id: nodeId };
  const base = {
    type: fc.constant("condition" as const),
    column: fc.constant(column.name),
    operator: fc.constant(operator),
  };
  const options = { noNullPrototype: true };
  switch (OPERATOR_READS[operator]) {
    case "value":
      return fc.record(
        { ...base, value, value2: anyScalar, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator", "value"], ...options },
      );
    case "range":
      return fc.record(
        { ...base, value, value2: value, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator", "value", "value2"], ...options },
      );
    case "list":
      return fc.record(
        { ...base, valueList: list, value: anyScalar, value2: anyScalar, ...common },
        { requiredKeys: ["type", "column", "operator", "valueList"], ...options },
      );
    case "none":
      return fc.record(
        { ...base, value: anyScalar, value2: anyScalar, valueList: unreadList, ...common },
        { requiredKeys: ["type", "column", "operator"], ...options },
      );
  }
}

export function validSemanticArb(): fc.Arbitrary<SemanticInput> {
  return fc.constantFrom<"title" | "company">("title", "company").chain((on) =>
    fc.record(
      {
        type: fc.constant("semantic" as const),
        on: fc.constant(on),
        text: fc.oneof(
          { arbitrary: fc.constantFrom(...(on === "title" ? TITLES : COMPANY_TEXTS)), weight: 3 },
          { arbitrary: nonBlankTextArb, weight: 1 },
        ),
        match: matchArb,
        maxDistance: maxDistanceArb,
        joinWithPrevious: optionalJoin,
        id: nodeId,
        negate: fc.boolean(),
      },
      { requiredKeys: ["type", "on", "text"], noNullPrototype: true },
    ),
  );
}

export function validLookalikeArb(): fc.Arbitrary<LookalikeInput> {
  const domain = fc.oneof(
    { arbitrary: fc.constantFrom(...DOMAINS), weight: 3 },
    { arbitrary: fc.domain(), weight: 1 },
  );
  const rbidOrg = fc.oneof(
    fc.integer({ min: 1, max: 999_999 }).map((n) => `ORG${String(n).padStart(6, "0")}`),
    nonBlankTextArb,
  );
  const rest = {
    match: matchArb,
    maxDistance: maxDistanceArb,
    joinWithPrevious: optionalJoin,
    id: nodeId,
    negate: fc.boolean(),
  };
  const options = { noNullPrototype: true };
  return fc.oneof(
    fc.record(
      { type: fc.constant("lookalike" as const), domain, rbidOrg: fc.constant(""), ...rest },
      { requiredKeys: ["type", "domain"], ...options },
    ),
    fc.record(
      { type: fc.constant("lookalike" as const), rbidOrg, domain: fc.constant(""), ...rest },
      { requiredKeys: ["type", "rbidOrg"], ...options },
    ),
  );
}

/**
 * Valid filter trees (GroupNode roots). `maxDepth` bounds how many groups nest below the root
 * (default 3); the tree's depth as `filterDepth` counts it is at most `maxDepth + 2`.
 */
export function validFilterArb(options: { maxDepth?: number } = {}): fc.Arbitrary<GroupInput> {
  const maxDepth = Math.max(0, Math.min(options.maxDepth ?? 3, MAX_FILTER_DEPTH - 2));
  const depthIdentifier = fc.createDepthIdentifier();
  const leaf = fc.oneof(
    { arbitrary: validConditionArb() as fc.Arbitrary<NodeInput>, weight: 5 },
    { arbitrary: validSemanticArb(), weight: 2 },
    { arbitrary: validLookalikeArb(), weight: 1 },
  );
  const groupOf = (children: fc.Arbitrary<NodeInput[]>) =>
    fc.record(
      {
        type: fc.constant("group" as const),
        op: join,
        children,
        joinWithPrevious: optionalJoin,
        negate: fc.boolean(),
        id: nodeId,
      },
      { requiredKeys: ["type"], noNullPrototype: true },
    );
  const tree = fc.letrec<{ node: NodeInput; group: GroupInput; root: GroupInput }>((tie) => ({
    node: fc.oneof({ maxDepth, depthIdentifier, depthSize: "small" }, leaf, tie("group")),
    group: groupOf(fc.array(tie("node"), { maxLength: 4, depthIdentifier })),
    // Mostly non-empty roots: an empty root is one case among many, not a third of them.
    root: fc.oneof(
      {
        arbitrary: groupOf(fc.array(tie("node"), { minLength: 1, maxLength: 5, depthIdentifier })),
        weight: 8,
      },
      { arbitrary: tie("group"), weight: 1 },
    ),
  }));
  return tree.root;
}

/**
 * A chain of `depth` nested groups (the root counts as one), the innermost holding `leaf` if given
 * (then `filterDepth` is `depth + 1`) or empty.
 */
export function nestedGroups(depth: number, leaf: NodeInput | null = null): GroupInput {
  let node: GroupInput = { type: "group", children: leaf ? [leaf] : [] };
  for (let i = 1; i < depth; i++) node = { type: "group", children: [node] };
  return node;
}

// ---------------------------------------------------------------------------------------------
// Helpers on JSON-like trees
// ---------------------------------------------------------------------------------------------

/** Deep copy of a JSON-like value; own keys such as `__proto__` stay plain own properties. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value))
      setOwn(out, key, cloneJson((value as Record<string, unknown>)[key]));
    return out as T;
  }
  return value;
}

/** Sets an own, enumerable property even for keys like `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every node of a tree (root first, depth first), following `children` arrays. */
export function collectNodes(tree: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    out.push(record);
    if (Array.isArray(record.children)) for (const child of record.children) walk(child);
  };
  walk(tree);
  return out;
}

/** A copy of `tree` whose `index`-th node (in `collectNodes` order) is `replacement`. */
export function replaceNode(tree: unknown, index: number, replacement: unknown): unknown {
  if (index === 0) return replacement;
  const copy = cloneJson(tree);
  let seen = 0;
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return false;
    const children = (node as Record<string, unknown>).children;
    if (!Array.isArray(children)) return false;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child === null || typeof child !== "object" || Array.isArray(child)) continue;
      seen++;
      if (seen === index) {
        children[i] = replacement;
        return true;
      }
      if (walk(child)) return true;
    }
    return false;
  };
  walk(copy);
  return copy;
}

/** The same JSON value with the keys of every object in another order (a deterministic shuffle). */
export function shuffleKeys<T>(value: T, seed: number): T {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) setOwn(out, key, walk((v as Record<string, unknown>)[key]));
    return out;
  };
  return walk(value) as T;
}

/** The same tree with every node's `id` replaced by `makeId(index)` (undefined removes it). */
export function reassignIds<T>(tree: T, makeId: (index: number) => string | null | undefined): T {
  const copy = cloneJson(tree);
  collectNodes(copy).forEach((node, i) => {
    const id = makeId(i);
    if (id === undefined) delete node.id;
    else node.id = id;
  });
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Adversarial values
// ---------------------------------------------------------------------------------------------

export const PROTOTYPE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
] as const;

/** Arbitrary JSON, including objects carrying prototype-pollution keys as own properties. */
export const anyJsonArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 4 },
  {
    arbitrary: fc
      .array(
        fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, "type", "children"), fc.jsonValue({ maxDepth: 2 })),
        {
          minLength: 1,
          maxLength: 4,
        },
      )
      .map((entries) => {
        const out: Record<string, unknown> = {};
        for (const [key, value] of entries) setOwn(out, key, value);
        return out;
      }),
    weight: 1,
  },
  { arbitrary: fc.constantFrom<unknown>(null, true, 0, -1, "", "group", [], {}), weight: 1 },
);

/** Values that are never a valid node anywhere (null is a valid root, so it is not among them). */
const junkNode = fc.constantFrom<unknown>(5, "group", [], true, {}, [{ type: "group" }], 1.5);

const HUGE_STRING = "x".repeat(100_000);
const TOO_LONG_LIST = Array.from({ length: VALUE_LIST_MAX + 1 }, (_, i) => String(i));

/** One invalid replacement for `node`: refused by the lenient and the strict schema alike. */
function invalidReplacementArb(node: Record<string, unknown>, isRoot: boolean): fc.Arbitrary<unknown> {
  const junk = isRoot ? junkNode : fc.oneof(junkNode, fc.constant(null));
  const badTag = fc
    .constantFrom<unknown>("Group", "cond", "node", "", 5, null)
    .map((type) => ({ ...node, type }));
  const missingTag = fc.constant(Object.fromEntries(Object.entries(node).filter(([k]) => k !== "type")));
  const badJoin = fc
    .constantFrom<unknown>("XOR", "and", "", 1, true)
    .map((joinWithPrevious) => ({ ...node, joinWithPrevious }));
  const badId = fc.constantFrom<unknown>(5, true, {}, ["a"]).map((id) => ({ ...node, id }));
  const generic = [junk, badTag, badJoin, badId, ...(isRoot ? [] : [missingTag])];
  // A root must be a group: any other node type there is invalid too.
  const nonGroupRoot = isRoot ? [validConditionArb(), validSemanticArb()] : [];
  switch (node.type) {
    case "condition":
      return fc.oneof(...generic, ...conditionBreakers(node as unknown as ConditionInput));
    case "semantic":
      return fc.oneof(
        ...generic,
        fc.constantFrom<unknown>("", "   ", "\t\n", 5, null).map((text) => ({ ...node, text })),
        fc.constantFrom<unknown>("person", "Title", 5, null).map((on) => ({ ...node, on })),
        fc
          .constantFrom<unknown>(-0.01, 2.01, "0.2", true, Number.MAX_VALUE)
          .map((maxDistance) => ({ ...node, maxDistance })),
        fc.constantFrom<unknown>("close", "EXACT", 1).map((match) => ({ ...node, match })),
        fc.constantFrom<unknown>("true", 0, null).map((negate) => ({ ...node, negate })),
      );
    case "lookalike":
      return fc.oneof(
        ...generic,
        fc
          .constantFrom<unknown>({ domain: "", rbidOrg: "" }, { domain: "  ", rbidOrg: " " }, {})
          .map((names) => {
            const { domain: _d, rbidOrg: _r, ...rest } = node;
            return { ...rest, ...(names as object) };
          }),
        fc.constantFrom<unknown>(5, null, ["acme.com"]).map((domain) => ({ ...node, domain })),
        fc.constantFrom<unknown>(3, -1, "0.1").map((maxDistance) => ({ ...node, maxDistance })),
      );
    default:
      return fc.oneof(
        ...generic,
        ...nonGroupRoot,
        fc.constantFrom<unknown>("XOR", "and", "", null, 1).map((op) => ({ ...node, op })),
        fc
          .constantFrom<unknown>({}, "x", null, [null], [5], [[]], [{}], [{ type: "condition" }])
          .map((children) => ({ ...node, children })),
        fc.constantFrom<unknown>("true", 1, null).map((negate) => ({ ...node, negate })),
      );
  }
}

function conditionBreakers(node: ConditionInput): fc.Arbitrary<unknown>[] {
  const column = COLUMNS.find((c) => c.name === node.column);
  const breakers: fc.Arbitrary<unknown>[] = [
    fc.constantFrom(...UNKNOWN_COLUMNS).map((name) => ({ ...node, column: name })),
    fc
      .constantFrom<unknown>("like", "EQ", "", 5, null, "__proto__")
      .map((operator) => ({ ...node, operator })),
    fc.constant(Object.fromEntries(Object.entries(node).filter(([k]) => k !== "operator"))),
    fc.constantFrom<unknown>(5, null, ["COUNTRY_NAME_PER"]).map((column) => ({ ...node, column })),
  ];
  if (column) {
    const allowed = operatorsFor(column);
    const refused = OPERATORS.filter((op) => !allowed.includes(op));
    if (refused.length > 0)
      breakers.push(fc.constantFrom(...refused).map((operator) => ({ ...node, operator })));
    const integer = column.type === "integer";
    const wrongScalar = integer ? ["5", true, 2.5, 1e300, "", {}] : [5, true, 0, ["a"], {}];
    switch (OPERATOR_READS[node.operator]) {
      case "value":
        breakers.push(
          fc.constantFrom<unknown>(undefined, null).map((value) => ({ ...node, value })),
          fc.constantFrom<unknown>(...wrongScalar).map((value) => ({ ...node, value })),
        );
        break;
      case "range":
        breakers.push(
          fc.constantFrom<unknown>(undefined, null).map((value2) => ({ ...node, value2 })),
          fc.constantFrom<unknown>(...wrongScalar).map((value2) => ({ ...node, value2 })),
          fc.constantFrom<unknown>(...wrongScalar).map((value) => ({ ...node, value })),
        );
        break;
      case "list":
        breakers.push(
          fc
            .constantFrom<unknown>(undefined, null, [], "a", [5], [null], TOO_LONG_LIST)
            .map((valueList) => ({ ...node, valueList })),
        );
        if (integer)
          breakers.push(
            fc
              .constantFrom<unknown>(["x"], ["2.5"], ["1", "one"], [""], ["1e3"])
              .map((valueList) => ({ ...node, valueList })),
          );
        break;
      case "none":
        break;
    }
  }
  return breakers;
}

/** A valid tree with exactly one node made invalid: every copy of the schema refuses it. */
export function invalidFilterArb(options: { maxDepth?: number } = {}): fc.Arbitrary<unknown> {
  return validFilterArb(options).chain((tree) => {
    const nodes = collectNodes(tree);
    return fc
      .nat(nodes.length - 1)
      .chain((index) =>
        invalidReplacementArb(nodes[index]!, index === 0).map((replacement) =>
          replaceNode(tree, index, replacement),
        ),
      );
  });
}

/** Extra field names no node knows, prototype keys and unicode among them. */
const unknownFieldName = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_KEYS,
    "extra",
    "Type",
    "values",
    "😀",
    "ключ",
    "negate",
    "op",
    "text",
    "value",
  ),
  fc.string({ minLength: 1, maxLength: 6 }),
);

/**
 * A valid tree and the same tree with unknown fields added to some nodes: the strict schema refuses
 * `noisy` (one extra_forbidden per added field) and the lenient one parses it to what `clean` gives.
 */
export function withUnknownFieldsArb(
  treeArb: fc.Arbitrary<GroupInput> = validFilterArb(),
): fc.Arbitrary<{ clean: GroupInput; noisy: unknown; added: number }> {
  return treeArb.chain((clean) => {
    const count = collectNodes(clean).length;
    return fc
      .array(fc.tuple(fc.nat(count - 1), unknownFieldName, anyJsonArb), { minLength: 1, maxLength: 4 })
      .map((additions) => {
        const noisy = cloneJson(clean);
        const nodes = collectNodes(noisy);
        let added = 0;
        for (const [index, key, value] of additions) {
          const node = nodes[index]!;
          const known = KNOWN_NODE_KEYS[node.type as NodeInput["type"]];
          if (known.includes(key) || Object.hasOwn(node, key)) continue;
          setOwn(node, key, value);
          added++;
        }
        return { clean, noisy, added };
      })
      .filter((x) => x.added > 0);
  });
}

/**
 * Adversarial filter-ish values. Not all are invalid (null is the whole dataset; unknown fields
 * pass the lenient copy): anything a client or an attacker could send as `filter`.
 */
export function brokenFilterArb(): fc.Arbitrary<unknown> {
  const valid = validFilterArb();
  return fc.oneof(
    { arbitrary: invalidFilterArb(), weight: 6 },
    { arbitrary: withUnknownFieldsArb(valid).map((x) => x.noisy), weight: 2 },
    {
      arbitrary: fc
        .tuple(fc.integer({ min: MAX_FILTER_DEPTH - 2, max: 40 }), validConditionArb())
        .map(([depth, leaf]) => nestedGroups(depth, leaf)),
      weight: 1,
    },
    {
      // Huge strings in the places a string goes.
      arbitrary: fc.constantFrom<unknown>(
        {
          type: "group",
          children: [{ type: "condition", column: "CITY_PER", operator: "eq", value: HUGE_STRING }],
        },
        { type: "group", children: [{ type: "semantic", on: "title", text: HUGE_STRING }] },
        { type: "group", children: [{ type: "condition", column: HUGE_STRING, operator: "isNull" }] },
        { type: "group", id: HUGE_STRING },
      ),
      weight: 1,
    },
    { arbitrary: anyJsonArb, weight: 2 },
    {
      arbitrary: fc.constantFrom<unknown>(
        null,
        { type: "group", children: null },
        { type: "group", children: [null] },
        { type: "group", op: null },
        { type: "group", negate: null },
        { type: "group", children: [{ type: "condition", column: null, operator: "isNull" }] },
        {
          type: "group",
          children: [{ type: "condition", column: "FOUNDED_ORG", operator: "eq", value: "5" }],
        },
        { type: "group", children: [{ type: "condition", column: "CITY_PER", operator: "eq", value: 5 }] },
        [{ type: "group" }],
      ),
      weight: 1,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

export const BODY_KEYS = [
  "count",
  "view",
  "preview",
  "estimate",
  "exportStart",
  "enrich",
  "insights",
  "companyCount",
  "lookalike",
  "verifyV1",
  "verifyV2",
  "batchV1",
  "processIdV1Body",
  "organizationResolve",
  "organizationDiscover",
] as const satisfies readonly (keyof Requests)[];
export type BodyKey = (typeof BODY_KEYS)[number];

/** Body keys whose schema carries an optional `filter`. */
export const FILTER_BODY_KEYS: readonly BodyKey[] = [
  "count",
  "view",
  "preview",
  "estimate",
  "exportStart",
  "insights",
  "companyCount",
];

type Body = Record<string, unknown>;

const filterField = fc.oneof(
  { arbitrary: validFilterArb() as fc.Arbitrary<unknown>, weight: 4 },
  { arbitrary: fc.constant(null), weight: 1 },
);
const limitArb = fc.option(
  fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, 1, 100, 101, Number.MAX_SAFE_INTEGER)),
  { nil: null },
);
const viewColumns = fc.option(
  fc.shuffledSubarray([...COLUMN_NAMES, "hasEmail", "hasMobile"], { maxLength: 12 }),
  {
    nil: null,
  },
);
const rowColumns = fc.option(fc.shuffledSubarray([...COLUMN_NAMES], { maxLength: 12 }), { nil: null });
const companyColumns = fc.option(
  fc.oneof(fc.constant(["*"]), fc.shuffledSubarray([...COMPANY_COLUMNS], { maxLength: 8 })),
  { nil: null },
);
const revealArb = fc.constantFrom(...REVEALS);
const maxRowsArb = fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constant(Number.MAX_SAFE_INTEGER));
const hqField = fc.option(fc.oneof(fc.constantFrom("California", "US", "Berlin", "10115"), fc.string()), {
  nil: null,
});
const emailArb = fc.emailAddress().filter((e) => e.length <= 320 && /^[^@\s]+@[^@\s]+$/.test(e));
const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T, requiredKeys: (keyof T & string)[]) =>
  fc.record(model, { requiredKeys, noNullPrototype: true }) as fc.Arbitrary<Body>;

const validBodies: Record<BodyKey, fc.Arbitrary<Body>> = {
  count: rec({ filter: filterField, mode: fc.constantFrom(...COUNT_MODES) }, []),
  view: rec({ filter: filterField, columns: viewColumns, limit: limitArb, includeScores: fc.boolean() }, []),
  preview: rec({ filter: filterField, columns: rowColumns, limit: limitArb, reveal: revealArb }, ["reveal"]),
  estimate: rec({ filter: filterField, maxRows: maxRowsArb, reveal: revealArb, columns: rowColumns }, [
    "maxRows",
    "reveal",
  ]),
  exportStart: rec(
    {
      filter: filterField,
      maxRows: maxRowsArb,
      reveal: revealArb,
      columns: rowColumns,
      name: fc.option(fc.string({ maxLength: 200 }), { nil: null }),
    },
    ["maxRows", "reveal"],
  ),
  enrich: fc
    .record(
      {
        personIds: fc.option(fc.array(fc.string({ maxLength: 12 }), { maxLength: 20 }), { nil: null }),
        emails: fc.option(fc.array(emailArb, { maxLength: 20 }), { nil: null }),
        reveal: revealArb,
        columns: rowColumns,
      },
      { requiredKeys: ["reveal"], noNullPrototype: true },
    )
    .filter((b) => (b.personIds?.length ?? 0) + (b.emails?.length ?? 0) > 0) as fc.Arbitrary<Body>,
  insights: fc.oneof(
    rec(
      {
        section: fc.constant("summary"),
        filter: filterField,
        fields: fc.option(fc.array(fc.string(), { maxLength: INSIGHTS_MAX_FIELDS }), { nil: null }),
        groupField: fc.option(fc.string(), { nil: null }),
      },
      ["section"],
    ),
    rec(
      {
        section: fc.constant("breakdown"),
        filter: filterField,
        groupField: fc.constantFrom(...UNMASKED_COLUMN_NAMES),
      },
      ["section", "groupField"],
    ),
    rec(
      {
        section: fc.constant("fields"),
        filter: filterField,
        fields: fc.shuffledSubarray([...UNMASKED_COLUMN_NAMES], {
          minLength: 1,
          maxLength: INSIGHTS_MAX_FIELDS,
        }),
      },
      ["section", "fields"],
    ),
  ),
  companyCount: rec({ filter: filterField, mode: fc.option(fc.string(), { nil: null }) }, []),
  lookalike: fc.oneof(
    rec(
      {
        domain: fc.constantFrom(...DOMAINS),
        rbidOrg: fc.constantFrom<string | null>("", "  ", null),
        limit: limitArb,
        columns: companyColumns,
      },
      ["domain"],
    ),
    rec(
      {
        rbidOrg: fc.integer({ min: 1, max: 999_999 }).map((n) => `ORG${n}`),
        domain: fc.constantFrom<string | null>("", null),
        limit: limitArb,
        columns: companyColumns,
      },
      ["rbidOrg"],
    ),
  ),
  verifyV1: rec({ email: fc.oneof(emailArb, fc.string({ minLength: 1, maxLength: 40 })) }, ["email"]),
  verifyV2: rec({ email: emailArb }, ["email"]),
  batchV1: rec({ emails: fc.array(fc.oneof(emailArb, fc.string()), { minLength: 1, maxLength: 20 }) }, [
    "emails",
  ]),
  processIdV1Body: rec({ process_id: fc.oneof(fc.nat().map(String), fc.string()) }, ["process_id"]),
  organizationResolve: rec(
    {
      company_name: fc.oneof(fc.constantFrom("Acme", "Globex Corporation"), fc.string({ minLength: 1 })),
      result_count: fc.integer({ min: 1, max: 10 }),
      headquarters_state: hqField,
      headquarters_country: hqField,
      headquarters_city: hqField,
      headquarters_street: hqField,
      headquarters_zip: hqField,
    },
    ["company_name"],
  ),
  organizationDiscover: rec(
    {
      keyword: fc.oneof(fc.constantFrom(...COMPANY_TEXTS), fc.string({ minLength: 1 })),
      result_count: fc.integer({ min: 1, max: 1000 }),
      min_similarity_score: fc.double({ min: 0, max: 0.95, noNaN: true }),
      headquarters_state: hqField,
      headquarters_country: hqField,
      headquarters_city: hqField,
      headquarters_street: hqField,
    },
    ["keyword"],
  ),
};

type Mutation = (body: Body) => fc.Arbitrary<unknown>;

const set =
  (field: string, bad: readonly unknown[] | fc.Arbitrary<unknown>): Mutation =>
  (body) =>
    (Array.isArray(bad) ? fc.constantFrom(...bad) : (bad as fc.Arbitrary<unknown>)).map((value) => {
      const copy = cloneJson(body);
      setOwn(copy, field, value);
      return copy;
    });
const drop =
  (field: string): Mutation =>
  (body) =>
    fc.constant(Object.fromEntries(Object.entries(body).filter(([k]) => k !== field)));
const merge =
  (fields: readonly Body[]): Mutation =>
  (body) =>
    fc.constantFrom(...fields).map((extra) => ({ ...cloneJson(body), ...extra }));

const TOO_MANY_IDS = Array.from({ length: ENRICH_MAX_ENTRIES + 1 }, (_, i) => `PAO${i}`);
const TOO_MANY_EMAILS = Array.from({ length: VERIFY_BATCH_MAX + 1 }, (_, i) => `u${i}@example.com`);
const badFilter = set("filter", invalidFilterArb({ maxDepth: 2 }));
const badLimit = set("limit", [2.5, "5", true, [], {}, -0.5]);
const badReveal = set("reveal", ["all", "EMAIL", "", 1, null, true]);
const badMaxRows = set("maxRows", [0, -1, 2.5, "5", null, true]);
const badRowColumns = set("columns", [
  ["NOPE"],
  ["hasEmail"],
  "RBID_PAO",
  [5],
  [null],
  ["RBID_PAO", "constructor_"],
]);
const badStr = [5, true, null, [], {}];

const brokenMutations: Record<BodyKey, Mutation[]> = {
  count: [badFilter, set("mode", ["slow", "EXACT", 1, null])],
  view: [
    badFilter,
    badLimit,
    set("includeScores", ["true", 1, null]),
    set("columns", [["NOPE"], "RBID_PAO", [5], ["rbid_pao"], [""]]),
  ],
  preview: [badFilter, badLimit, badReveal, drop("reveal"), badRowColumns],
  estimate: [badFilter, badMaxRows, drop("maxRows"), badReveal, drop("reveal"), badRowColumns],
  exportStart: [
    badFilter,
    badMaxRows,
    drop("maxRows"),
    badReveal,
    drop("reveal"),
    badRowColumns,
    set("name", ["n".repeat(201), 5, true]),
  ],
  enrich: [
    badReveal,
    drop("reveal"),
    badRowColumns,
    merge([
      { personIds: [], emails: [] },
      { personIds: null, emails: null },
      { personIds: [], emails: null },
    ]),
    merge([
      { personIds: TOO_MANY_IDS },
      { personIds: TOO_MANY_IDS.slice(0, 600), emails: TOO_MANY_EMAILS.slice(0, 401) },
    ]),
    set("personIds", ["PAO1", 5, [5], {}]),
    set("emails", ["a@b.c", [null], true]),
  ],
  insights: [
    badFilter,
    set("section", ["SUMMARY", "top", 1, null]),
    drop("section"),
    merge([
      { section: "breakdown", groupField: null },
      { section: "breakdown", groupField: "" },
      { section: "breakdown", groupField: "EMAIL_ADDRESS_PER" },
      { section: "breakdown", groupField: "CELLPHONE_PER" },
      { section: "breakdown", groupField: "NOPE" },
      { section: "breakdown", groupField: 5 },
      { section: "fields", fields: [] },
      { section: "fields", fields: null },
      { section: "fields", fields: ["EMAIL_ADDRESS_PER"] },
      { section: "fields", fields: ["CITY_PER", "NOPE"] },
      { section: "fields", fields: UNMASKED_COLUMN_NAMES.slice(0, INSIGHTS_MAX_FIELDS + 1) },
      { section: "fields", fields: "CITY_PER" },
    ]),
  ],
  companyCount: [badFilter, set("mode", [5, true, [], {}])],
  lookalike: [
    merge([
      { domain: "acme.com", rbidOrg: "ORG1" },
      { domain: null, rbidOrg: null },
      { domain: "", rbidOrg: "" },
      { domain: " ", rbidOrg: "\t" },
    ]),
    badLimit,
    set("columns", [["FULL_NAME_PER"], ["EMAIL_ADDRESS_PER"], ["NOPE"], "*", [5], ["hasEmail"]]),
    set("domain", [5, true, ["acme.com"]]),
  ],
  verifyV1: [set("email", ["", "x".repeat(321), ...badStr]), drop("email")],
  verifyV2: [set("email", ["", "no-at-sign", "a@b@c", "a b@c.d", "@", "x@", ...badStr]), drop("email")],
  batchV1: [set("emails", [[], "a@b.c", [5], [null], TOO_MANY_EMAILS, null]), drop("emails")],
  processIdV1Body: [set("process_id", [5, null, true, [], {}]), drop("process_id")],
  organizationResolve: [
    set("company_name", ["", ...badStr]),
    drop("company_name"),
    set("result_count", [0, 11, 2.5, "3", null]),
    set("headquarters_country", [5, true, []]),
  ],
  organizationDiscover: [
    set("keyword", ["", ...badStr]),
    drop("keyword"),
    set("result_count", [0, 1001, 2.5, "10", null]),
    set("min_similarity_score", [-0.01, 0.96, "0.5", null]),
    set("headquarters_city", [5, false]),
  ],
};

/** Something that is not a JSON object at all. */
const notAnObject = fc.constantFrom<unknown>(null, [], "body", 5, true, [{}]);

function brokenBodyArb(key: BodyKey): fc.Arbitrary<unknown> {
  const valid = validBodies[key];
  const mutated = fc.oneof(...brokenMutations[key].map((mutate) => valid.chain(mutate)));
  return fc.oneof(
    { arbitrary: mutated, weight: 8 },
    {
      // Still broken with an unknown field on top (the lenient copy ignores that field only).
      arbitrary: fc.tuple(mutated, unknownFieldName, anyJsonArb).map(([body, key2, value]) => {
        if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
        const copy = cloneJson(body as Body);
        if (!Object.hasOwn(copy, key2) && !(key2 in validShapeKeys(key))) setOwn(copy, key2, value);
        return copy;
      }),
      weight: 1,
    },
    { arbitrary: notAnObject, weight: 1 },
  );
}

function validShapeKeys(key: BodyKey): Record<string, true> {
  const keys: Record<BodyKey, string[]> = {
    count: ["filter", "mode"],
    view: ["filter", "columns", "limit", "includeScores"],
    preview: ["filter", "columns", "limit", "reveal"],
    estimate: ["filter", "maxRows", "reveal", "columns"],
    exportStart: ["filter", "maxRows", "reveal", "columns", "name"],
    enrich: ["personIds", "emails", "reveal", "columns"],
    insights: ["section", "filter", "fields", "groupField"],
    companyCount: ["filter", "mode"],
    lookalike: ["domain", "rbidOrg", "limit", "columns"],
    verifyV1: ["email"],
    verifyV2: ["email"],
    batchV1: ["emails"],
    processIdV1Body: ["process_id"],
    organizationResolve: [
      "company_name",
      "result_count",
      "headquarters_state",
      "headquarters_country",
      "headquarters_city",
      "headquarters_street",
      "headquarters_zip",
    ],
    organizationDiscover: [
      "keyword",
      "result_count",
      "min_similarity_score",
      "headquarters_state",
      "headquarters_country",
      "headquarters_city",
      "headquarters_street",
    ],
  };
  const out: Record<string, true> = Object.create(null);
  for (const name of keys[key]) out[name] = true;
  return out;
}

/**
 * For every request body schema of `requests`: `valid` bodies (accepted by both copies of the
 * schema) and `broken` ones (refused by both: a valid body with one field made invalid or removed,
 * sometimes with an unknown field on top, or no object at all).
 */
export const bodyArbs: Record<BodyKey, { valid: fc.Arbitrary<unknown>; broken: fc.Arbitrary<unknown> }> =
  Object.fromEntries(
    BODY_KEYS.map((key) => [key, { valid: validBodies[key], broken: brokenBodyArb(key) }]),
  ) as Record<BodyKey, { valid: fc.Arbitrary<unknown>; broken: fc.Arbitrary<unknown> }>;

/** Known fields of each body schema (for tests that add unknown ones). */
export function bodyFields(key: BodyKey): string[] {
  return Object.keys(validShapeKeys(key));
}

// Columns split by type, for tests that need one of each.
export const CATALOGUE = { MASKED, INTEGER_COLUMNS, TEXT_COLUMNS } as const;
