import { describe, expect, it } from "vitest";
import {
  addressesCsv,
  analyseEntries,
  BATCH_MAX,
  listFileKind,
  looksLikeEmail,
  parseAddressList,
  parseListFile,
  pastedListName,
} from "../../../../src/app/features/verify/address-list";

describe("looksLikeEmail", () => {
  it("accepts plain addresses and refuses what cannot be one", () => {
    for (const ok of ["a@b.co", "jane.doe+tag@sub.company.com", "josé@bücher.de", "O'Neil@x.ie"])
      expect(looksLikeEmail(ok), ok).toBe(true);
    for (const bad of ["", "a", "a@b", "@b.com", "a@@b.com", "a b@c.com", "a@b..com", "a@b.com,", "a@.com"])
      expect(looksLikeEmail(bad), bad).toBe(false);
    expect(looksLikeEmail(`${"x".repeat(320)}@a.com`)).toBe(false);
  });
});

describe("parseAddressList", () => {
  it("splits on new lines, commas, semicolons and whitespace", () => {
    const list = parseAddressList("a@x.com\nb@x.com, c@x.com;d@x.com\te@x.com  f@x.com\r\ng@x.com");
    expect(list.addresses).toEqual([
      "a@x.com",
      "b@x.com",
      "c@x.com",
      "d@x.com",
      "e@x.com",
      "f@x.com",
      "g@x.com",
    ]);
    expect(list).toMatchObject({ duplicates: 0, invalid: [], entries: 7 });
  });

  it("dedupes case-insensitively, keeping the first spelling, and counts the repeats", () => {
    const list = parseAddressList("Jane@X.com\njane@x.com\nJANE@x.COM\njoe@x.com\njoe@x.com");
    expect(list.addresses).toEqual(["Jane@X.com", "joe@x.com"]);
    expect(list.duplicates).toBe(3);
    expect(list.entries).toBe(5);
  });

  it("lists entries that are not addresses, once each, as typed", () => {
    const list = parseAddressList("ok@x.com, nope, also-bad@, nope, @x.com");
    expect(list.addresses).toEqual(["ok@x.com"]);
    expect(list.invalid).toEqual(["nope", "also-bad@", "@x.com"]);
    expect(list.duplicates).toBe(1);
    expect(list.entries).toBe(5);
  });

  it("takes addresses out of quotes, angle brackets and mailto:", () => {
    const list = parseAddressList("\"Jane\" <jane@x.com>, mailto:joe@x.com (ann@x.com) 'bo@x.com'.");
    expect(list.addresses).toEqual(["jane@x.com", "joe@x.com", "ann@x.com", "bo@x.com"]);
    expect(list.invalid).toEqual(['"Jane"']);
  });

  it("blank input is no entries", () => {
    expect(parseAddressList("  \n ,; \n")).toEqual({ addresses: [], duplicates: 0, invalid: [], entries: 0 });
  });

  it("handles a long list quickly", () => {
    const text = Array.from({ length: BATCH_MAX }, (_, i) => `person${i}@company${i % 50}.com`).join("\n");
    const started = performance.now();
    const list = parseAddressList(`${text}\n${text}`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(list.addresses).toHaveLength(BATCH_MAX);
    expect(list.duplicates).toBe(BATCH_MAX);
  });

  it("analyseEntries reads cells already split", () => {
    expect(analyseEntries([" a@x.com ", "", "A@x.com", "b"])).toEqual({
      addresses: ["a@x.com"],
      duplicates: 1,
      invalid: ["b"],
      entries: 3,
    });
  });
});

describe("parseListFile", () => {
  it("knows .csv, .json and .txt only", () => {
    expect(["a.CSV", "b.json", "c.txt", "d.xlsx", "e"].map(listFileKind)).toEqual([
      "csv",
      "json",
      "txt",
      null,
      null,
    ]);
    expect(parseListFile("list.xlsx", "a@x.com")).toEqual({
      ok: false,
      error: "Choose a .csv, .json or .txt file.",
    });
  });

  it("CSV with a header: the column named email, every non-blank cell (repeats and bad ones kept)", () => {
    const csv =
      'name,Email,city\r\nJane,jane@x.com,Paris\r\nJoe,"joe@x.com",Rome\r\nAnn,,Oslo\r\nBo,bad,Lima\r\nJ2,JANE@x.com,Nice\r\n';
    const result = parseListFile("people.csv", csv);
    expect(result).toMatchObject({
      ok: true,
      kind: "csv",
      entries: ["jane@x.com", "joe@x.com", "bad", "JANE@x.com"],
    });
    if (!result.ok) throw new Error("expected ok");
    expect(result.list).toMatchObject({
      addresses: ["jane@x.com", "joe@x.com"],
      duplicates: 1,
      invalid: ["bad"],
    });
  });

  it("CSV without a header: the first column holding an @; a BOM is ignored", () => {
    const result = parseListFile("list.csv", "\uFEFFJane,jane@x.com\nJoe,joe@x.com\n");
    expect(result).toMatchObject({ ok: true, entries: ["jane@x.com", "joe@x.com"] });
  });

  it("CSV problems are sentences: an unclosed quote, no addresses", () => {
    expect(parseListFile("a.csv", 'email\n"jane@x.com\n')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/quoted field that is never closed/),
    });
    expect(parseListFile("a.csv", "name\nJane\n")).toEqual({
      ok: false,
      error: "The file contains no email addresses.",
    });
  });

  it("JSON: a list of strings, of {email} objects, or {emails: [...]}", () => {
    expect(parseListFile("a.json", '["a@x.com","b@x.com"]')).toMatchObject({
      ok: true,
      entries: ["a@x.com", "b@x.com"],
    });
    expect(parseListFile("a.json", '[{"email":"a@x.com"},"b@x.com"]')).toMatchObject({
      ok: true,
      entries: ["a@x.com", "b@x.com"],
    });
    expect(parseListFile("a.json", '{"emails":["a@x.com"]}')).toMatchObject({
      ok: true,
      entries: ["a@x.com"],
    });
    expect(parseListFile("a.json", "{nope")).toEqual({ ok: false, error: "The file is not valid JSON." });
    expect(parseListFile("a.json", '{"list":[]}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Expected a JSON list/),
    });
    expect(parseListFile("a.json", '["a@x.com", 3]')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Entry 2/),
    });
  });

  it("TXT: split like a paste; the distinct addresses are what will be sent", () => {
    const result = parseListFile("a.txt", "a@x.com\nA@x.com, b@x.com junk");
    expect(result).toMatchObject({ ok: true, kind: "txt", entries: ["a@x.com", "b@x.com"] });
    if (!result.ok) throw new Error("expected ok");
    expect(result.list).toMatchObject({ duplicates: 1, invalid: ["junk"] });
  });

  it("more than one job's worth is refused with the limit", () => {
    const lines = Array.from({ length: BATCH_MAX + 1 }, (_, i) => `p${i}@x.com`).join("\n");
    expect(parseListFile("big.csv", lines)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/at most 10,000/),
    });
  });
});

describe("addressesCsv / pastedListName", () => {
  it("one column with an email header, CRLF", () => {
    expect(addressesCsv(["a@x.com", "b@x.com"])).toBe("email\r\na@x.com\r\nb@x.com\r\n");
    // The service reads it back as the same addresses.
    expect(parseListFile("x.csv", addressesCsv(["a@x.com", "b@x.com"]))).toMatchObject({
      ok: true,
      entries: ["a@x.com", "b@x.com"],
    });
  });

  it("names a pasted list by the time", () => {
    expect(pastedListName(new Date(2026, 0, 5, 9, 7))).toBe("pasted-list-2026-01-05-0907.csv");
  });
});
