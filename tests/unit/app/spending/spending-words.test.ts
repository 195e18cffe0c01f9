import { describe, expect, it } from "vitest";
import { apiErrorFromAnswer } from "../../../../src/app/api/api-error";
import {
  approvalOutcomeText,
  approvalStateText,
  capsRefusal,
  decisionRefusal,
  operationWords,
  outcomeText,
  rowsText,
} from "../../../../src/app/features/spending/spending-words";
import type { Approval } from "../../../../src/contract/spending";

const approval = (over: Partial<Approval> = {}): Approval => ({
  id: "ap1",
  requestedBy: "bo",
  requestedAt: "2026-11-25T10:00:00Z",
  operation: "enrich",
  summary: "Enrich 12 contacts, emails revealed",
  creditsEstimated: 24,
  audienceName: null,
  state: "waiting",
  decidedBy: null,
  decidedAt: null,
  outcome: null,
  ...over,
});

describe("the Spending page's words", () => {
  it("names purchases as people know them, never by the service's operation names", () => {
    expect(operationWords("enrich")).toBe("Enrich");
    expect(operationWords("preview")).toBe("Sample with contact details");
    expect(operationWords("exportStart")).toBe("Export");
    expect(operationWords("somethingNew")).toBe("Other purchase");
  });

  it("says each outcome and what to do about it", () => {
    expect(outcomeText("charged")).toBe("Charged");
    expect(outcomeText("unknown")).toBe("Not known — check the balance");
    expect(outcomeText("pending")).toBe("Pending — charged when it completes");
    expect(outcomeText("free")).toBe("Free — nothing was charged");
  });

  it("counts rows and those the team already had", () => {
    expect(rowsText({ rows: 5, rowsFree: 3 })).toBe("5 (3 already yours)");
    expect(rowsText({ rows: 1200, rowsFree: 0 })).toBe("1,200");
  });

  it("says who decided a request and what came of it, without saying Denied twice", () => {
    expect(approvalStateText(approval())).toBe("Waiting for an admin");
    expect(approvalOutcomeText(approval())).toBeNull();
    const denied = approval({
      state: "denied",
      decidedBy: "ada",
      outcome: "Denied: over budget this quarter",
    });
    expect(approvalStateText(denied)).toBe("Denied by ada");
    expect(approvalOutcomeText(denied)).toBe("Over budget this quarter");
    expect(
      approvalOutcomeText(approval({ state: "denied", decidedBy: "ada", outcome: "Denied." })),
    ).toBeNull();
    const ran = approval({ state: "ran", decidedBy: "ada", outcome: "Bought 12 rows: charged 12 credits." });
    expect(approvalStateText(ran)).toBe("Approved and bought by ada");
    expect(approvalOutcomeText(ran)).toBe("Bought 12 rows: charged 12 credits.");
    expect(approvalStateText(approval({ state: "approved", decidedBy: "local" }))).toBe(
      "Approved by the local admin",
    );
  });

  it("says a cap reached on approval in plain words: the proxy's sentence of what is left, or ours", () => {
    const error = apiErrorFromAnswer(403, {
      detail: "bo's monthly cap is 30 and 17 are already spent this month, so 13 are left. Nothing was sent.",
      code: "CAP_REACHED",
    });
    expect(decisionRefusal(error, "approve")).toBe(
      "Not approved: bo's monthly cap is 30 and 17 are already spent this month, so 13 are left. Nothing was sent.",
    );
    expect(decisionRefusal(apiErrorFromAnswer(403, { code: "CAP_REACHED" }), "approve")).toBe(
      "Not approved: buying it now would pass a monthly cap, so nothing was bought.",
    );
    expect(
      decisionRefusal(
        apiErrorFromAnswer(409, {
          detail: "This request was already approved by ada, so it can no longer be denied.",
        }),
        "deny",
      ),
    ).toBe("Not denied: This request was already approved by ada, so it can no longer be denied.");
  });

  it("says a refused change of caps without a field path", () => {
    const error = apiErrorFromAnswer(422, {
      detail: [
        {
          type: "value_error",
          loc: ["body", "people", 0, "name"],
          msg: "nobody called bo is on the team",
          input: "bo",
        },
      ],
    });
    expect(capsRefusal(error)).toBe("The caps were not saved: Nobody called bo is on the team.");
  });
});
