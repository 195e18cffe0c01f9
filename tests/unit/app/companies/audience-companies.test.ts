import { describe, expect, it } from "vitest";
import { withoutListed } from "../../../../src/app/features/companies/api/audience-companies";
import type { GroupNode } from "../../../../src/contract/filter";
import { requests } from "../../../../src/contract/operations";

const GERMANY: GroupNode = {
  type: "group",
  op: "AND",
  negate: false,
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany", id: "g" }],
};

const asked = (listed: (string | null)[]) => {
  const filter = withoutListed(GERMANY, listed);
  // The contract takes it as a breakdown's filter.
  expect(
    requests.insights.safeParse({ section: "breakdown", groupField: "COMPANY_NAME_ORG", filter }).success,
  ).toBe(true);
  return filter;
};

describe("the next companies of an audience: the audience without those listed", () => {
  it("is the audience itself for the first page (ids dropped)", () => {
    expect(asked([])).toEqual({ ...GERMANY, children: [{ ...GERMANY.children[0], id: undefined }] });
  });

  it("leaves out the names listed, keeping people whose company name is missing", () => {
    expect(asked(["Acme", "Beta"])).toMatchObject({
      op: "AND",
      children: [
        { type: "group", op: "AND" },
        {
          type: "group",
          op: "OR",
          children: [
            { column: "COMPANY_NAME_ORG", operator: "notIn", valueList: ["Acme", "Beta"] },
            { column: "COMPANY_NAME_ORG", operator: "isNull" },
          ],
        },
      ],
    });
  });

  it("once the missing name is listed, keeps only names not listed", () => {
    expect(asked(["Acme", null])).toMatchObject({
      children: [{}, { column: "COMPANY_NAME_ORG", operator: "notIn", valueList: ["Acme"] }],
    });
    expect(asked([null])).toMatchObject({
      children: [{}, { column: "COMPANY_NAME_ORG", operator: "isNotNull" }],
    });
  });
});
