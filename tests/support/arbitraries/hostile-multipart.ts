import fc from "fast-check";
import { OPERATIONS } from "../../../src/contract/routes";
import { idempotencyKeyArb } from "./hostile-bodies";
import { latin1, type Recipe, shown, utf8 } from "./raw-request";

// ---------------------------------------------------------------------------------------------
// Multipart (the upload operations)
// ---------------------------------------------------------------------------------------------

const UPLOADS = OPERATIONS.filter((op) => op.bodyKind === "multipart");

interface Part {
  headers: string[];
  content: Uint8Array;
}
const filePart = (name: string, filename: string, content: string | Uint8Array, type = "text/csv"): Part => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    `Content-Type: ${type}`,
  ],
  content: typeof content === "string" ? utf8(content) : content,
});
const fieldPart = (name: string, value: string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  content: utf8(value),
});

export function multipart(boundary: string, parts: Part[], close = true): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(latin1(`--${boundary}\r\n${part.headers.join("\r\n")}\r\n\r\n`), part.content, utf8("\r\n"));
  }
  if (close) chunks.push(latin1(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const CSV = "email\nalice@example.com\nbob@example.org\n";

const MULTIPART_CASES: readonly {
  name: string;
  type: (b: string) => string;
  body: (b: string) => Uint8Array;
}[] = [
  {
    name: "well-formed",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "list.csv", CSV)]),
  },
  {
    name: "no boundary parameter",
    type: () => "multipart/form-data",
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "boundary mismatch",
    type: (b) => `multipart/form-data; boundary=${b}x`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "quoted boundary",
    type: (b) => `multipart/form-data; boundary="${b}"`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "boundary too long",
    type: () => `multipart/form-data; boundary=${"b".repeat(200)}`,
    body: () => multipart("b".repeat(200), [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "no closing delimiter",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)], false),
  },
  {
    name: "two files",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [filePart("requested_file", "a.csv", CSV), filePart("requested_file", "b.csv", CSV)]),
  },
  {
    name: "file as a plain field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [fieldPart("requested_file", CSV)]),
  },
  {
    name: "extra field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV), fieldPart("process_id", "1")]),
  },
  {
    name: "__proto__ field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [fieldPart("__proto__", "{}"), filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "traversal filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "../../../etc/passwd", CSV)]),
  },
  {
    name: "filename with CRLF",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv\r\nX-Key: stolen", CSV)]),
  },
  {
    name: "filename with NUL and quotes",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", 'a\x00".csv', CSV)]),
  },
  {
    name: "huge filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", `${"n".repeat(50_000)}.csv`, CSV)]),
  },
  {
    name: "RFC 5987 filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            `Content-Disposition: form-data; name="requested_file"; filename*=UTF-8''%E2%80%AEvsc.exe`,
            "Content-Type: text/csv",
          ],
          content: utf8(CSV),
        },
      ]),
  },
  {
    name: "empty file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "empty.csv", "")]),
  },
  {
    name: "binary file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        filePart(
          "requested_file",
          "x.bin",
          Uint8Array.from({ length: 2048 }, (_, i) => (i * 37) & 0xff),
          "application/octet-stream",
        ),
      ]),
  },
  {
    name: "HTML file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [filePart("requested_file", "x.html", "<script>alert(1)</script>", "text/html")]),
  },
  {
    name: "base64 transfer encoding",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            'Content-Disposition: form-data; name="requested_file"; filename="a.csv"',
            "Content-Transfer-Encoding: base64",
          ],
          content: utf8(Buffer.from(CSV).toString("base64")),
        },
      ]),
  },
  {
    name: "no Content-Disposition",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [{ headers: ["Content-Type: text/csv"], content: utf8(CSV) }]),
  },
  {
    name: "nested multipart/mixed",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            'Content-Disposition: form-data; name="requested_file"',
            "Content-Type: multipart/mixed; boundary=inner",
          ],
          content: multipart("inner", [filePart("requested_file", "a.csv", CSV)]),
        },
      ]),
  },
  {
    name: "multipart/mixed type",
    type: (b) => `multipart/mixed; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  { name: "JSON instead", type: () => "application/json", body: () => utf8('{"requested_file":"a.csv"}') },
  {
    name: "garbage",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: () => Uint8Array.from({ length: 300 }, (_, i) => (i * 101) & 0xff),
  },
  {
    name: "many parts",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(
        b,
        Array.from({ length: 2000 }, (_, i) => fieldPart(`f${i}`, "v")),
      ),
  },
  {
    name: "over the body limit",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "big.csv", "e@x.co\n".repeat(160_000))]),
  },
];

export function multipartRecipeArb(): fc.Arbitrary<Recipe> {
  return fc
    .tuple(
      fc.constantFrom(...UPLOADS),
      fc.constantFrom(...MULTIPART_CASES),
      fc.constantFrom(
        "----WebKitFormBoundaryAbCdEf123XyZ",
        "x",
        "a'b()+_,-./:=?",
        `----------------------------${"9".repeat(40)}`,
      ),
      idempotencyKeyArb,
      fc.boolean(),
    )
    .map(
      ([op, kase, boundary, key, withQuery]): Recipe =>
        shown({
          label: `${op.id}: multipart ${kase.name} (boundary ${boundary.slice(0, 20)})`,
          method: "POST",
          target: `/api${op.path}${withQuery && op.query ? "?metadata=true" : ""}`,
          headers: [
            ["x-csrf", "1"],
            ["Idempotency-Key", key],
            ["Content-Type", kase.type(boundary)],
          ],
          body: kase.body(boundary),
          refused: false,
        }),
    );
}
