import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { COLUMNS } from "../../../src/contract/columns";
import { toValidationRecord } from "../../../src/contract/errors";
import { filterDepth, filterSchemas, strictFilterSchemas } from "../../../src/contract/filter";
import { OPERATORS, type Operator } from "../../../src/contract/inferred";
import { requests, strictRequests } from "../../../src/contract/operations";
import {
  brokenFilterArb,
  invalidFilterArb,
  withUnknownFieldsArb,
} from "../../support/arbitraries/broken-filter";
import { nestedGroups, validFilterArb } from "../../support/arbitraries/valid-filter";

const RUNS = { numRuns: 300 };

/** The operator lists of src/sandbox/README.md, written out independently of src/contract. */
const TEXT_OPS = ["eq", "ne", "contains", "startsWith", "endsWith", "in", "notIn", "isNull", "isNotNull"];
const INTEGER_OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "between", "in", "notIn", "isNull", "isNotNull"];
const MASKED_OPS = ["isNull", "isNotNull"];
const READS_VALUE = ["eq", "ne", "gt", "gte", "lt", "lte", "contains", "startsWith", "endsWith"];

/** A condition carrying exactly the operands src/sandbox/README.md says `operator` reads. */
function conditionWithOperands(column: string, operator: Operator, integer: boolean) {
  const one = integer ? 42 : "Berlin";
  const base = { type: "condition", column, operator };
  if (READS_VALUE.includes(operator)) return { ...base, value: one };
  if (operator === "between") return { ...base, value: integer ? 10 : "a", value2: integer ? 20 : "z" };
  if (operator === "in" || operator === "notIn")
    return { ...base, valueList: integer ? ["1", "2"] : ["a", "b"] };
  return base;
}

const inRoot = (...children: unknown[]) => ({ type: "group", children });

function issuesOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success, `expected a refusal of ${preview(input)}`).toBe(false);
  return result.error!.issues;
}

/** A short text of a value for messages; safe on values too deep to stringify. */
function preview(value: unknown): string {
  try {
    return String(JSON.stringify(value)).slice(0, 200);
  } catch {
    return "(a value too deep to print)";
  }
}

function paths(schema: z.ZodType, input: unknown) {
  return issuesOf(schema, input).map((i) => i.path);
}

describe("filter schema: the documented defaults", () => {
  it("fills a bare group with op AND, no children and negate false", () => {
    expect(filterSchemas.group.parse({ type: "group" })).toEqual({
      type: "group",
      op: "AND",
      children: [],
      negate: false,
    });
  });

  it("fills the defaults of nested groups too, and adds nothing optional", () => {
    const out = filterSchemas.root.parse(inRoot({ type: "group", op: "OR" }));
    expect(out).toEqual({
      type: "group",
      op: "AND",
      negate: false,
      children: [{ type: "group", op: "OR", children: [], negate: false }],
    });
    expect(out?.children[0]).not.toHaveProperty("joinWithPrevious");
    expect(out?.children[0]).not.toHaveProperty("id");
  });

  it("defaults a condition's column to the empty string, which then is an unknown column (not a missing one)", () => {
    const issues = issuesOf(filterSchemas.condition, { type: "condition", operator: "isNull" });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toEqual(["column"]);
    expect(issues[0]!.message).toContain("''");
  });

  it("defaults a semantic node's text to the empty string (then refused as empty) and negate to false", () => {
    const issues = issuesOf(filterSchemas.semantic, { type: "semantic", on: "title" });
    expect(issues.map((i) => i.path)).toEqual([["text"]]);
    expect(issues[0]!.message).toMatch(/empty/);
    expect(filterSchemas.semantic.parse({ type: "semantic", on: "title", text: "CMO" })).toEqual({
      type: "semantic",
      on: "title",
      text: "CMO",
      negate: false,
    });
  });

  it("defaults a lookalike's missing name to the empty string and negate to false", () => {
    expect(filterSchemas.lookalike.parse({ type: "lookalike", domain: "acme.com" })).toEqual({
      type: "lookalike",
      domain: "acme.com",
      rbidOrg: "",
      negate: false,
    });
    expect(filterSchemas.lookalike.parse({ type: "lookalike", rbidOrg: "ORG1" })).toMatchObject({
      domain: "",
    });
  });

  it("treats a null or absent root as the whole dataset", () => {
    expect(filterSchemas.root.parse(null)).toBeNull();
    expect(filterSchemas.root.parse(undefined)).toBeUndefined();
  });

  it("refuses a root that is not a group", () => {
    expect(
      filterSchemas.root.safeParse({ type: "condition", column: "CITY_PER", operator: "isNull" }).success,
    ).toBe(false);
    expect(filterSchemas.root.safeParse([]).success).toBe(false);
    expect(filterSchemas.root.safeParse("group").success).toBe(false);
  });

  it("keeps null joinWithPrevious, id, match and maxDistance (the documentation allows null)", () => {
    const node = { joinWithPrevious: null, id: null };
    expect(filterSchemas.root.safeParse(inRoot({ type: "group", ...node })).success).toBe(true);
    expect(
      filterSchemas.root.safeParse(
        inRoot({ type: "semantic", on: "company", text: "x", match: null, maxDistance: null, ...node }),
      ).success,
    ).toBe(true);
  });
});

