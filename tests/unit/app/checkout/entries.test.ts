import { describe, expect, it } from "vitest";
import { callsFor, chunkEntries, parseEntries } from "../../../../src/app/features/checkout/entries";
import { ENRICH_MAX_ENTRIES } from "../../../../src/contract/inferred";

describe("pasted lists of ids and emails", () => {
  it("splits on whitespace, commas and semicolons; tells ids from emails", () => {
    const parsed = parseEntries("pao_1, pao_2;pao_3\n  jane@example.com\tJOHN@Example.org ");
    expect(parsed.ids).toEqual(["pao_1", "pao_2", "pao_3"]);
    expect(parsed.emails).toEqual(["jane@example.com", "JOHN@Example.org"]);
    expect(parsed.duplicates).toBe(0);
    expect(parsed.invalid).toEqual([]);
  });

  it("removes duplicates (emails without regard to case) and counts them", () => {
    const parsed = parseEntries("pao_1 pao_1 a@b.co A@B.CO pao_2 a@b.co");
    expect(parsed.ids).toEqual(["pao_1", "pao_2"]);
    expect(parsed.emails).toEqual(["a@b.co"]);
    expect(parsed.duplicates).toBe(3);
  });

  it("lists invalid entries once each, in order", () => {
    const long = "x".repeat(65);
    const parsed = parseEntries(`bad!id x@y @nope pao_ok bad!id ${long} a@b@c.d`);
    expect(parsed.ids).toEqual(["pao_ok"]);
    expect(parsed.invalid).toEqual(["bad!id", "x@y", "@nope", long, "a@b@c.d"]);
  });

  it("takes quoted and bracketed addresses as the address", () => {
    expect(parseEntries('"jane@example.com" <john@example.com>').emails).toEqual([
      "jane@example.com",
      "john@example.com",
    ]);
  });

  it("empty input is nothing", () => {
    expect(parseEntries(" ,; \n")).toEqual({ ids: [], emails: [], duplicates: 0, invalid: [] });
  });

  it("splits long lists into calls of at most 1,000, ids then emails, order kept", () => {
    const ids = Array.from({ length: 1500 }, (_, i) => `pao_${i}`);
    const emails = Array.from({ length: 700 }, (_, i) => `p${i}@example.com`);
    const chunks = chunkEntries(ids, emails);
    expect(chunks).toHaveLength(3);
    expect(callsFor(ids.length + emails.length)).toBe(3);
    expect(chunks.map((c) => (c.personIds?.length ?? 0) + (c.emails?.length ?? 0))).toEqual([
      1000, 1000, 200,
    ]);
    expect(chunks[0]?.emails).toBeUndefined();
    expect(chunks[1]?.personIds).toHaveLength(500);
    expect(chunks[1]?.emails).toHaveLength(500);
    expect(chunks[2]?.personIds).toBeUndefined();
    expect(chunks.flatMap((c) => c.personIds ?? [])).toEqual(ids);
    expect(chunks.flatMap((c) => c.emails ?? [])).toEqual(emails);
    expect(ENRICH_MAX_ENTRIES).toBe(1000);
  });

  it("a list that fits is one call; nothing is no call", () => {
    expect(chunkEntries(["a"], [])).toEqual([{ personIds: ["a"] }]);
    expect(chunkEntries([], [])).toEqual([]);
    expect(callsFor(0)).toBe(0);
    expect(callsFor(1000)).toBe(1);
    expect(callsFor(1001)).toBe(2);
  });
});
