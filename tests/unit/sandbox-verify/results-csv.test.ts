import { describe, expect, it } from "vitest";
import { parseCsv } from "../../../src/contract/verify-upload";
import {
  CSV_EOL,
  csvField,
  neutraliseFormula,
  resultsCsvHeader,
  toCsvLine,
  toResultsCsv,
} from "../../../src/sandbox/verify/results-csv";
import type { V1Result } from "../../../src/sandbox/verify/verify-email";

const result = (email: string, overrides: Partial<V1Result> = {}): V1Result => ({
  email,
  deliverability: "UNKNOWN",
  role: false,
  risk: "MEDIUM",
  ...overrides,
});

describe("results CSV", () => {
  it("has the documented header", () => {
    expect(resultsCsvHeader).toBe("email,status,deliverability,role,risk");
  });

  it.each([
    [
      result("a@x.com", { deliverability: "DELIVERABLE", risk: "LOW" }),
      "a@x.com,Valid,DELIVERABLE,false,LOW",
    ],
    [
      result("b@y.com", { deliverability: "UNDELIVERABLE", risk: "HIGH" }),
      "b@y.com,Invalid,UNDELIVERABLE,false,HIGH",
    ],
    [result("info@z.com", { role: true }), "info@z.com,Unknown,UNKNOWN,true,MEDIUM"],
  ])("writes %j as %s", (row, line) => {
    expect(toCsvLine(row)).toBe(line);
  });

  it.each([
    ["a,b@x.com", '"a,b@x.com"'],
    ['a"b@x.com', '"a""b@x.com"'],
    ["a\nb@x.com", '"a\nb@x.com"'],
    ["a\r\nb", '"a\r\nb"'],
    ["plain@x.com", "plain@x.com"],
  ])("quotes %j as %j", (email, field) => {
    expect(toCsvLine(result(email)).startsWith(`${field},`)).toBe(true);
  });

  it.each([
    ["=cmd@x.com", "'=cmd@x.com"],
    ["+1@x.com", "'+1@x.com"],
    ["-user@x.com", "'-user@x.com"],
    ["@x.com", "'@x.com"],
    ["\t=1+1", "'\t=1+1"],
    ["\r=1", '"\'\r=1"'],
    ['=HYPERLINK("http://evil","click"),x', '"\'=HYPERLINK(""http://evil"",""click""),x"'],
    ["user=x@x.com", "user=x@x.com"],
    ["'quoted@x.com", "'quoted@x.com"],
  ])("neutralises a formula in %j -> %j", (email, field) => {
    expect(toCsvLine(result(email)).startsWith(`${field},`)).toBe(true);
  });

  it("guards and quotes each cell independently", () => {
    expect(neutraliseFormula("-")).toBe("'-");
    expect(neutraliseFormula("")).toBe("");
    expect(csvField("")).toBe("");
  });

  it("writes the whole file with CRLF after every record, and reads back as written", () => {
    const rows = [
      result("a@x.com", { deliverability: "DELIVERABLE", risk: "LOW" }),
      result('odd,"name"@x.com'),
    ];
    const file = toResultsCsv(rows);
    expect(CSV_EOL).toBe("\r\n");
    expect(file).toBe(
      `email,status,deliverability,role,risk\r\na@x.com,Valid,DELIVERABLE,false,LOW\r\n"odd,""name""@x.com",Unknown,UNKNOWN,false,MEDIUM\r\n`,
    );
    expect(parseCsv(file)).toEqual({
      records: [
        ["email", "status", "deliverability", "role", "risk"],
        ["a@x.com", "Valid", "DELIVERABLE", "false", "LOW"],
        ['odd,"name"@x.com', "Unknown", "UNKNOWN", "false", "MEDIUM"],
      ],
    });
  });

  it("writes only the header for no results", () => {
    expect(toResultsCsv([])).toBe("email,status,deliverability,role,risk\r\n");
  });
});
