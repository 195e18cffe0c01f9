/**
 * Reads the addresses out of a batch-verification upload (multipart field `requested_file`), a
 * `.csv` or `.json` file. Pure: bytes in, addresses or an error out; never throws.
 */
import { VERIFY_BATCH_MAX } from "./inferred";

export interface UploadError {
  /** 400: a state error (wrong kind of file); 422: the file's content is unusable. */
  status: 400 | 422;
  detail: string;
}
export type UploadParseResult = { emails: string[] } | { error: UploadError };

export const UPLOAD_ERRORS = {
  badExtension: "Only .csv and .json files are accepted",
  noAddresses: "The file contains no email addresses",
  tooMany: `At most ${VERIFY_BATCH_MAX.toLocaleString("en-US")} addresses per batch`,
  invalidJson: "The file is not valid JSON",
  jsonShape:
    'Expected a JSON array of addresses, an array of objects with an "email" field, or {"emails": [...]}',
} as const;

/**
 * Header names taken as the address column (compared trimmed, in lower case). `email_address_per` is
 * the column our own contact exports write, so an export can be uploaded as is.
 */
const EMAIL_COLUMN_NAMES: ReadonlySet<string> = new Set([
  "email",
  "email_address",
  "e-mail",
  "email_address_per",
]);

export function parseEmailUpload(filename: string, bytes: Uint8Array): UploadParseResult {
  const name = filename.toLowerCase();
  const isCsv = name.endsWith(".csv");
  if (!isCsv && !name.endsWith(".json")) return failure(400, UPLOAD_ERRORS.badExtension);

  const text = decodeText(bytes);
  const parsed = isCsv ? emailsFromCsv(text) : emailsFromJson(text);
  if ("error" in parsed) return parsed;
  // Values are trimmed and blanks dropped; duplicates stay, since each line gets its own result.
  const emails = parsed.emails.map((value) => value.trim()).filter((value) => value !== "");
  if (emails.length === 0) return failure(422, UPLOAD_ERRORS.noAddresses);
  if (emails.length > VERIFY_BATCH_MAX) return failure(422, UPLOAD_ERRORS.tooMany);
  return { emails };
}

function failure(status: 400 | 422, detail: string): { error: UploadError } {
  return { error: { status, detail } };
}

/**
 * UTF-8 by default, with its BOM removed; UTF-16 when a UTF-16 BOM says so (spreadsheets export
 * "Unicode text" that way). Undecodable bytes become U+FFFD instead of failing the whole file: a
 * Latin-1 name column must not sink the addresses next to it, and a damaged address is then
 * reported as invalid on its own line.
 */
function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

// ---------------------------------------------------------------------------------------------- CSV

type Extracted = { emails: string[] } | { error: UploadError };

/**
 * A first record with no `@` in it is a header. The address column is the one the header names
 * (`email`, `email_address`, `e-mail`), else the first column with an `@` in any of its cells.
 * Every non-blank cell of that column is returned, addresses or not: a bad value gets its own
 * "invalid" result rather than silently vanishing from the batch.
 */
function emailsFromCsv(text: string): Extracted {
  const parsed = parseCsv(text);
  if ("unclosedQuoteLine" in parsed) {
    return failure(
      422,
      `The CSV has a quoted field that is never closed (it opens on line ${parsed.unclosedQuoteLine})`,
    );
  }
  const records = parsed.records.filter((record) => record.some((cell) => cell.trim() !== ""));
  const [first] = records;
  if (first === undefined) return { emails: [] };

  const hasHeader = !first.some((cell) => cell.includes("@"));
  const rows = hasHeader ? records.slice(1) : records;
  const namedColumn = hasHeader
    ? first.findIndex((cell) => EMAIL_COLUMN_NAMES.has(cell.trim().toLowerCase()))
    : -1;
  const column = namedColumn !== -1 ? namedColumn : firstColumnWithAt(rows);
  if (column === -1) return { emails: [] };
  return { emails: rows.map((row) => row[column] ?? "") };
}

function firstColumnWithAt(rows: readonly string[][]): number {
  let best = -1;
  for (const row of rows) {
    const index = row.findIndex((cell) => cell.includes("@"));
    if (index !== -1 && (best === -1 || index < best)) best = index;
  }
  return best;
}

/**
 * RFC 4180: comma-separated, fields optionally in double quotes, `""` for a quote inside quotes,
 * records ended by CRLF, LF or lone CR. Lenient where the RFC is strict and intent is plain
 * (whitespace before an opening quote, text after a closing one); an unclosed quote is an error,
 * since guessing would merge the rest of the file into one cell.
 */
export function parseCsv(text: string): { records: string[][] } | { unclosedQuoteLine: number } {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let inQuotes = false;
  let quoteOpenedOnLine = 0;
  let line = 1;
  let index = 0;

  const endField = () => {
    record.push(field);
    field = "";
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
  };

  while (index < text.length) {
    const char = text[index];
    if (inQuotes) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        inQuotes = false;
      } else {
        if (char === "\n" || (char === "\r" && text[index + 1] !== "\n")) line += 1;
        field += char;
      }
      index += 1;
      continue;
    }
    if (char === '"' && field.trim() === "") {
      inQuotes = true;
      quoteOpenedOnLine = line;
      field = "";
    } else if (char === ",") {
      endField();
    } else if (char === "\r" || char === "\n") {
      endRecord();
      line += 1;
      if (char === "\r" && text[index + 1] === "\n") index += 1;
    } else {
      field += char;
    }
    index += 1;
  }
  if (inQuotes) return { unclosedQuoteLine: quoteOpenedOnLine };
  // A last record without a line ending.
  if (field !== "" || record.length > 0) endRecord();
  return { records };
}

// --------------------------------------------------------------------------------------------- JSON

/** `["a@x.com", …]`, `[{"email": "a@x.com"}, …]` (mixing allowed), or `{"emails": [ either ]}`. */
function emailsFromJson(text: string): Extracted {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return failure(422, UPLOAD_ERRORS.invalidJson);
  }
  const list = Array.isArray(document)
    ? document
    : isRecord(document) && Array.isArray(document.emails)
      ? document.emails
      : undefined;
  if (list === undefined) return failure(422, UPLOAD_ERRORS.jsonShape);

  const emails: string[] = [];
  for (const [index, entry] of list.entries()) {
    const value = typeof entry === "string" ? entry : isRecord(entry) ? entry.email : undefined;
    if (typeof value !== "string") {
      return failure(
        422,
        `Entry ${index} (counting from 0) is neither an address string nor an object with an "email" string`,
      );
    }
    emails.push(value);
  }
  return { emails };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
