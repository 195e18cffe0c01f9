import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_PICKED_COLUMNS,
  defaultMaxRows,
  deliveredColumns,
  MAX_ROWS_DEFAULT_CAP,
  PICKABLE_COLUMNS,
  requestColumns,
} from "../../../../src/app/features/checkout/export-settings";
import { selectionFilter } from "../../../../src/app/features/checkout/scope";
import type { GroupNode } from "../../../../src/contract/filter";
import { REVEALS } from "../../../../src/contract/inferred";
import { strictRequests } from "../../../../src/contract/operations";
import { fullRowColumns } from "../../../../src/sandbox/billing";

describe("maxRows", () => {
  it("defaults to the audience's count, capped at 100,000, at least 1", () => {
    expect(defaultMaxRows(2532)).toBe(2532);
    expect(defaultMaxRows(1_000_000)).toBe(MAX_ROWS_DEFAULT_CAP);
    expect(MAX_ROWS_DEFAULT_CAP).toBe(100_000);
    expect(defaultMaxRows(0)).toBe(1);
    expect(defaultMaxRows(null)).toBeNull();
  });
});

describe("columns", () => {
  it("the default pick is the service's default set, without email and mobile", () => {
    expect(DEFAULT_PICKED_COLUMNS).toEqual([
      "RBID_PAO",
      "FULL_NAME_PER",
      "JOB_TITLE_PER",
      "JOB_LEVEL_PER",
      "COMPANY_NAME_ORG",
      "COUNTRY_NAME_PER",
    ]);
    expect(PICKABLE_COLUMNS.map((c) => c.name)).not.toContain("EMAIL_ADDRESS_PER");
  });

  it("promises exactly the columns the service delivers, for any pick and reveal", () => {
    const names = PICKABLE_COLUMNS.map((c) => c.name);
    fc.assert(
      fc.property(fc.subarray(names), fc.constantFrom(...REVEALS), (picked, reveal) => {
        const sent = requestColumns(picked);
        expect(sent[0]).toBe("RBID_PAO");
        expect(deliveredColumns(sent, reveal)).toEqual(fullRowColumns(sent, reveal));
        expect(deliveredColumns(null, reveal)).toEqual(fullRowColumns(null, reveal));
      }),
    );
  });
});

describe("the selection as a filter", () => {
  const audience: GroupNode = {
    type: "group",
    op: "OR",
    negate: true,
    id: "root",
    children: [
      { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany", id: "a" },
      { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP", id: "b" },
    ],
  };

  it("is the audience ANDed with RBID_PAO in [...], valid for the strict contract", () => {
    const filter = selectionFilter(audience, ["pao_2", "pao_1"]);
    expect(filter.op).toBe("AND");
    expect(filter.children).toHaveLength(2);
    expect(filter.children[0]).toMatchObject({ type: "group", op: "OR", negate: true });
    expect(filter.children[1]).toEqual({
      type: "condition",
      column: "RBID_PAO",
      operator: "in",
      valueList: ["pao_1", "pao_2"],
    });
    expect(JSON.stringify(filter)).not.toContain('"id"');
    const parsed = strictRequests.exportStart.safeParse({ filter, maxRows: 2, reveal: "none" });
    expect(parsed.success).toBe(true);
  });

  it("of everyone is just the ids", () => {
    const filter = selectionFilter({ type: "group", op: "AND", negate: false, children: [] }, ["pao_1"]);
    expect(filter.children).toEqual([
      { type: "condition", column: "RBID_PAO", operator: "in", valueList: ["pao_1"] },
    ]);
  });
});