describe("filter schema: operators, operands and column types", () => {
  it("accepts exactly the operators src/sandbox/README.md lists for each column's type", () => {
    for (const column of COLUMNS) {
      const allowed = column.maskedAs ? MASKED_OPS : column.type === "integer" ? INTEGER_OPS : TEXT_OPS;
      for (const operator of OPERATORS) {
        const node = conditionWithOperands(column.name, operator, column.type === "integer");
        const result = filterSchemas.condition.safeParse(node);
        expect(result.success, `${column.name} ${operator}`).toBe(allowed.includes(operator));
        if (!result.success) expect(result.error.issues.map((i) => i.path)).toEqual([["operator"]]);
      }
    }
  });

  it.each(READS_VALUE)("%s needs value and no other operand", (operator) => {
    const column = ["gt", "gte", "lt", "lte"].includes(operator) ? "FOUNDED_ORG" : "CITY_PER";
    const integer = column === "FOUNDED_ORG";
    const ok = conditionWithOperands(column, operator as Operator, integer);
    expect(filterSchemas.condition.safeParse(ok).success).toBe(true);
    const { value: _value, ...withoutValue } = ok as { value?: unknown };
    expect(paths(filterSchemas.condition, withoutValue)).toEqual([["value"]]);
    expect(paths(filterSchemas.condition, { ...ok, value: null })).toEqual([["value"]]);
    // Only value is read: a list in its place does not satisfy it.
    expect(paths(filterSchemas.condition, { ...withoutValue, valueList: ["x"] })).toEqual([["value"]]);
  });

  it("between needs value and value2", () => {
    const base = { type: "condition", column: "EMPLOYEE_COUNT_MIN", operator: "between" };
    expect(filterSchemas.condition.safeParse({ ...base, value: 10, value2: 50 }).success).toBe(true);
    expect(paths(filterSchemas.condition, { ...base, value: 10 })).toEqual([["value2"]]);
    expect(paths(filterSchemas.condition, { ...base, value2: 10 })).toEqual([["value"]]);
    expect(paths(filterSchemas.condition, base)).toEqual([["value"], ["value2"]]);
  });

  it.each(["in", "notIn"])("%s needs a valueList of 1 to 10,000 entries", (operator) => {
    const base = { type: "condition", column: "COUNTRY_NAME_PER", operator };
    expect(filterSchemas.condition.safeParse({ ...base, valueList: ["France"] }).success).toBe(true);
    const max = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    expect(filterSchemas.condition.safeParse({ ...base, valueList: max }).success).toBe(true);
    expect(paths(filterSchemas.condition, { ...base, valueList: [...max, "one more"] })).toEqual([
      ["valueList"],
    ]);
    expect(paths(filterSchemas.condition, { ...base, valueList: [] })).toEqual([["valueList"]]);
    expect(paths(filterSchemas.condition, { ...base, valueList: null })).toEqual([["valueList"]]);
    expect(paths(filterSchemas.condition, base)).toEqual([["valueList"]]);
    // `value` is not what a list operator reads.
    expect(paths(filterSchemas.condition, { ...base, value: "France" })).toEqual([["valueList"]]);
  });

  it.each(["isNull", "isNotNull"])(
    "%s reads nothing and ignores whatever operands come with it",
    (operator) => {
      const base = { type: "condition", column: "FOUNDED_ORG", operator };
      expect(filterSchemas.condition.safeParse(base).success).toBe(true);
      expect(
        filterSchemas.condition.safeParse({ ...base, value: "not a number", value2: true }).success,
      ).toBe(true);
      expect(filterSchemas.condition.safeParse({ ...base, valueList: [] }).success).toBe(true);
    },
  );

  it("refuses an unknown column at the node's column", () => {
    for (const column of ["NOPE", "", "country_name_per", "hasEmail", "score", "__proto__", "constructor"]) {
      expect(paths(filterSchemas.condition, { type: "condition", column, operator: "isNull" })).toEqual([
        ["column"],
      ]);
    }
  });

  it("allows only null checks on the masked columns", () => {
    for (const column of ["EMAIL_ADDRESS_PER", "CELLPHONE_PER"]) {
      for (const operator of ["isNull", "isNotNull"])
        expect(filterSchemas.condition.safeParse({ type: "condition", column, operator }).success).toBe(true);
      for (const operator of ["eq", "ne", "contains", "startsWith", "endsWith", "in", "notIn"]) {
        const node = conditionWithOperands(column, operator as Operator, false);
        expect(paths(filterSchemas.condition, node), `${column} ${operator}`).toEqual([["operator"]]);
      }
    }
  });

  it("refuses operators that do not exist", () => {
    for (const operator of ["like", "EQ", "", "between ", "__proto__"]) {
      expect(paths(filterSchemas.condition, { type: "condition", column: "CITY_PER", operator })).toEqual([
        ["operator"],
      ]);
    }
  });
});

