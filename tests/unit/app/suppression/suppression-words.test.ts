import { describe, expect, it } from "vitest";
import { apiErrorFromAnswer } from "../../../../src/app/api/api-error";
import {
  importSentence,
  kindCounts,
  listRefusal,
  rejectedLine,
} from "../../../../src/app/features/suppression/suppression-words";
import type { SuppressionImport } from "../../../../src/contract/spending";

const list = {
  id: "l1",
  name: "Competitors",
  createdBy: "bo",
  createdAt: "2026-11-25T10:00:00Z",
  counts: { domain: 3, companyId: 0, personId: 1200, linkedin: 0, email: 2 },
  entries: 1205,
};
const result = (over: Partial<SuppressionImport>): SuppressionImport => ({
  list,
  added: 1,
  duplicates: 0,
  rejected: [],
  rejectedTotal: 0,
  ...over,
});

describe("the do-not-contact page's words", () => {
  it("lists the kinds a list holds, largest first, in words, leaving out kinds it has none of", () => {
    expect(kindCounts(list).map((k) => `${k.words}: ${k.count}`)).toEqual([
      "Contact ids: 1200",
      "Company domains: 3",
      "Email addresses: 2",
    ]);
  });

  it("says what an import did, in the singular and the plural", () => {
    expect(importSentence(result({}))).toBe("Added 1 entry to Competitors.");
    expect(importSentence(result({ added: 1200, duplicates: 2, rejectedTotal: 3 }))).toBe(
      "Added 1,200 entries to Competitors. 2 were on the list already. 3 lines were not used: they are none of the kinds a list can hold.",
    );
  });

  it("quotes a line not used, shortened, with why", () => {
    expect(rejectedLine({ line: 1204, value: "x".repeat(100), reason: "not a domain." })).toBe(
      `Line 1,204: “${"x".repeat(80)}…” — not a domain.`,
    );
  });

  it("says a refusal without a field path", () => {
    const invalid = apiErrorFromAnswer(422, {
      detail: [{ type: "value_error", loc: ["body", "name"], msg: "Give the list a name.", input: "" }],
    });
    expect(listRefusal(invalid, "create")).toBe("The list was not created: Give the list a name.");
    expect(listRefusal(apiErrorFromAnswer(404, { detail: "gone" }), "delete")).toBe(
      "The list was not deleted: the list is no longer there (someone deleted it).",
    );
    expect(listRefusal(apiErrorFromAnswer(403, { detail: "x", code: "ROLE_REQUIRED" }), "add")).toBe(
      "The entries were not added: changing the team's do-not-contact lists needs a buyer or an admin. Ask an admin of your team.",
    );
  });
});
