import { describe, expect, it } from "vitest";
import {
  bandStart,
  DEFAULT_FIELDS,
  DEFAULT_GROUP_FIELD,
  formatShare,
  GROUPABLE_COLUMNS,
  isGroupable,
  normaliseFields,
  orderBuckets,
  valueLabel,
} from "../../../../src/app/features/insights/buckets";
import { readInsightsSettings } from "../../../../src/app/features/insights/insights-settings";
import { COLUMNS } from "../../../../src/contract/columns";
import { INSIGHTS_MAX_FIELDS } from "../../../../src/contract/inferred";

const EMPLOYEE_BANDS = [
  "1-10",
  "11-50",
  "51-200",
  "201-500",
  "501-1000",
  "1001-5000",
  "5001-10000",
  "10001+",
];
const REVENUE_BANDS = ["<$1M", "$1M-$10M", "$10M-$50M", "$50M-$100M", "$100M-$500M", "$500M-$1B", "$1B+"];

/** Buckets in count order (the service's), largest first: the bands shuffled. */
function byCount(values: readonly (string | null)[]) {
  return values.map((value, i) => ({ value, count: 1000 - i }));
}

describe("orderBuckets", () => {
  it("puts employee bands in band order, whatever their counts", () => {
    const shuffled = ["51-200", "11-50", "10001+", "1-10", "1001-5000", "201-500", "5001-10000", "501-1000"];
    const ordered = orderBuckets("EMPLOYEE_COUNT_RANGE_ORG", byCount(shuffled));
    expect(ordered.map((b) => b.value)).toEqual(EMPLOYEE_BANDS);
  });

  it("puts revenue bands in band order, '<$1M' first and '$1B+' last", () => {
    const shuffled = ["$10M-$50M", "$1B+", "<$1M", "$100M-$500M", "$1M-$10M", "$500M-$1B", "$50M-$100M"];
    const ordered = orderBuckets("REVENUE_RANGE_ORG", byCount(shuffled));
    expect(ordered.map((b) => b.value)).toEqual(REVENUE_BANDS);
  });

  it("puts 'not given' last, after labels without a number, and keeps the counts with their values", () => {
    const ordered = orderBuckets(
      "EMPLOYEE_COUNT_RANGE_ORG",
      byCount([null, "Self-employed", "11-50", "1-10"]),
    );
    expect(ordered.map((b) => b.value)).toEqual(["1-10", "11-50", "Self-employed", null]);
    expect(ordered.find((b) => b.value === null)?.count).toBe(1000);
  });

  it("keeps the service's order (by count) for other columns, and does not sort in place", () => {
    const buckets = byCount(["Manager", "Director", null, "VP"]);
    const ordered = orderBuckets("JOB_LEVEL_PER", buckets);
    expect(ordered.map((b) => b.value)).toEqual(["Manager", "Director", null, "VP"]);
    expect(ordered).not.toBe(buckets);
    const bands = byCount(["11-50", "1-10"]);
    orderBuckets("EMPLOYEE_COUNT_RANGE_ORG", bands);
    expect(bands.map((b) => b.value)).toEqual(["11-50", "1-10"]);
  });

  it("reads band labels the way vendors write them", () => {
    expect(bandStart("1-10")).toBe(1);
    expect(bandStart("10001+")).toBe(10001);
    expect(bandStart("10,001+")).toBe(10001);
    expect(bandStart("$1M-$10M")).toBe(1_000_000);
    expect(bandStart("$1.5B+")).toBe(1_500_000_000);
    expect(bandStart("€100k-€500k")).toBe(100_000);
    expect(bandStart("<$1M")).toBeLessThan(1_000_000);
    expect(bandStart("Unknown")).toBeNaN();
  });
});

describe("labels and shares", () => {
  it("shows null as 'Not given' and numbers without grouping (years)", () => {
    expect(valueLabel(null)).toBe("Not given");
    expect(valueLabel(1998)).toBe("1998");
    expect(valueLabel("")).toBe("(empty)");
  });

  it("rounds shares for people, never claiming 0% or 100% wrongly", () => {
    expect(formatShare(1234, 10_000)).toBe("12%");
    expect(formatShare(40, 10_000)).toBe("0.4%");
    expect(formatShare(1, 100_000)).toBe("<0.1%");
    expect(formatShare(9_999, 10_000)).toBe(">99%");
    expect(formatShare(10_000, 10_000)).toBe("100%");
    expect(formatShare(0, 10_000)).toBe("0%");
    expect(formatShare(0, 0)).toBe("0%");
  });
});

describe("groupable columns and settings", () => {
  it("offers no masked column, and the defaults are offered", () => {
    const masked = COLUMNS.filter((c) => c.maskedAs).map((c) => c.name);
    expect(masked.length).toBeGreaterThan(0);
    for (const name of masked) expect(isGroupable(name)).toBe(false);
    expect(isGroupable(DEFAULT_GROUP_FIELD)).toBe(true);
    for (const name of DEFAULT_FIELDS) expect(isGroupable(name)).toBe(true);
    expect(GROUPABLE_COLUMNS.map((c) => c.label)).toContain("Employee range");
  });

  it("normalises field lists: known, once, at most the contract's maximum", () => {
    expect(normaliseFields(["COUNTRY_NAME_PER", "EMAIL_ADDRESS_PER", "NOPE", "COUNTRY_NAME_PER"])).toEqual([
      "COUNTRY_NAME_PER",
    ]);
    expect(normaliseFields(GROUPABLE_COLUMNS.map((c) => c.name))).toHaveLength(INSIGHTS_MAX_FIELDS);
  });

  it("reads stored settings part by part, falling back to the defaults", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    } as unknown as Storage;
    expect(readInsightsSettings(storage)).toEqual({
      open: true,
      groupField: DEFAULT_GROUP_FIELD,
      fields: DEFAULT_FIELDS,
    });
    store.set(
      "ab.insights.v1",
      JSON.stringify({ open: false, groupField: "CELLPHONE_PER", fields: ["CITY_PER", 3] }),
    );
    expect(readInsightsSettings(storage)).toEqual({
      open: false,
      groupField: DEFAULT_GROUP_FIELD,
      fields: ["CITY_PER"],
    });
    store.set("ab.insights.v1", "{not json");
    expect(readInsightsSettings(storage).groupField).toBe(DEFAULT_GROUP_FIELD);
  });
});
