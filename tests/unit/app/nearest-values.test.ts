import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PRESENCE_CHECKED_MAX, PRESENCE_CHUNK, presenceChunks } from "../../../src/app/api/value-counts";
import { closeness, editDistance, nearestValues } from "../../../src/app/lib/nearest-values";

const countries = [
  { value: "United States", count: 417_665 },
  { value: "United Kingdom", count: 82_893 },
  { value: "United Arab Emirates", count: 8_511 },
  { value: "Ukraine", count: 900 },
  { value: "Germany", count: 45_426 },
  { value: "Greece", count: 3_000 },
  { value: "France", count: 36_709 },
];

describe("what a typed value probably meant", () => {
  it("reads initials, shared starts and typos, best first", () => {
    expect(nearestValues("UK", countries).map((c) => c.value)).toEqual(["United Kingdom"]);
    expect(nearestValues("uae", countries).map((c) => c.value)).toEqual(["United Arab Emirates"]);
    expect(nearestValues("US", countries)[0]?.value).toBe("United States");
    expect(nearestValues("Germny", countries).map((c) => c.value)).toEqual(["Germany"]);
    expect(nearestValues("frnace", countries).map((c) => c.value)).toEqual(["France"]);
    expect(nearestValues("Unit", countries).map((c) => c.value)).toEqual(["United States", "United Kingdom"]);
  });

  it("offers nothing for a value that resembles none, nor the value itself", () => {
    expect(nearestValues("Narnia", countries)).toEqual([]);
    expect(nearestValues("germany", countries)).toEqual([]);
    expect(nearestValues("", countries)).toEqual([]);
  });

  it("counts an adjacent swap as one edit", () => {
    expect(editDistance("france", "frnace")).toBe(1);
    expect(editDistance("germany", "germny")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("never scores outside [0, 1], and a value is never its own suggestion", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const score = closeness(a, b);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(closeness(a, a)).toBe(0);
      }),
    );
  });
});

describe("the values a presence check asks about", () => {
  it("are deduplicated without case, blanks dropped, in chunks a breakdown answers whole", () => {
    expect(presenceChunks(["UK", "uk", " Germany ", "", "France"])).toEqual([["France", "Germany", "UK"]]);
    const many = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    const chunks = presenceChunks(many);
    expect(chunks.flat()).toHaveLength(PRESENCE_CHECKED_MAX);
    expect(chunks.every((chunk) => chunk.length <= PRESENCE_CHUNK)).toBe(true);
    // A target-account list is checked whole, up to the limit given.
    expect(presenceChunks(many, 10_000).flat()).toHaveLength(1000);
  });
});