describe("filter schema: no coercion", () => {
  const eq = (column: string, value: unknown) => ({ type: "condition", column, operator: "eq", value });

  it("takes integers, and only integers, for an integer column", () => {
    expect(filterSchemas.condition.safeParse(eq("FOUNDED_ORG", 1999)).success).toBe(true);
    expect(filterSchemas.condition.safeParse(eq("FOUNDED_ORG", -3)).success).toBe(true);
    for (const value of ["5", "1999", 2.5, true, false, [5], { n: 5 }, 1e300]) {
      expect(paths(filterSchemas.condition, eq("FOUNDED_ORG", value)), JSON.stringify(value)).toEqual([
        ["value"],
      ]);
    }
    expect(
      paths(filterSchemas.condition, {
        type: "condition",
        column: "REVENUE_MIN",
        operator: "between",
        value: 1,
        value2: "1000",
      }),
    ).toEqual([["value2"]]);
  });

  it("takes strings, and only strings, for a text column", () => {
    expect(filterSchemas.condition.safeParse(eq("CITY_PER", "5")).success).toBe(true);
    expect(filterSchemas.condition.safeParse(eq("CITY_PER", "")).success).toBe(true);
    for (const value of [5, 0, true, false, ["Paris"], {}]) {
      expect(paths(filterSchemas.condition, eq("CITY_PER", value)), JSON.stringify(value)).toEqual([
        ["value"],
      ]);
    }
  });

  it("reports the wrong scalar type with pydantic's int_type / string_type", () => {
    const asInt = issuesOf(filterSchemas.condition, eq("FOUNDED_ORG", "5"))[0]!;
    expect(asInt.code).toBe("custom");
    expect((asInt as { params?: { type?: string } }).params?.type).toBe("int_type");
    const asText = issuesOf(filterSchemas.condition, eq("CITY_PER", 5))[0]!;
    expect((asText as { params?: { type?: string } }).params?.type).toBe("string_type");
  });

  it("takes only whole-number strings in an integer column's valueList, and reports each bad entry", () => {
    const base = { type: "condition", column: "EMPLOYEE_COUNT_MAX", operator: "in" };
    expect(filterSchemas.condition.safeParse({ ...base, valueList: ["10", "-7", "2024"] }).success).toBe(
      true,
    );
    expect(paths(filterSchemas.condition, { ...base, valueList: ["1", "x", "2.5", "", "1e3"] })).toEqual([
      ["valueList", 1],
      ["valueList", 2],
      ["valueList", 3],
      ["valueList", 4],
    ]);
    expect(paths(filterSchemas.condition, { ...base, valueList: [1, 2] })).toEqual([
      ["valueList", 0],
      ["valueList", 1],
    ]);
  });

  it("refuses non-string entries in a text valueList", () => {
    const base = { type: "condition", column: "COUNTRY_NAME_PER", operator: "notIn" };
    expect(paths(filterSchemas.condition, { ...base, valueList: ["France", 5, null, true] })).toEqual([
      ["valueList", 1],
      ["valueList", 2],
      ["valueList", 3],
    ]);
  });

  it("does not coerce booleans, numbers or strings elsewhere in the tree", () => {
    expect(paths(filterSchemas.group, { type: "group", negate: "false" })).toEqual([["negate"]]);
    expect(paths(filterSchemas.group, { type: "group", negate: 0 })).toEqual([["negate"]]);
    expect(
      paths(filterSchemas.semantic, { type: "semantic", on: "title", text: "CMO", maxDistance: "0.2" }),
    ).toEqual([["maxDistance"]]);
    expect(paths(filterSchemas.semantic, { type: "semantic", on: "title", text: 5 })).toEqual([["text"]]);
  });
});

