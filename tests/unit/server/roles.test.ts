/** The role table (src/contract/team.ts, shared by the proxy and the app), against every operation of the contract. */
import { describe, expect, it } from "vitest";
import { findOperation, OPERATIONS } from "../../../src/contract/routes";
import { CANCELS, DOWNLOADS, mayCall, mayCancel, mayManageTeam, ROTATIONS } from "../../../src/contract/team";

describe("mayCall", () => {
  it("admin: everything; buyer: all but key rotation; analyst: nothing that spends, downloads or cancels", () => {
    for (const op of OPERATIONS) {
      expect(mayCall("admin", op).ok, op.id).toBe(true);
      expect(mayCall("buyer", op).ok, op.id).toBe(!ROTATIONS.has(op.id));
      const analystMay = !op.spends && !DOWNLOADS.has(op.id) && !(op.id in CANCELS);
      expect(mayCall("analyst", op).ok, op.id).toBe(analystMay);
    }
    // The lists name real operations (a renamed one would silently stop being guarded).
    for (const id of [...DOWNLOADS, ...ROTATIONS, ...Object.keys(CANCELS)])
      expect(findOperation(id), id).toBeDefined();
    for (const id of ROTATIONS) expect(findOperation(id)?.spends).toBe(true);
  });

  it("an analyst may count, estimate, view samples and read the export list", () => {
    for (const id of [
      "count",
      "estimate",
      "view",
      "insights",
      "companyCount",
      "lookalike",
      "exports",
      "exportStatus",
    ])
      expect(mayCall("analyst", findOperation(id)!).ok, id).toBe(true);
  });

  it("says why, in plain words", () => {
    const verdict = mayCall("buyer", { id: "rotateV1", spends: true });
    expect(verdict).toEqual({
      ok: false,
      reason:
        "Rotating the team's key needs an admin; you are signed in as a buyer. Ask an admin of your team.",
    });
    expect(mayManageTeam("analyst")).toEqual({
      ok: false,
      reason:
        "Managing the team's people needs an admin; you are signed in as an analyst. Ask an admin of your team.",
    });
  });
});

describe("the refusal says what was refused", () => {
  it("verification, buying contacts and the organization tools each in their own words", () => {
    const said = (id: string) => {
      const verdict = mayCall("analyst", findOperation(id)!);
      return verdict.ok ? null : verdict.reason;
    };
    for (const id of ["verifyV1", "verifyV2", "batchV1", "batchUploadV1", "batchV2"])
      expect(said(id), id).toBe(
        "Verifying email addresses needs a buyer or an admin; you are signed in as an analyst. Ask an admin of your team.",
      );
    for (const id of ["preview", "enrich", "exportStart"])
      expect(said(id), id).toBe(
        "Buying contacts needs a buyer or an admin; you are signed in as an analyst. Ask an admin of your team.",
      );
    for (const id of ["organizationResolve", "organizationDiscover"])
      expect(said(id), id).toMatch(
        /^Resolving and discovering organizations uses the team's credits, so it needs a buyer or an admin;/,
      );
    // Every spending operation an analyst may not call is named by the table, not a catch-all.
    for (const op of OPERATIONS)
      if (op.spends && !ROTATIONS.has(op.id))
        expect(said(op.id), op.id).not.toMatch(/^Spending the team's credits/);
  });
});

describe("mayCancel", () => {
  it("whoever started it or an admin; a job with no record: any buyer", () => {
    expect(mayCancel({ name: "bo", role: "buyer" }, "bo", "export").ok).toBe(true);
    expect(mayCancel({ name: "ada", role: "admin" }, "bo", "export").ok).toBe(true);
    expect(mayCancel({ name: "di", role: "buyer" }, "bo", "verification")).toEqual({
      ok: false,
      reason: "Only bo, who started this verification job, or an admin may cancel it.",
    });
    expect(mayCancel({ name: "di", role: "buyer" }, null, "export").ok).toBe(true);
    expect(mayCancel({ name: "cy", role: "analyst" }, null, "export").ok).toBe(false);
  });
});
