import { describe, expect, it } from "vitest";
import { absentWords } from "../../../../src/app/features/builder/editor/absent-values-note";

describe("values that match no one, beside the count", () => {
  it("says nothing when every value matches someone", () => {
    expect(absentWords([])).toBeUndefined();
  });

  it("a list's value: counted without it; several, named up to two and how many more", () => {
    expect(absentWords([{ reads: "list", values: ["UK"] }])).toBe("“UK” matches no one; counted without it.");
    expect(absentWords([{ reads: "list", values: ["UK", "Frnace"] }])).toBe(
      "“UK” and “Frnace” match no one; counted without them.",
    );
    expect(
      absentWords([
        { reads: "list", values: ["UK", "Frnace"] },
        { reads: "list", values: ["Spian", "Itlay"] },
      ]),
    ).toBe("“UK”, “Frnace” and 2 more match no one; counted without them.");
  });

  it("a rule's one value: what that does to the rule, not 'counted without it'", () => {
    expect(absentWords([{ reads: "eq", values: ["Germny"] }])).toBe(
      "“Germny” matches no one, so its rule keeps nobody.",
    );
    expect(
      absentWords([
        { reads: "ne", values: ["Germny"] },
        { reads: "list", values: ["UK"] },
      ]),
    ).toBe(
      "“UK” matches no one; counted without it. “Germny” matches no one, so its rule leaves everyone in.",
    );
  });
});