describe("filter schema: semantic and lookalike nodes", () => {
  it("refuses empty or blank semantic text", () => {
    for (const text of ["", " ", "\t\n "]) {
      expect(paths(filterSchemas.semantic, { type: "semantic", on: "company", text })).toEqual([["text"]]);
    }
  });

  it("takes on = title | company, the documented match levels and maxDistance within [0, 2]", () => {
    const base = { type: "semantic", on: "title", text: "Marketing Manager" };
    for (const match of ["exact", "same", "similar", "related", "broad"])
      expect(filterSchemas.semantic.safeParse({ ...base, match }).success).toBe(true);
    for (const maxDistance of [0, 0.25, 2])
      expect(filterSchemas.semantic.safeParse({ ...base, maxDistance }).success).toBe(true);
    expect(paths(filterSchemas.semantic, { ...base, match: "close" })).toEqual([["match"]]);
    expect(paths(filterSchemas.semantic, { ...base, maxDistance: -0.01 })).toEqual([["maxDistance"]]);
    expect(paths(filterSchemas.semantic, { ...base, maxDistance: 2.01 })).toEqual([["maxDistance"]]);
    expect(paths(filterSchemas.semantic, { ...base, on: "person" })).toEqual([["on"]]);
    expect(paths(filterSchemas.semantic, { type: "semantic", text: "x" })).toEqual([["on"]]);
  });

  it("refuses a lookalike that names no company, at the node", () => {
    for (const names of [{}, { domain: "", rbidOrg: "" }, { domain: "  " }, { rbidOrg: "\t" }]) {
      expect(paths(filterSchemas.lookalike, { type: "lookalike", ...names })).toEqual([[]]);
    }
    expect(filterSchemas.lookalike.safeParse({ type: "lookalike", domain: "acme.com" }).success).toBe(true);
    expect(filterSchemas.lookalike.safeParse({ type: "lookalike", rbidOrg: "ORG1" }).success).toBe(true);
    // Node-level refusal lands on the node inside the tree.
    expect(paths(filterSchemas.root, inRoot({ type: "group", children: [{ type: "lookalike" }] }))).toEqual([
      ["children", 0, "children", 0],
    ]);
  });

  it("refuses unknown node tags and children that are not objects", () => {
    expect(paths(filterSchemas.root, inRoot({ type: "person" }))[0]?.slice(0, 2)).toEqual(["children", 0]);
    expect(paths(filterSchemas.root, inRoot(null))).toEqual([["children", 0]]);
    expect(paths(filterSchemas.root, inRoot(5))).toEqual([["children", 0]]);
    expect(paths(filterSchemas.root, { type: "group", children: {} })).toEqual([["children"]]);
  });
});

