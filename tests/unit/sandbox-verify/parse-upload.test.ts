import { describe, expect, it } from "vitest";
import { parseCsv, parseEmailUpload, UPLOAD_ERRORS } from "../../../src/contract/verify-upload";

const utf8 = (text: string) => new TextEncoder().encode(text);
const csv = (text: string) => parseEmailUpload("list.csv", utf8(text));
const json = (value: unknown) => parseEmailUpload("list.json", utf8(JSON.stringify(value)));

describe("parseEmailUpload: file kind", () => {
  it.each(["list.txt", "list.xlsx", "csv", "list.csv.exe", "list.jsonl", "list", ""])(
    "%j is refused with 400",
    (filename) => {
      expect(parseEmailUpload(filename, utf8("a@x.com"))).toEqual({
        error: { status: 400, detail: "Only .csv and .json files are accepted" },
      });
    },
  );

  it.each(["LIST.CSV", "list.Csv", "my list.csv", "dir/list.csv"])("%j is read as CSV", (filename) => {
    expect(parseEmailUpload(filename, utf8("a@x.com"))).toEqual({ emails: ["a@x.com"] });
  });

  it.each(["LIST.JSON", "list.Json"])("%j is read as JSON", (filename) => {
    expect(parseEmailUpload(filename, utf8('["a@x.com"]'))).toEqual({ emails: ["a@x.com"] });
  });
});

describe("parseEmailUpload: CSV", () => {
  it.each([
    ["one address per line, no header", "a@x.com\nb@y.com\n", ["a@x.com", "b@y.com"]],
    ["no final line ending", "a@x.com\nb@y.com", ["a@x.com", "b@y.com"]],
    ["CRLF", "email\r\na@x.com\r\nb@y.com\r\n", ["a@x.com", "b@y.com"]],
    ["lone CR", "email\ra@x.com\rb@y.com", ["a@x.com", "b@y.com"]],
    ["header naming `email`", "name,email\nJane,jane@x.com\nBob,bob@y.com\n", ["jane@x.com", "bob@y.com"]],
    ["header `E-Mail`, any case", "id,name,E-Mail\n1,Jane,jane@x.com\n", ["jane@x.com"]],
    ["header `Email_Address`", "Email_Address,note\njane@x.com,see bob@y.com\n", ["jane@x.com"]],
    ["header ` EMAIL ` padded", "name, EMAIL \nJane, jane@x.com \n", ["jane@x.com"]],
    ["our own export's column", "RBID_PAO,EMAIL_ADDRESS_PER\np1,jane@x.com\n", ["jane@x.com"]],
    [
      "named column wins over an earlier column with @",
      "note,email\nping bob@y.com,jane@x.com\n",
      ["jane@x.com"],
    ],
    [
      "header naming no address column",
      "name,contact\nJane,jane@x.com\nBob,bob@y.com\n",
      ["jane@x.com", "bob@y.com"],
    ],
    [
      "no header, address in the second column",
      "Jane,jane@x.com,1\nBob,bob@y.com,2\n",
      ["jane@x.com", "bob@y.com"],
    ],
    ["no header, the first column with an @ in any row", "Jane,,x\nBob,bob@y.com,y\n", ["bob@y.com"]],
    [
      "quoted commas and escaped quotes",
      'name,email\n"Doe, Jane",jane@x.com\n"Bob ""B"" Smith","bob@y.com"\n',
      ["jane@x.com", "bob@y.com"],
    ],
    ["a quoted address with an escaped quote", 'email\n"""odd""@x.com"\n', ['"odd"@x.com']],
    ["a line break inside quotes", 'name,email\n"Jane\nDoe",jane@x.com\n', ["jane@x.com"]],
    [
      "blank lines and comma-only lines skipped",
      "\n\nemail\n\n a@x.com \n,\n\n b@y.com\n\n",
      ["a@x.com", "b@y.com"],
    ],
    ["duplicates kept", "a@x.com\nA@x.com\na@x.com\n", ["a@x.com", "A@x.com", "a@x.com"]],
    ["a non-address in the column kept, to be reported invalid", "email\na@x.com\nn/a\n", ["a@x.com", "n/a"]],
    ["short rows skipped where the column is missing", "name,email\nJane,jane@x.com\nBob\n", ["jane@x.com"]],
  ] as const)("%s", (_, text, expected) => {
    expect(csv(text)).toEqual({ emails: expected });
  });

  it("strips a UTF-8 byte order mark so the header is still recognised", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("Email,name\njane@x.com,Jane\n")]);
    expect(parseEmailUpload("list.csv", bytes)).toEqual({ emails: ["jane@x.com"] });
  });

  it("reads UTF-16 files marked by their byte order mark", () => {
    const text = "email\r\njane@x.com\r\n";
    const le = new Uint8Array(2 + text.length * 2);
    const be = new Uint8Array(2 + text.length * 2);
    le.set([0xff, 0xfe]);
    be.set([0xfe, 0xff]);
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      le.set([code & 0xff, code >> 8], 2 + i * 2);
      be.set([code >> 8, code & 0xff], 2 + i * 2);
    }
    expect(parseEmailUpload("list.csv", le)).toEqual({ emails: ["jane@x.com"] });
    expect(parseEmailUpload("list.csv", be)).toEqual({ emails: ["jane@x.com"] });
  });

  it("survives a Latin-1 name column next to the addresses", () => {
    const bytes = new Uint8Array([...utf8("name,email\nM"), 0xfc, ...utf8("ller,mueller@x.com\n")]);
    expect(parseEmailUpload("list.csv", bytes)).toEqual({ emails: ["mueller@x.com"] });
  });

  it.each([
    ["an empty file", ""],
    ["only blank lines", "\n\r\n  \n"],
    ["only a header", "email\n"],
    ["no @ anywhere", "name,company\nJane,Acme\n"],
    ["a header whose email column is empty", "name,email\nJane,\nBob, \n"],
  ])("%s -> 422 no addresses", (_, text) => {
    expect(csv(text)).toEqual({ error: { status: 422, detail: "The file contains no email addresses" } });
  });

  it("refuses an unclosed quote with 422, naming the line", () => {
    expect(csv('email\na@x.com\n"b@y.com\nc@z.com\n')).toEqual({
      error: { status: 422, detail: "The CSV has a quoted field that is never closed (it opens on line 3)" },
    });
  });
});

