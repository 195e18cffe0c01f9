import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCsv, parseEmailUpload } from "../../../src/contract/verify-upload";
import { csvField } from "../../../src/sandbox/verify/results-csv";
import {
  DELIVERABILITIES,
  isDefinite,
  RISKS,
  toV2Status,
  VERIFY_REASONS,
  v2Metadata,
  verifyEmail,
} from "../../../src/sandbox/verify/verify-email";
import { KNOWN_ADDRESSES, syncBook } from "./fixtures";

// Strings that reach every branch: arbitrary text, whole code points, and address-like shapes.
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.emailAddress(),
  fc
    .tuple(
      fc.string(),
      fc.constantFrom("gmail.com", "acme-robotics.com", "example.com", "mailinator.com", "bücher.de"),
    )
    .map(([local, domain]) => `${local}@${domain}`),
  fc.constantFrom(...KNOWN_ADDRESSES),
);

describe("verifyEmail properties", () => {
  it("never throws and only answers allowed values, consistently", async () => {
    await fc.assert(
      fc.asyncProperty(anyText, async (email) => {
        const outcome = await verifyEmail(email, syncBook);
        expect(DELIVERABILITIES).toContain(outcome.deliverability);
        expect(RISKS).toContain(outcome.risk);
        expect(VERIFY_REASONS).toContain(outcome.reason);
        expect(typeof outcome.role).toBe("boolean");
        expect(outcome.email).toBe(email.trim());
        expect(["Valid", "Invalid", "Unknown"]).toContain(toV2Status(outcome.deliverability));
        // Only two kinds of definite answer: the dataset knows it, or it cannot exist.
        if (outcome.deliverability === "DELIVERABLE") expect(outcome.reason).toBe("known_address");
        if (outcome.role) expect(outcome.risk).not.toBe("LOW");
        if (isDefinite(outcome.deliverability) && outcome.reason !== "known_address") {
          expect(outcome.risk).toBe("HIGH");
        }
        expect(() => v2Metadata(outcome, "t")).not.toThrow();
        expect(await verifyEmail(email, syncBook)).toEqual(outcome);
      }),
      { numRuns: 2000 },
    );
  });

  it("never calls a well-formed address invalid", async () => {
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), async (email) => {
        const { reason } = await verifyEmail(email, syncBook);
        expect(reason).not.toBe("invalid_syntax");
      }),
      { numRuns: 1000 },
    );
  });

  it("ignores case and surrounding whitespace", async () => {
    await fc.assert(
      fc.asyncProperty(anyText, fc.constantFrom(" ", "\t", "\n", ""), async (email, pad) => {
        // Upper-casing can change a character's UTF-8 length (and so a length verdict) outside ASCII.
        fc.pre(/^[\x20-\x7e]*$/.test(email));
        const plain = await verifyEmail(email.trim(), syncBook);
        const shouted = await verifyEmail(`${pad}${email.trim().toUpperCase()}${pad}`, syncBook);
        expect({ ...shouted, email: "" }).toEqual({ ...plain, email: "" });
      }),
      { numRuns: 1000 },
    );
  });
});

describe("parseEmailUpload properties", () => {
  const filename = fc.constantFrom("a.csv", "a.json", "a.CSV", "a.txt", "a");

  it("never throws on arbitrary bytes and answers a documented shape", () => {
    fc.assert(
      fc.property(filename, fc.uint8Array({ maxLength: 2000 }), (name, bytes) => {
        const result = parseEmailUpload(name, bytes);
        if ("error" in result) {
          expect([400, 422]).toContain(result.error.status);
          expect(result.error.detail.length).toBeGreaterThan(0);
        } else {
          expect(result.emails.length).toBeGreaterThan(0);
          for (const email of result.emails) expect(email).toBe(email.trim());
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("never throws on arbitrary text or JSON values", () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    fc.assert(
      fc.property(
        filename,
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (name, text) => {
          expect(() => parseEmailUpload(name, encode(text))).not.toThrow();
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("reads back exactly the records csvField writes", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "@", ",", '"', "\r", "\n", " ", "é") });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 6 }), (records) => {
        const text = records.map((record) => `${record.map(csvField).join(",")}\r\n`).join("");
        expect(parseCsv(text)).toEqual({ records });
      }),
      { numRuns: 2000 },
    );
  });
});