describe("filter schema: strict and lenient copies", () => {
  const cases: [string, unknown, (string | number)[]][] = [
    ["root group", { type: "group", extra: 1 }, []],
    ["nested group", inRoot({ type: "group", extra: 1 }), ["children", 0]],
    [
      "condition",
      inRoot({ type: "condition", column: "CITY_PER", operator: "isNull", extra: 1 }),
      ["children", 0],
    ],
    [
      "condition with negate (the documentation gives conditions none)",
      inRoot({ type: "condition", column: "CITY_PER", operator: "isNull", negate: true }),
      ["children", 0],
    ],
    ["semantic", inRoot({ type: "semantic", on: "title", text: "CMO", extra: 1 }), ["children", 0]],
    ["lookalike", inRoot({ type: "lookalike", domain: "acme.com", extra: 1 }), ["children", 0]],
    [
      "deep condition",
      inRoot({
        type: "group",
        children: [{ type: "condition", column: "CITY_PER", operator: "isNull", x: 0 }],
      }),
      ["children", 0, "children", 0],
    ],
  ];

  it.each(cases)("strict refuses an unknown field on a %s, at that node", (_name, tree, at) => {
    const issues = issuesOf(strictFilterSchemas.root, tree);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.code).toBe("unrecognized_keys");
    expect(issues[0]!.path).toEqual(at);
  });

  it.each(cases)("lenient strips an unknown field on a %s", (_name, tree) => {
    const out = filterSchemas.root.parse(tree);
    const json = JSON.stringify(out);
    expect(json).not.toContain('"extra"');
    expect(json).not.toContain('"x"');
    expect(json).not.toContain('negate":true');
  });

  it("treats prototype keys as plain unknown fields and pollutes nothing", () => {
    const body = JSON.parse('{"type":"group","__proto__":{"op":"OR","polluted":true},"constructor":{"x":1}}');
    const lenient = filterSchemas.root.parse(body);
    expect(lenient).toEqual({ type: "group", op: "AND", children: [], negate: false });
    expect(Object.getPrototypeOf(lenient)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const strict = issuesOf(strictFilterSchemas.root, body);
    expect(strict.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : []))).toEqual([
      "__proto__",
      "constructor",
    ]);
  });

  it("PROPERTY: strict refuses every added unknown field (one 422 entry each); lenient parses to what the clean tree gives", () => {
    fc.assert(
      fc.property(withUnknownFieldsArb(), ({ clean, noisy, added }) => {
        const strict = strictFilterSchemas.root.safeParse(noisy);
        expect(strict.success).toBe(false);
        const record = toValidationRecord(strict.error!.issues, "body", noisy);
        expect(record.detail.filter((d) => d.type === "extra_forbidden")).toHaveLength(added);
        expect(filterSchemas.root.parse(noisy)).toEqual(filterSchemas.root.parse(clean));
      }),
      RUNS,
    );
  });
});

