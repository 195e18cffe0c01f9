// @vitest-environment jsdom
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  EXPORT_FORMAT,
  exportEnvelope,
  exportFileName,
  exportTreeJson,
  importTreeJson,
} from "../../../../src/app/features/saved-audiences/tree-json";
import { emptyTree } from "../../../../src/app/lib/filter/tree";
import type { GroupNode } from "../../../../src/contract/filter";
import { strictFilterSchemas } from "../../../../src/contract/filter";
import { invalidFilterArb } from "../../../support/arbitraries/broken-filter";
import { validFilterArb } from "../../../support/arbitraries/valid-filter";

const parse = (raw: unknown) => JSON.parse(JSON.stringify(strictFilterSchemas.root.parse(raw))) as GroupNode;

const TREE: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [
    { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" },
    { type: "condition", column: "JOB_LEVEL_PER", operator: "in", valueList: ["Director", "VP"] },
    { type: "condition", column: "EMPLOYEE_COUNT_MIN", operator: "gte", value: 50 },
  ],
};

describe("export", () => {
  afterEach(() => vi.restoreAllMocks());

  it("wraps the filter in a versioned envelope", () => {
    expect(exportEnvelope(TREE, "  Directors in Germany ")).toEqual({
      format: "audience-builder/filter",
      version: 1,
      name: "Directors in Germany",
      filter: TREE,
    });
    expect(exportEnvelope(TREE)).toEqual({ format: EXPORT_FORMAT, version: 1, name: null, filter: TREE });
  });

  it("names the file after the audience", () => {
    expect(exportFileName("Directors in Germany (2)")).toBe("directors-in-germany-2.json");
    expect(exportFileName("Zürich / Genève")).toBe("zurich-geneve.json");
    expect(exportFileName("東京 CTOs")).toBe("東京-ctos.json");
    expect(exportFileName("  ***  ")).toBe("audience.json");
    expect(exportFileName(null)).toBe("audience.json");
    expect(exportFileName("x".repeat(200))).toBe(`${"x".repeat(60)}.json`);
  });

  it("downloads a JSON Blob through an object URL and a temporary link", async () => {
    vi.useFakeTimers();
    const blobs: Blob[] = [];
    const create = vi.spyOn(URL, "createObjectURL").mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return "blob:test/1";
    });
    const revoke = vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    expect(exportTreeJson(TREE, "Directors")).toBe("directors.json");
    expect(create).toHaveBeenCalledTimes(1);
    expect(clicked).toHaveLength(1);
    expect(clicked[0]?.download).toBe("directors.json");
    expect(clicked[0]?.getAttribute("href")).toBe("blob:test/1");
    expect(clicked[0]?.isConnected).toBe(false);
    expect(blobs[0]?.type).toBe("application/json");
    const text = await blobs[0]!.text();
    expect(JSON.parse(text)).toEqual(exportEnvelope(TREE, "Directors"));
    vi.advanceTimersByTime(1_000);
    expect(revoke).toHaveBeenCalledWith("blob:test/1");
    vi.useRealTimers();
  });
});

