import fc from "fast-check";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import {
  csvFields,
  labelledHeaderRow,
  MAX_HEADER_BYTES,
  withLabelledHeader,
} from "../../../src/server/http/csv";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A stream of `text`'s bytes cut at `cuts` (byte offsets), then, if given, an error. */
function streamOf(text: string | Uint8Array, cuts: readonly number[] = [], error?: Error) {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  const bounds = [
    0,
    ...[...cuts].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b),
    bytes.length,
  ];
  const chunks = bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = chunks.shift();
        pulled++;
        if (next) controller.enqueue(next);
        else if (error) controller.error(error);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return decoder.decode(await new Response(stream).arrayBuffer());
}

async function labelled(text: string, cuts: readonly number[] = []) {
  const { body, lengthChange } = await withLabelledHeader(streamOf(text, cuts).stream);
  const out = await readAll(body);
  expect(encoder.encode(out).byteLength - encoder.encode(text).byteLength).toBe(lengthChange);
  return out;
}

const FILE =
  'RBID_PAO,FULL_NAME_PER,EMAIL_ADDRESS_PER\r\npao_1,Jane Doe,jane@acme.com\r\npao_2,"Smith, John",\r\n';

describe("the header row in labels", () => {
  it("rewrites only the first line; the rows are byte for byte the service's", async () => {
    const out = await labelled(FILE);
    expect(out).toBe(
      'Contact ID,Full name,Email\r\npao_1,Jane Doe,jane@acme.com\r\npao_2,"Smith, John",\r\n',
    );
  });

  it("quotes a label that needs it (RFC 4180) and keeps a name it does not know", async () => {
    const out = await labelled("RBID_PAO,REVENUE_MIN,custom_field\r\npao_1,5,x\r\n");
    expect(out.split("\r\n")[0]).toBe('Contact ID,"Revenue (min, USD)",custom_field');
    expect(Papa.parse<string[]>(out).data[0]).toEqual(["Contact ID", "Revenue (min, USD)", "custom_field"]);
  });

  it("reads a header row whatever the chunks: cut anywhere, even inside a quoted name or a UTF-8 character", async () => {
    const text = '"RBID_PAO","odd ""quoted"", name\r\nacross lines","Größe",CITY_PER\r\npao_1,a,b,c\r\n';
    const whole = await labelled(text);
    expect(Papa.parse<string[]>(whole).data[0]).toEqual([
      "Contact ID",
      'odd "quoted", name\r\nacross lines',
      "Größe",
      "City",
    ]);
    expect(whole.endsWith("\r\npao_1,a,b,c\r\n")).toBe(true);
    const bytes = encoder.encode(text).byteLength;
    for (let cut = 1; cut < bytes; cut++) expect(await labelled(text, [cut]), `cut at ${cut}`).toBe(whole);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes - 1 }), { maxLength: 12 }), async (cuts) => {
        expect(await labelled(text, cuts)).toBe(whole);
      }),
      { numRuns: 100 },
    );
  });

  it("keeps the file's own line ends and byte-order mark", async () => {
    expect(await labelled("RBID_PAO,CITY_PER\npao_1,Köln\n")).toBe("Contact ID,City\npao_1,Köln\n");
    expect(await labelled("\uFEFFRBID_PAO\r\npao_1\r\n")).toBe("\uFEFFContact ID\r\npao_1\r\n");
  });

  it("relabels a file that is its header row alone, with or without a line end", async () => {
    expect(await labelled("RBID_PAO,CITY_PER")).toBe("Contact ID,City");
    expect(await labelled("RBID_PAO,CITY_PER\r\n")).toBe("Contact ID,City\r\n");
    expect(await labelled("")).toBe("");
  });

  it("never gives two columns one header", async () => {
    const out = await labelled("EMAIL_ADDRESS_PER,Email,RBID_PAO,RBID_PAO\r\n1,2,3,4\r\n");
    expect(out.split("\r\n")[0]).toBe("Email (EMAIL_ADDRESS_PER),Email,Contact ID,Contact ID (2)");
  });

  it("in a CRM's field names: the header row becomes HubSpot's or Salesforce's, the rows as they came", async () => {
    const file =
      "RBID_PAO,FIRST_NAME_PER,JOB_TITLE_PER,EMAIL_ADDRESS_PER\r\npao_1,Jane,CTO,jane@acme.com\r\n";
    for (const [style, header] of [
      ["hubspot", "Contact ID,firstname,jobtitle,email"],
      ["salesforce", "Contact ID,FirstName,Title,Email"],
    ] as const) {
      const { body, lengthChange } = await withLabelledHeader(streamOf(file, [7]).stream, style);
      const out = await readAll(body);
      expect(out).toBe(`${header}\r\npao_1,Jane,CTO,jane@acme.com\r\n`);
      expect(encoder.encode(out).byteLength - encoder.encode(file).byteLength).toBe(lengthChange);
    }
  });

  it("passes unchanged what has no header row it can read: an unclosed quote, a first line too long", async () => {
    const open = '"RBID_PAO,CITY_PER\r\npao_1,x\r\n';
    expect(await labelled(open)).toBe(open);
    const long = `${"x".repeat(MAX_HEADER_BYTES + 10)}\r\nRBID_PAO\r\n`;
    expect(await labelled(long, [1000, 40_000, 70_000])).toBe(long);
  });

  it("reads no more than the header row before answering, and the rest only as it is read", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `pao_${i},x\r\n`);
    const text = `RBID_PAO,CITY_PER\r\n${rows.join("")}`;
    const cuts = [5, 30, ...rows.map((_, i) => 19 + (i + 1) * rows[0]!.length)];
    const source = streamOf(text, cuts);
    const { body } = await withLabelledHeader(source.stream);
    // The header row ends in the second chunk: nothing beyond it was asked for.
    expect(source.pulled()).toBe(2);
    const reader = body.getReader();
    expect(decoder.decode((await reader.read()).value)).toBe("Contact ID,City\r");
    await reader.read();
    await reader.read();
    expect(source.pulled()).toBeLessThanOrEqual(4);
    await reader.cancel();
  });

  it("ends with the source's error, before or after the header row: a cut file never looks whole", async () => {
    const early = await withLabelledHeader(streamOf("RBID_PA", [3], new Error("cut")).stream);
    await expect(readAll(early.body)).rejects.toThrow("cut");
    const late = await withLabelledHeader(streamOf(FILE, [50], new Error("cut")).stream);
    await expect(readAll(late.body)).rejects.toThrow("cut");
  });

  it("cancels the source when the reader leaves", async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encoder.encode("RBID_PAO\r\npao_1\r\n")),
      cancel: () => {
        cancelled = true;
      },
    });
    const { body } = await withLabelledHeader(source);
    const reader = body.getReader();
    await reader.read();
    await reader.cancel();
    expect(cancelled).toBe(true);
  });
});

describe("one record's fields", () => {
  it("reads RFC 4180: quotes, doubled quotes, empty fields", () => {
    expect(csvFields('a,"b,c","d""e",,')).toEqual(["a", "b,c", 'd"e', "", ""]);
    expect(csvFields("")).toEqual([""]);
    expect(csvFields('x"y,z')).toEqual(['x"y', "z"]);
  });

  it("leaves an empty header row, or one that is not UTF-8, as it is", () => {
    expect(decoder.decode(labelledHeaderRow(encoder.encode("\r")))).toBe("\r");
    const latin1 = Uint8Array.from([
      0x52, 0x42, 0x49, 0x44, 0x5f, 0x50, 0x41, 0x4f, 0x2c, 0x47, 0x72, 0xf6, 0xdf, 0x65,
    ]);
    expect(labelledHeaderRow(latin1)).toEqual(latin1);
  });
});