describe("filter schema: depth", () => {
  it("measures depth through children, the root counting as one", () => {
    expect(filterDepth(null)).toBe(0);
    expect(filterDepth({ type: "group" })).toBe(1);
    expect(filterDepth(nestedGroups(5))).toBe(5);
    expect(filterDepth(nestedGroups(5, { type: "condition", column: "CITY_PER", operator: "isNull" }))).toBe(
      6,
    );
  });

  it("accepts 32 levels", () => {
    expect(filterSchemas.root.safeParse(nestedGroups(32)).success).toBe(true);
    expect(strictFilterSchemas.root.safeParse(nestedGroups(32)).success).toBe(true);
    const leaf = { type: "condition" as const, column: "CITY_PER", operator: "isNull" as const };
    expect(requests.count.safeParse({ filter: nestedGroups(31, leaf) }).success).toBe(true);
  });

  it("refuses 33 levels with a single issue at the filter", () => {
    for (const schema of [requests.count, strictRequests.count]) {
      const issues = issuesOf(schema, { filter: nestedGroups(33) });
      expect(issues).toHaveLength(1);
      expect(issues[0]!.path).toEqual(["filter"]);
      expect(issues[0]!.message).toMatch(/33/);
    }
    const leaf = { type: "condition" as const, column: "CITY_PER", operator: "isNull" as const };
    expect(issuesOf(requests.count, { filter: nestedGroups(32, leaf) }).map((i) => i.path)).toEqual([
      ["filter"],
    ]);
  });

  it("refuses a too-deep filter before looking at its (invalid) nodes", () => {
    const deep = nestedGroups(40, { type: "condition", column: "NOPE", operator: "like" } as never);
    expect(issuesOf(requests.count, { filter: deep }).map((i) => i.path)).toEqual([["filter"]]);
  });

  it("refuses a 100,000-deep filter quickly, without a stack overflow", () => {
    const deep = nestedGroups(100_000);
    // The same thing arriving as a request body.
    const body = `${'{"type":"group","children":['.repeat(100_000)}${"]}".repeat(100_000)}`;
    // "Quickly" is against reading the body, timed in the same moment (a busy machine slows both):
    // a refusal that walked the tree more than a few times over would be far beyond this.
    const readStarted = performance.now();
    const parsed = JSON.parse(body);
    const readMs = performance.now() - readStarted;
    for (const filter of [deep, parsed]) {
      const started = performance.now();
      for (const schema of [requests.count, strictRequests.count, requests.view]) {
        const issues = issuesOf(schema, { filter });
        expect(issues.map((i) => i.path)).toEqual([["filter"]]);
      }
      expect(performance.now() - started).toBeLessThan(1000 + 100 * readMs);
    }
  });

  it("refuses a deep chain of non-group nodes carrying children too", () => {
    let node: Record<string, unknown> = { type: "condition", column: "CITY_PER", operator: "isNull" };
    for (let i = 0; i < 50_000; i++) node = { type: "semantic", on: "title", text: "x", children: [node] };
    expect(
      issuesOf(requests.count, { filter: { type: "group", children: [node] } }).map((i) => i.path),
    ).toEqual([["filter"]]);
  });
});

describe("filter schema: properties", () => {
  it("PROPERTY: every valid tree is accepted by both copies, to the same output", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        const lenient = filterSchemas.root.safeParse(tree);
        const strict = strictFilterSchemas.root.safeParse(tree);
        expect(lenient.success).toBe(true);
        expect(strict.success).toBe(true);
        expect(strict.data).toEqual(lenient.data);
      }),
      RUNS,
    );
  });

  it("PROPERTY: a parsed tree parses to itself (defaults are a fixed point)", () => {
    fc.assert(
      fc.property(validFilterArb(), (tree) => {
        const once = filterSchemas.root.parse(tree);
        expect(strictFilterSchemas.root.parse(once)).toEqual(once);
      }),
      RUNS,
    );
  });

  it("PROPERTY: a tree with one node made invalid is refused by both copies, at a path into the tree", () => {
    fc.assert(
      fc.property(invalidFilterArb(), (tree) => {
        for (const schema of [filterSchemas.root, strictFilterSchemas.root]) {
          const result = schema.safeParse(tree);
          expect(result.success).toBe(false);
          for (const issue of result.error!.issues)
            for (const key of issue.path) expect(["string", "number"]).toContain(typeof key);
        }
      }),
      RUNS,
    );
  });

  it("PROPERTY: adversarial values never throw; what strict accepts lenient accepts; accepted output is a clean tree", () => {
    fc.assert(
      fc.property(brokenFilterArb(), (value) => {
        const lenient = filterSchemas.root.safeParse(value);
        const strict = strictFilterSchemas.root.safeParse(value);
        if (strict.success) expect(lenient.success).toBe(true);
        if (lenient.success) expect(strictFilterSchemas.root.safeParse(lenient.data).success).toBe(true);
      }),
      RUNS,
    );
  });
});