describe("import", () => {
  it("reads back what export writes, for every valid tree", () => {
    fc.assert(
      fc.property(validFilterArb().map(parse), fc.string({ maxLength: 20 }), (tree, name) => {
        const text = JSON.stringify(exportEnvelope(tree, name));
        const trimmed = name.trim();
        expect(importTreeJson(text)).toEqual(trimmed ? { tree, name: trimmed } : { tree });
      }),
      { numRuns: 200 },
    );
  });

  it("accepts a bare filter group, with the contract's defaults applied", () => {
    expect(importTreeJson(JSON.stringify({ type: "group", children: [] }))).toEqual({ tree: emptyTree() });
    expect(importTreeJson(JSON.stringify(TREE))).toEqual({ tree: TREE });
  });

  it("reads a null filter as everyone", () => {
    expect(importTreeJson(JSON.stringify({ format: EXPORT_FORMAT, version: 1, filter: null }))).toEqual({
      tree: emptyTree(),
    });
  });

  it("refuses every invalid tree with readable lines", () => {
    fc.assert(
      fc.property(invalidFilterArb(), (bad) => {
        const result = importTreeJson(JSON.stringify({ format: EXPORT_FORMAT, version: 1, filter: bad }));
        expect(result).toEqual({ errors: expect.any(Array) });
        if (!("errors" in result)) return;
        expect(result.errors.length).toBeGreaterThan(0);
        // Where, in words (never a path), then a sentence (pydantic's "Value error, " prefix taken off).
        for (const line of result.errors) {
          expect(line).toMatch(
            /^((the filter|rule [\d.]+)(, [^:]+)?: (?!Value error)\S|The top of a filter must be a group|Expected a filter group)/,
          );
          expect(line).not.toMatch(/›|valueList|rbidOrg/);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("says where and what in words, e.g. `rule 3, its value: Enter a whole number`", () => {
    const bad = {
      format: EXPORT_FORMAT,
      version: 1,
      name: "Bad",
      filter: {
        ...TREE,
        children: [
          TREE.children[0],
          { type: "condition", column: "JOB_LEVEL_PER", operator: "in", valueList: [], colour: "red" },
          { type: "condition", column: "EMPLOYEE_COUNT_MIN", operator: "gte", value: "fifty" },
          { type: "semantic", on: "title", text: "   " },
          { type: "condition", column: "NOPE", operator: "eq", value: "x" },
        ],
      },
    };
    expect(importTreeJson(JSON.stringify(bad))).toEqual({
      errors: [
        "rule 2, “colour”: Unknown field: remove it",
        "rule 2, its list of values: A list holds 1 to 10000 values",
        "rule 3, its value: Enter a whole number",
        "rule 4, its text: Text must not be empty",
        "rule 5, its field: There is no field “NOPE”",
      ],
    });
  });

  it("refuses unfinished rules that a link or storage would keep", () => {
    const unfinished = {
      ...TREE,
      children: [{ type: "condition", column: "FOUNDED_ORG", operator: "between" }],
    };
    expect(importTreeJson(JSON.stringify(unfinished))).toEqual({
      errors: ["rule 1, its value: Required, but missing", "rule 1, its upper end: Required, but missing"],
    });
  });

  it("explains files that are not audiences at all", () => {
    const cases: [string, RegExp][] = [
      ["", /Nothing to import/],
      ["{oops", /^This is not valid JSON \(/],
      ["[1,2]", /This is not an audience/],
      ['"group"', /This is not an audience/],
      [JSON.stringify({ hello: "world" }), /This is not an audience/],
      [
        JSON.stringify({ format: "other/thing", version: 1, filter: TREE }),
        /^format: Expected "audience-builder\/filter"/,
      ],
      [
        JSON.stringify({ format: EXPORT_FORMAT, version: 2, filter: TREE }),
        /^version: .*newer Audience Builder/,
      ],
      [JSON.stringify({ format: EXPORT_FORMAT, version: "1", filter: TREE }), /^version: Expected 1/],
      [JSON.stringify({ format: EXPORT_FORMAT, version: 1 }), /^filter: Required, but missing/],
      [JSON.stringify({ format: EXPORT_FORMAT, version: 1, name: 5, filter: TREE }), /^name: Enter text/],
      [
        JSON.stringify({ type: "condition", column: "CITY_PER", operator: "eq", value: "x" }),
        /^The top of a filter must be a group .*, not "condition"$/,
      ],
    ];
    for (const [text, message] of cases) {
      const result = importTreeJson(text);
      expect(result, text).toEqual({ errors: [expect.stringMatching(message)] });
    }
  });

  it("cuts an imported name to 120 characters (the server's limit) and drops a blank one", () => {
    const long = importTreeJson(JSON.stringify(exportEnvelope(TREE, "n".repeat(200))));
    expect(long).toEqual({ tree: TREE, name: "n".repeat(120) });
    expect(importTreeJson(JSON.stringify({ ...exportEnvelope(TREE), name: "   " }))).toEqual({ tree: TREE });
  });
});
