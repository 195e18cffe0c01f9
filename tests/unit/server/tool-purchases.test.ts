import { describe, expect, it } from "vitest";
import { discoverCost, isDefiniteVerification, verificationCost } from "../../../src/contract/pricing";
import { batchAddresses, toolDetail, toolEstimate, toolFile } from "../../../src/server/spend/tool-purchases";

const file = (name: string, text: string) => toolFile(name, "text/csv", new TextEncoder().encode(text));

describe("what verification and the company tools cost", () => {
  it("a definite verdict costs a credit on either generation; an unknown one nothing", () => {
    for (const verdict of ["DELIVERABLE", "UNDELIVERABLE", "Valid", "Invalid"])
      expect(isDefiniteVerification(verdict), verdict).toBe(true);
    for (const verdict of ["UNKNOWN", "Unknown", "", "valid"])
      expect(isDefiniteVerification(verdict), verdict).toBe(false);
    expect(verificationCost(3)).toBe(3);
    expect(verificationCost(-1)).toBe(0);
  });

  it("a discover costs a credit per company on pay-as-you-go, nothing on AYCE", () => {
    expect(discoverCost("PAYG", 7)).toBe(7);
    expect(discoverCost("AYCE", 7)).toBe(0);
  });

  it("is priced at its most before sending: every address definite, a discover's whole result_count", () => {
    expect(toolEstimate({ operation: "verifyV2", body: { email: "a@b.co" } }, "AYCE")).toBe(1);
    expect(toolEstimate({ operation: "organizationResolve", body: { company_name: "Acme" } }, "PAYG")).toBe(
      1,
    );
    expect(toolEstimate({ operation: "organizationDiscover", body: { keyword: "x" } }, "PAYG")).toBe(1000);
    expect(
      toolEstimate({ operation: "organizationDiscover", body: { keyword: "x", result_count: 5 } }, "AYCE"),
    ).toBe(0);
    expect(toolEstimate({ operation: "batchV1", body: { emails: ["a@b.co", "c@d.co"] } }, "PAYG")).toBe(2);
    const upload = {
      operation: "batchV2",
      body: undefined,
      file: file("l.csv", "email\r\na@b.co\r\n\r\nc@d.co\r\n"),
    };
    expect(toolEstimate(upload, "PAYG")).toBe(2);
  });

  it("counts an upload's addresses with the service's own reader; one it will refuse costs nothing", () => {
    expect(
      batchAddresses({
        operation: "batchV2",
        body: undefined,
        file: file("l.json", '["a@b.co","c@d.co","e@f.co"]'),
      }),
    ).toBe(3);
    expect(batchAddresses({ operation: "batchV2", body: undefined, file: file("l.txt", "a@b.co") })).toBe(0);
    expect(batchAddresses({ operation: "batchUploadV1", body: undefined })).toBe(0);
  });

  it("says what each was for, in words", () => {
    expect(toolDetail({ operation: "verifyV1", body: { email: " ada@acme.com " } })).toBe("ada@acme.com");
    expect(toolDetail({ operation: "organizationResolve", body: { company_name: "Acme" } })).toBe(
      "Name “Acme”",
    );
    expect(
      toolDetail({ operation: "organizationDiscover", body: { keyword: "fintech", result_count: 50 } }),
    ).toBe("Keyword “fintech”, up to 50 companies");
    expect(toolDetail({ operation: "batchV1", body: { emails: ["a@b.co"] } })).toBe("A list of 1 address");
    expect(
      toolDetail({ operation: "batchV2", body: undefined, file: file("leads.csv", "a@b.co\nc@d.co\n") }),
    ).toBe("leads.csv: 2 addresses");
  });
});
