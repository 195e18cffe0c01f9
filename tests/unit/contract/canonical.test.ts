import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalFilter, canonicalKey, stableStringify } from "../../../src/contract/canonical";
import { filterSchemas, type GroupNode, strictFilterSchemas } from "../../../src/contract/filter";
import { OPERATOR_READS } from "../../../src/contract/inferred";
import type { ConditionInput, GroupInput } from "../../support/arbitraries/node-inputs";
import { collectNodes, reassignIds, shuffleKeys } from "../../support/arbitraries/tree-edits";
import {
  validConditionArb,
  validFilterArb,
  validLookalikeArb,
  validSemanticArb,
} from "../../support/arbitraries/valid-filter";

const RUNS = { numRuns: 300 };

/** What the service works on: the tree after the schema's defaults. */
const parse = (tree: unknown) => filterSchemas.root.parse(tree) as GroupNode | null | undefined;
const canon = (tree: unknown) => canonicalFilter(parse(tree));
const key = (tree: unknown) => canonicalKey(parse(tree));
const group = (children: unknown[], extra: Record<string, unknown> = {}) => ({
  type: "group",
  children,
  ...extra,
});
const city = (extra: Record<string, unknown> = {}) => ({
  type: "condition",
  column: "CITY_PER",
  operator: "eq",
  value: "Paris",
  ...extra,
});

