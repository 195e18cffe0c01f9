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
import { REVEALS } from "../../../../src/contract/inferred";
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