describe("parseEmailUpload: JSON", () => {
  it.each([
    ["an array of strings", ["a@x.com", " b@y.com "], ["a@x.com", "b@y.com"]],
    ["an array of objects", [{ email: "a@x.com", name: "A" }, { email: "b@y.com" }], ["a@x.com", "b@y.com"]],
    ["a mixed array", ["a@x.com", { email: "b@y.com" }], ["a@x.com", "b@y.com"]],
    ['{"emails": [...]}', { emails: ["a@x.com", "b@y.com"], note: "x" }, ["a@x.com", "b@y.com"]],
    ['{"emails": [objects]}', { emails: [{ email: "a@x.com" }] }, ["a@x.com"]],
    [
      "blank entries skipped, duplicates kept",
      ["a@x.com", "", "  ", { email: "" }, "a@x.com"],
      ["a@x.com", "a@x.com"],
    ],
  ] as const)("%s", (_, value, expected) => {
    expect(json(value)).toEqual({ emails: expected });
  });

  it("accepts a BOM before the JSON", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('["a@x.com"]')]);
    expect(parseEmailUpload("list.json", bytes)).toEqual({ emails: ["a@x.com"] });
  });

  it.each(["", "[", "{emails: []}", "a@x.com", '["a@x.com",]', "\u0000"])("malformed %j -> 422", (text) => {
    expect(parseEmailUpload("list.json", utf8(text))).toEqual({
      error: { status: 422, detail: "The file is not valid JSON" },
    });
  });

  it.each([{ foo: ["a@x.com"] }, { emails: "a@x.com" }, "a@x.com", 42, null, true])(
    "wrong shape %j -> 422",
    (value) => {
      expect(json(value)).toEqual({ error: { status: 422, detail: UPLOAD_ERRORS.jsonShape } });
    },
  );

  it.each([
    [["a@x.com", 42], 1],
    [[{ mail: "a@x.com" }], 0],
    [[{ email: 5 }], 0],
    [["a@x.com", null], 1],
    [["a@x.com", ["b@y.com"]], 1],
  ])("a bad entry %j -> 422 naming entry %i", (value, index) => {
    expect(json(value)).toEqual({
      error: {
        status: 422,
        detail: `Entry ${index} (counting from 0) is neither an address string nor an object with an "email" string`,
      },
    });
  });

  it("refuses an empty list with 422", () => {
    expect(json([])).toEqual({ error: { status: 422, detail: "The file contains no email addresses" } });
    expect(json({ emails: [] })).toEqual({
      error: { status: 422, detail: "The file contains no email addresses" },
    });
  });
});

describe("parseEmailUpload: batch size", () => {
  const addresses = (count: number) => Array.from({ length: count }, (_, i) => `user${i}@x.com`);

  it("takes 10,000 addresses", () => {
    const result = csv(`email\n${addresses(10_000).join("\n")}\n`);
    expect("emails" in result && result.emails).toHaveLength(10_000);
    expect(json(addresses(10_000))).toEqual({ emails: addresses(10_000) });
  });

  it("refuses 10,001 with 422", () => {
    const tooMany = { error: { status: 422, detail: "At most 10,000 addresses per batch" } };
    expect(csv(`email\n${addresses(10_001).join("\n")}\n`)).toEqual(tooMany);
    expect(json(addresses(10_001))).toEqual(tooMany);
  });

  it("counts after dropping blanks", () => {
    const text = `email\n${addresses(10_000).join("\n\n")}\n\n\n`;
    expect("emails" in csv(text)).toBe(true);
  });
});

describe("parseCsv", () => {
  it("keeps empty fields and records", () => {
    expect(parseCsv('a,,"",b\r\n\r\n"x"\n')).toEqual({ records: [["a", "", "", "b"], [""], ["x"]] });
  });

  it("is lenient with text after a closing quote and spaces before an opening one", () => {
    expect(parseCsv('"a"b, "c,d"\n')).toEqual({ records: [["ab", "c,d"]] });
  });

  it("counts lines inside quoted fields when naming an unclosed quote", () => {
    expect(parseCsv('"a\r\nb",c\n"d')).toEqual({ unclosedQuoteLine: 3 });
  });
});
