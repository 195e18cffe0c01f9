/**
 * Do-not-contact entries as pasted or uploaded: each value's kind by its shape, or by a CSV header
 * naming it; stored normalised so that the same company, person or profile written another way is
 * one entry and matches the data service's values.
 */
import { describe, expect, it } from "vitest";
import { kindOf, normalise, parseEntries, suppressedEmail } from "../../../src/server/spend/suppression";

describe("suppression entries", () => {
  it("reads each value's kind by its shape", () => {
    expect(kindOf("pao_0a1b2c")).toBe("personId");
    expect(kindOf("ORG_77")).toBe("companyId");
    expect(kindOf("https://www.linkedin.com/in/jane-doe-12/")).toBe("linkedin");
    expect(kindOf("Jane.Doe@Acme.io")).toBe("email");
    expect(kindOf("https://www.acme.io/contact")).toBe("domain");
    expect(kindOf("acme")).toMatch(/not a contact id/);
  });

  it("normalises domains, profiles, emails and ids", () => {
    for (const written of [
      "acme.io",
      "ACME.io",
      "https://www.acme.io/about?x=1",
      "http://acme.io:8080/",
      "www.acme.io.",
    ])
      expect(normalise("domain", written)).toBe("acme.io");
    expect(normalise("domain", "not a domain")).toBeNull();
    expect(normalise("linkedin", "linkedin.com/in/Jane-Doe-12?trk=x")).toBe(
      "https://www.linkedin.com/in/jane-doe-12",
    );
    expect(normalise("linkedin", "https://www.linkedin.com/company/acme")).toBeNull();
    expect(normalise("email", " Jane.Doe@Acme.IO ")).toBe("jane.doe@acme.io");
    expect(normalise("personId", "PAO_AbC")).toBe("pao_abc");
  });

  it("reads a CSV by its header row, and pasted lines by shape, saying which lines are none of the kinds", () => {
    const csv = parseEntries('Name,Company Domain,Email\nJane,www.acme.io,jane@acme.io\nBo,"beta.com",\n');
    expect(csv.entries).toEqual([
      { kind: "domain", value: "acme.io" },
      { kind: "email", value: "jane@acme.io" },
      { kind: "domain", value: "beta.com" },
    ]);
    expect(csv.rejected).toEqual([]);
    const pasted = parseEntries("acme.io\n\nnonsense\npao_1\n");
    expect(pasted.entries).toEqual([
      { kind: "domain", value: "acme.io" },
      { kind: "personId", value: "pao_1" },
    ]);
    expect(pasted.rejected).toEqual([
      { line: 3, value: "nonsense", reason: expect.stringMatching(/not a contact id/) },
    ]);
  });

  it("an enrich's email is suppressed when it, or its domain, is on a list", () => {
    const onList = suppressedEmail({
      byKind: { domain: ["acme.io"], companyId: [], personId: [], linkedin: [], email: ["bo@beta.com"] },
      emailIds: [],
      emailsUnmatched: 0,
      emailDomains: [],
    });
    expect(onList("Jane@ACME.io")).toBe(true);
    expect(onList("bo@beta.com")).toBe(true);
    expect(onList("al@beta.com")).toBe(false);
  });
});
