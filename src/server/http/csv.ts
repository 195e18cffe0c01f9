import { type CsvHeaderStyle, csvHeaders } from "../../contract/columns";

/** A header row other than the service's own: in labels, or in a CRM's field names. */
export type RenamedHeaders = Exclude<CsvHeaderStyle, "names">;

/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF; null is empty. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One RFC 4180 record with its CRLF. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

/**
 * The longest header row looked for. The catalogue's every column makes about 2.5 KB; a file whose
 * first record is longer than this is not a header row we know, and passes unchanged.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;

/**
 * Where the first record ends, read byte by byte across chunks. A quote only opens a field at its
 * start, so a line break inside a quoted field does not end the record (RFC 4180), and a quote
 * inside a bare field is text. Quotes, commas and line breaks are single bytes in UTF-8, never part
 * of another character, so no decoding is needed to find the end.
 */
class RecordEnd {
  private state: "start" | "bare" | "quoted" | "quote-in-quoted" = "start";

  /** The index of the LF that ends the record in `bytes`, or -1 when it goes on. */
  find(bytes: Uint8Array): number {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      switch (this.state) {
        case "quoted":
          if (byte === QUOTE) this.state = "quote-in-quoted";
          break;
        case "quote-in-quoted":
          // `""` is a quote within the field; anything else closed it.
          if (byte === QUOTE) this.state = "quoted";
          else if (byte === LF) return i;
          else this.state = byte === COMMA ? "start" : "bare";
          break;
        default:
          if (byte === LF) return i;
          if (byte === COMMA) this.state = "start";
          else if (this.state === "start" && byte === QUOTE) this.state = "quoted";
          else this.state = "bare";
      }
    }
    return -1;
  }

  /** The bytes so far end inside a quoted field: no whole record. */
  get open(): boolean {
    return this.state === "quoted";
  }
}

/** The fields of one record's text (no line end), by the same rules as RecordEnd. */
export function csvFields(text: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (; i < text.length; i++) {
        if (text[i] !== '"') field += text[i];
        else if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          i++;
          break;
        }
      }
    }
    // Bare text, or what follows a closing quote before the comma (kept, as a lenient reader does).
    const comma = text.indexOf(",", i);
    const end = comma === -1 ? text.length : comma;
    field += text.slice(i, end);
    fields.push(field);
    if (comma === -1) return fields;
    i = comma + 1;
  }
}

const BOM = "\uFEFF";

/**
 * The header row (its bytes up to the LF, a CR kept) relabelled: each of the service's column names
 * becomes its label, or its CRM field name (contract/columns.ts, `csvHeaders`), written as RFC 4180 fields. A byte-order
 * mark stays in front; a row that is not UTF-8 is left as it is rather than garbled.
 */
export function labelledHeaderRow(bytes: Uint8Array, style: RenamedHeaders = "labels"): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { ignoreBOM: true, fatal: true }).decode(bytes);
  } catch {
    return bytes;
  }
  const bom = text.startsWith(BOM) ? BOM : "";
  text = text.slice(bom.length);
  const cr = text.endsWith("\r") ? "\r" : "";
  if (cr) text = text.slice(0, -1);
  if (text === "") return bytes;
  const row = csvHeaders(csvFields(text), style).map(csvField).join(",");
  return new TextEncoder().encode(`${bom}${row}${cr}`);
}

/**
 * A CSV file with its header row in labels (or a CRM's field names), the rest byte for byte as it comes. Only the first
 * record is read before answering (at most MAX_HEADER_BYTES; a file without a header row within that
 * passes unchanged), so the length change is known for Content-Length; everything after it streams
 * at the reader's pace. An error of the source, before or after, ends the result with an error: a
 * cut file never looks whole.
 */
export async function withLabelledHeader(
  source: ReadableStream<Uint8Array>,
  style: RenamedHeaders = "labels",
): Promise<{ body: ReadableStream<Uint8Array>; lengthChange: number }> {
  const reader = source.getReader();
  const end = new RecordEnd();
  const seen: Uint8Array[] = [];
  let length = 0;
  let head: Uint8Array | null = null;
  let failure: unknown = null;
  let done = false;
  try {
    while (length <= MAX_HEADER_BYTES) {
      const read = await reader.read();
      if (read.done) {
        done = true;
        break;
      }
      const at = end.find(read.value);
      seen.push(read.value);
      length += read.value.byteLength;
      if (at >= 0) {
        head = Buffer.concat(seen, length);
        const lineEnd = length - read.value.byteLength + at;
        seen.splice(0, seen.length, head.subarray(lineEnd));
        head = head.subarray(0, lineEnd);
        break;
      }
    }
  } catch (error) {
    failure = error;
  }
  // A file of its header alone, without a line end.
  if (done && head === null && !end.open && length > 0) {
    head = Buffer.concat(seen, length);
    seen.length = 0;
  }
  let lengthChange = 0;
  if (head !== null) {
    const row = labelledHeaderRow(head, style);
    lengthChange = row.byteLength - head.byteLength;
    seen.unshift(row);
  }
  return {
    lengthChange,
    body: new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = seen.shift();
          if (next) controller.enqueue(next);
          else if (failure !== null) controller.error(failure);
          else if (done) controller.close();
          else
            try {
              const read = await reader.read();
              if (read.done) controller.close();
              else controller.enqueue(read.value);
            } catch (error) {
              controller.error(error);
            }
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    ),
  };
}