describe("canonical form", () => {
  it("drops ids everywhere", () => {
    const out = canon(
      group(
        [city({ id: "c1" }), group([{ type: "semantic", on: "title", text: "CMO", id: "s1" }], { id: "g2" })],
        {
          id: "root",
        },
      ),
    );
    expect(JSON.stringify(out)).not.toContain('"id"');
    expect(collectNodes(out).length).toBe(4);
  });

  it("makes defaults explicit", () => {
    expect(canonicalFilter(null)).toEqual({ type: "group", op: "AND", negate: false, children: [] });
    expect(canonicalFilter({ type: "group" } as GroupNode)).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [],
    });
    expect(canon(group([{ type: "semantic", on: "title", text: "CMO" }])).children[0]).toEqual({
      type: "semantic",
      on: "title",
      text: "CMO",
      negate: false,
      match: "similar",
    });
    expect(canon(group([{ type: "lookalike", domain: "acme.com" }])).children[0]).toEqual({
      type: "lookalike",
      domain: "acme.com",
      rbidOrg: "",
      negate: false,
      match: "similar",
    });
  });

  it("lets maxDistance win over match, as the service does", () => {
    const node = {
      type: "semantic",
      on: "company",
      text: "cloud security software",
      match: "broad",
      maxDistance: 0.3,
    };
    expect(canon(group([node])).children[0]).toEqual({
      type: "semantic",
      on: "company",
      text: "cloud security software",
      negate: false,
      maxDistance: 0.3,
    });
    expect(key(group([node]))).toBe(key(group([{ ...node, match: "exact" }])));
    expect(key(group([node]))).toBe(key(group([{ ...node, match: null }])));
    // Without maxDistance, the level decides; `similar` is the default.
    expect(key(group([{ ...node, maxDistance: null, match: "similar" }]))).toBe(
      key(group([{ ...node, maxDistance: undefined, match: undefined }])),
    );
    expect(key(group([{ ...node, maxDistance: null }]))).not.toBe(
      key(group([{ ...node, maxDistance: null, match: "same" }])),
    );
  });

  it("drops operands the operator does not read", () => {
    const out = canon(
      group([
        {
          type: "condition",
          column: "FOUNDED_ORG",
          operator: "isNull",
          value: 3,
          value2: "x",
          valueList: ["1"],
        },
        {
          type: "condition",
          column: "CITY_PER",
          operator: "eq",
          value: "Paris",
          value2: "Lyon",
          valueList: ["a"],
        },
        {
          type: "condition",
          column: "FOUNDED_ORG",
          operator: "between",
          value: 1,
          value2: 2,
          valueList: ["9"],
        },
        { type: "condition", column: "CITY_PER", operator: "in", value: "x", value2: 5, valueList: ["b"] },
      ]),
    );
    expect(out.children).toEqual([
      { type: "condition", column: "FOUNDED_ORG", operator: "isNull" },
      { type: "condition", column: "CITY_PER", operator: "eq", value: "Paris" },
      { type: "condition", column: "FOUNDED_ORG", operator: "between", value: 1, value2: 2 },
      { type: "condition", column: "CITY_PER", operator: "in", valueList: ["b"] },
    ]);
  });

  it("sorts and deduplicates in / notIn lists", () => {
    const list = (valueList: string[]) =>
      canon(group([{ type: "condition", column: "COUNTRY_NAME_PER", operator: "notIn", valueList }]))
        .children[0];
    expect(list(["Spain", "France", "Spain", "Austria", "France"])).toMatchObject({
      valueList: ["Austria", "France", "Spain"],
    });
    expect(
      key(
        group([
          { type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["b", "a", "b"] },
        ]),
      ),
    ).toBe(
      key(group([{ type: "condition", column: "COUNTRY_NAME_PER", operator: "in", valueList: ["a", "b"] }])),
    );
  });

  it("drops a connector equal to the group's op, keeps one that differs, and drops the first child's", () => {
    const out = canon(
      group(
        [
          city({ joinWithPrevious: "AND" }),
          city({ value: "Lyon", joinWithPrevious: "OR" }),
          city({ value: "Nice", joinWithPrevious: "AND" }),
          city({ value: "Metz" }),
        ],
        { op: "OR" },
      ),
    );
    expect(out.children.map((c) => c.joinWithPrevious)).toEqual([undefined, undefined, "AND", undefined]);
    expect(out.children.map((c) => Object.hasOwn(c, "joinWithPrevious"))).toEqual([
      false,
      false,
      true,
      false,
    ]);
    // The first child's connector is ignored, whatever it says.
    expect(key(group([city({ joinWithPrevious: "OR" }), city({ value: "Lyon" })]))).toBe(
      key(group([city(), city({ value: "Lyon" })])),
    );
  });

  it("keeps what changes the answer: op, negate, connectors that differ from op", () => {
    const base = group([city(), city({ value: "Lyon" })]);
    expect(key(base)).not.toBe(key({ ...base, op: "OR" }));
    expect(key(base)).not.toBe(key({ ...base, negate: true }));
    expect(key(base)).not.toBe(key(group([city(), city({ value: "Lyon", joinWithPrevious: "OR" })])));
    expect(key(group([{ type: "semantic", on: "title", text: "CMO" }]))).not.toBe(
      key(group([{ type: "semantic", on: "title", text: "CMO", negate: true }])),
    );
    expect(key(group([{ type: "semantic", on: "title", text: "CMO" }]))).not.toBe(
      key(group([{ type: "semantic", on: "company", text: "CMO" }])),
    );
  });

  it("gives one key to null, absent and an empty group root", () => {
    const keys = new Set([
      canonicalKey(null),
      canonicalKey(undefined),
      key(null),
      key(undefined),
      key({ type: "group" }),
      key({ type: "group", op: "AND", children: [], negate: false, id: "x" }),
      key({ type: "group", joinWithPrevious: "OR" }),
    ]);
    expect(keys.size).toBe(1);
    expect(canonicalKey(null)).toBe('{"children":[],"negate":false,"op":"AND","type":"group"}');
  });

  it("writes keys sorted at every level, leaving undefined out", () => {
    expect(stableStringify({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
    );
    expect(stableStringify(null)).toBe("null");
    expect(stableStringify(undefined)).toBe("null");
    expect(stableStringify("x")).toBe('"x"');
    expect(stableStringify([1, undefined])).toBe("[1,null]");
  });

  it('tells 5 from "5" and distinct values apart', () => {
    const a = group([{ type: "condition", column: "CITY_PER", operator: "eq", value: "5" }]);
    const b = group([{ type: "condition", column: "FOUNDED_ORG", operator: "eq", value: 5 }]);
    expect(key(a)).not.toBe(key(b));
    expect(stableStringify({ v: 5 })).not.toBe(stableStringify({ v: "5" }));
  });
});

