/**
 * Filters that must be refused: `invalidFilterArb` (one node made invalid), `withUnknownFieldsArb`,
 * and `brokenFilterArb` (adversarial values: prototype keys, deep nesting, huge strings, any JSON).
 * What they test is that nothing throws and every refusal is a proper 422.
 */
import fc from "fast-check";
import { COLUMNS, operatorsFor } from "../../../src/contract/columns";
import { MAX_FILTER_DEPTH, OPERATOR_READS, OPERATORS, VALUE_LIST_MAX } from "../../../src/contract/inferred";
import {
  type ConditionInput,
  type GroupInput,
  KNOWN_NODE_KEYS,
  type NodeInput,
  UNKNOWN_COLUMNS,
} from "./node-inputs";
import { cloneJson, collectNodes, replaceNode, setOwn } from "./tree-edits";
import { nestedGroups, validConditionArb, validFilterArb, validSemanticArb } from "./valid-filter";

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
export const unknownFieldName = fc.oneof(
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
