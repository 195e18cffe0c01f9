import { afterEach, describe, expect, it, vi } from "vitest";
import { call } from "../../../../src/app/api/operations";
import { fetchCompanyDetails } from "../../../../src/app/features/companies/api/company-details";

vi.mock("../../../../src/app/api/operations", () => ({ call: vi.fn() }));
const callMock = vi.mocked(call);
afterEach(() => callMock.mockReset());

const answer = (fields: Record<string, { value: string | null; count: number }[]>) =>
  callMock.mockResolvedValueOnce({ section: "fields", fields } as never);

describe("a listed company's domain, industry and size", () => {
  it("asks one free fields question about the people of that company name", async () => {
    answer({
      DOMAIN_ORG: [{ value: "acme.com", count: 12 }],
      INDUSTRY_LINKEDIN_ORG: [{ value: "Retail", count: 12 }],
      EMPLOYEE_COUNT_RANGE_ORG: [{ value: "51-200", count: 12 }],
    });
    expect(await fetchCompanyDetails("Acme")).toEqual({
      domain: { value: "acme.com" },
      industry: { value: "Retail" },
      size: { value: "51-200" },
    });
    expect(callMock).toHaveBeenCalledWith("insights", {
      body: {
        section: "fields",
        fields: ["DOMAIN_ORG", "INDUSTRY_LINKEDIN_ORG", "EMPLOYEE_COUNT_RANGE_ORG"],
        filter: {
          type: "group",
          op: "AND",
          children: [{ type: "condition", column: "COMPANY_NAME_ORG", operator: "eq", value: "Acme" }],
        },
      },
    });
  });

  it("says how many when companies share the name, and nothing when the data gives nothing", async () => {
    answer({
      DOMAIN_ORG: [
        { value: "acme.com", count: 12 },
        { value: "acme.de", count: 3 },
      ],
      INDUSTRY_LINKEDIN_ORG: [{ value: null, count: 15 }],
    });
    expect(await fetchCompanyDetails("Acme")).toEqual({ domain: { several: 2 }, industry: null, size: null });
  });

  it("asks two at a time, however many rows are shown", async () => {
    let out = 0;
    let most = 0;
    callMock.mockImplementation((async () => {
      most = Math.max(most, ++out);
      await new Promise((resolve) => setTimeout(resolve, 5));
      out--;
      return { section: "fields", fields: {} };
    }) as never);
    await Promise.all(Array.from({ length: 10 }, (_, i) => fetchCompanyDetails(`Company ${i}`)));
    expect(callMock).toHaveBeenCalledTimes(10);
    expect(most).toBe(2);
  });
});