describe("canonical form: properties", () => {
  it("PROPERTY: the schema accepts every generated tree", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        expect(filterSchemas.root.safeParse(tree).success).toBe(true);
      }),
      RUNS,
    );
  });

  it("PROPERTY: canonicalFilter is idempotent through a parse", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        const once = canon(tree);
        expect(canonicalFilter(parse(once))).toEqual(once);
        expect(canonicalFilter(once)).toEqual(once);
      }),
      RUNS,
    );
  });

  it("PROPERTY: canonical output re-parses with the strict schema", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        const result = strictFilterSchemas.root.safeParse(canon(tree));
        expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
      }),
      RUNS,
    );
  });

  it("PROPERTY: canonicalKey ignores key order and ids", () => {
    fc.assert(
      fc.property(
        validFilterArb(),
        fc.integer(),
        fc.func(fc.option(fc.string({ maxLength: 6 }), { nil: undefined })),
        (tree, seed, makeId) => {
          const shuffled = shuffleKeys(tree, seed);
          const renamed = reassignIds(shuffled, (i) => makeId(i) ?? undefined);
          expect(key(shuffled)).toBe(key(tree));
          expect(key(renamed)).toBe(key(tree));
          expect(JSON.stringify(shuffled)).toHaveLength(JSON.stringify(tree).length);
        },
      ),
      RUNS,
    );
  });

  it("PROPERTY: canonicalKey ignores connectors that restate the group's op", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        const explicit = structuredClone(tree);
        for (const node of collectNodes(explicit)) {
          const g = node as unknown as GroupInput;
          if (g.type !== "group") continue;
          g.children?.forEach((child, i) => {
            if (i === 0) child.joinWithPrevious = g.op === "OR" ? "AND" : "OR";
            else child.joinWithPrevious ??= g.op ?? "AND";
          });
        }
        expect(key(explicit)).toBe(key(tree));
      }),
      RUNS,
    );
  });

  /** The condition with one value changed (a new list entry for list operators); null when it reads none. */
  function changeValue(node: ConditionInput): ConditionInput | null {
    const reads = OPERATOR_READS[node.operator];
    const bump = (v: unknown) => (typeof v === "number" ? (v < 0 ? v + 1 : v - 1) : `${String(v)}~`);
    if (reads === "value" || reads === "range")
      return { ...node, value: bump(node.value) as string | number };
    if (reads === "list") {
      const fresh =
        node.column &&
        ["FOUNDED_ORG", "REVENUE_MIN", "REVENUE_MAX", "EMPLOYEE_COUNT_MIN", "EMPLOYEE_COUNT_MAX"].includes(
          node.column,
        )
          ? "123456789012345"
          : "\u{1F600} not in the list";
      return { ...node, valueList: [...(node.valueList ?? []).filter((v) => v !== fresh), fresh] };
    }
    return null;
  }

  it("PROPERTY: trees differing in one condition value have different keys", () => {
    fc.assert(
      fc.property(validFilterArb(), validConditionArb(), fc.nat(5), (tree, condition, position) => {
        const changed = changeValue(condition);
        fc.pre(changed !== null);
        const children = tree.children ?? [];
        const at = Math.min(position, children.length);
        const withNode = (node: unknown) => ({
          ...tree,
          children: [...children.slice(0, at), node, ...children.slice(at)],
        });
        expect(filterSchemas.root.safeParse(withNode(changed)).success).toBe(true);
        expect(key(withNode(changed))).not.toBe(key(withNode(condition)));
      }),
      RUNS,
    );
  });

  it("PROPERTY: trees differing in a semantic text, a lookalike company or a negation have different keys", () => {
    fc.assert(
      fc.property(validFilterArb(), validSemanticArb(), validLookalikeArb(), (tree, semantic, lookalike) => {
        const children = tree.children ?? [];
        const withNodes = (s: unknown, l: unknown) => ({ ...tree, children: [s, ...children, l] });
        const base = key(withNodes(semantic, lookalike));
        expect(key(withNodes({ ...semantic, text: `${semantic.text} and more` }, lookalike))).not.toBe(base);
        expect(key(withNodes({ ...semantic, negate: !semantic.negate }, lookalike))).not.toBe(base);
        const renamed = lookalike.domain
          ? { ...lookalike, domain: `x${lookalike.domain}` }
          : { ...lookalike, rbidOrg: `${lookalike.rbidOrg}9` };
        expect(key(withNodes(semantic, renamed))).not.toBe(base);
        expect(key({ ...withNodes(semantic, lookalike), negate: !tree.negate })).not.toBe(base);
      }),
      RUNS,
    );
  });
});

describe("canonicalKey: the per-node cache gives exactly the plain definition", () => {
  it("PROPERTY: canonicalKey(t) = stableStringify(canonicalFilter(t)), asked once or twice", () => {
    fc.assert(
      fc.property(validFilterArb(), (input) => {
        const tree = filterSchemas.root.parse(input) as GroupNode;
        const plain = stableStringify(canonicalFilter(tree));
        expect(canonicalKey(tree)).toBe(plain);
        expect(canonicalKey(tree)).toBe(plain);
      }),
      { numRuns: 300 },
    );
  });

  it("a subtree shared between two trees is keyed right in each context", () => {
    const shared = { type: "condition", column: "CITY_PER", operator: "eq", value: "Paris" } as const;
    const first = { type: "group", op: "AND", negate: false, children: [shared] } as GroupNode;
    const second = {
      type: "group",
      op: "AND",
      negate: false,
      children: [
        { type: "condition", column: "CITY_PER", operator: "isNull" },
        { ...shared, joinWithPrevious: "OR" },
      ],
    } as GroupNode;
    const inOr = {
      type: "group",
      op: "OR",
      negate: false,
      children: [first.children[0]!, shared],
    } as GroupNode;
    for (const tree of [first, second, inOr, first])
      expect(canonicalKey(tree)).toBe(stableStringify(canonicalFilter(tree)));
  });
});
