import { describe, expect, it } from "vitest";
import { ApiError, apiErrorFromAnswer, ROLE_REQUIRED_MESSAGE } from "../../../src/app/api/api-error";
import { rotationError } from "../../../src/app/features/account/rotate-key";
import {
  ABILITIES,
  cancelRefusal,
  may,
  mayCancel,
  personLabel,
  refusal,
  whoMay,
} from "../../../src/app/lib/roles";
import { OPERATIONS } from "../../../src/contract/routes";
import {
  CLI_PERSON,
  DOWNLOADS,
  LOCAL_PERSON,
  mayCall,
  mayManageTeam,
  mayCancel as proxyMayCancel,
  ROLES,
  ROTATIONS,
  TEAM_CODES,
} from "../../../src/contract/team";

/**
 * The app's role rules, asked before a click: the proxy's table (docs/issue 17) written once more,
 * so a screen can say why a button is off. The proxy enforces them; these must agree with it.
 */
describe("what each role may do", () => {
  it("follows the proxy's table: analysts never spend nor download, only admins rotate and manage people", () => {
    const table = Object.fromEntries(
      ROLES.map((role) => [role, Object.fromEntries(ABILITIES.map((a) => [a, may(role, a)]))]),
    );
    expect(table).toEqual({
      admin: { buy: true, download: true, rotate: true, managePeople: true },
      buyer: { buy: true, download: true, rotate: false, managePeople: false },
      analyst: { buy: false, download: false, rotate: false, managePeople: false },
    });
  });

  it("is the proxy's own table (src/contract/team.ts): every operation and cancel judged alike", () => {
    for (const role of ROLES) {
      for (const op of OPERATIONS) {
        const proxy = mayCall(role, op).ok;
        if (ROTATIONS.has(op.id)) expect(may(role, "rotate"), op.id).toBe(proxy);
        else if (op.spends) expect(may(role, "buy"), op.id).toBe(proxy);
        else if (DOWNLOADS.has(op.id)) expect(may(role, "download"), op.id).toBe(proxy);
      }
      expect(may(role, "managePeople")).toBe(mayManageTeam(role).ok);
      for (const starter of [null, "bo", "al"])
        for (const user of ["bo", "al"])
          expect(mayCancel(role, user, starter), `${role} ${user} ${starter}`).toBe(
            proxyMayCancel({ name: user, role }, starter, "export").ok,
          );
    }
  });

  it("names who may, in words", () => {
    expect(whoMay("buy")).toBe("a buyer or an admin");
    expect(whoMay("download")).toBe("a buyer or an admin");
    expect(whoMay("rotate")).toBe("an admin");
    expect(whoMay("managePeople")).toBe("an admin");
  });

  it("explains a refusal as a sentence with whom to ask, and says nothing when allowed", () => {
    expect(refusal("analyst", "buy")).toBe(
      "Buying contacts and verifications uses the team's credits, so it needs a buyer or an admin: ask an admin of your team.",
    );
    expect(refusal("buyer", "rotate")).toBe(
      "Rotating the team's API key needs an admin: ask an admin of your team.",
    );
    expect(refusal("analyst", "download", "ada")).toBe(
      "Downloading a bought file needs a buyer or an admin: ask ada.",
    );
    for (const ability of ABILITIES) expect(refusal("admin", ability)).toBeNull();
    expect(refusal("buyer", "buy")).toBeNull();
  });

  it("lets the starter or an admin cancel a job; one nobody is recorded for, any buyer (the proxy's rule)", () => {
    expect(mayCancel("buyer", "bo", "bo")).toBe(true);
    expect(mayCancel("buyer", "bo", "ada")).toBe(false);
    expect(mayCancel("admin", "ada", "bo")).toBe(true);
    expect(mayCancel("analyst", "al", "bo")).toBe(false);
    expect(mayCancel("buyer", "bo", null)).toBe(true);
    expect(mayCancel("analyst", "al", null)).toBe(false);
    expect(mayCancel(null, null, "bo")).toBe(true);
    expect(cancelRefusal("buyer", "bo", "ada")).toBe("Only ada, who started it, or an admin can cancel it.");
    expect(cancelRefusal("analyst", "al", null)).toBe("Cancelling a job needs a buyer or an admin.");
    expect(cancelRefusal("buyer", "bo", "bo")).toBeNull();
  });
});

describe("recorded names", () => {
  it("say the local admin and the server's command line in words, and people by their names", () => {
    expect(personLabel(LOCAL_PERSON)).toBe("the local admin");
    expect(personLabel(CLI_PERSON)).toBe("the server's command line (npm run users)");
    expect(personLabel("ada")).toBe("ada");
  });
});

describe("a 403 ROLE_REQUIRED from the proxy", () => {
  it("is a refusal of the person's role, in the proxy's own words", () => {
    const error = apiErrorFromAnswer(403, {
      detail: "Buying needs a buyer or an admin; you are an analyst.",
      code: TEAM_CODES.roleRequired,
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.kind).toBe("forbidden");
    expect(error.roleRequired).toBe(true);
    expect(error.message).toBe("Buying needs a buyer or an admin; you are an analyst.");
  });

  it("without a sentence, says so plainly; a key's own 403 is not a role refusal", () => {
    const bare = apiErrorFromAnswer(403, { code: TEAM_CODES.roleRequired });
    expect(bare.message).toBe(ROLE_REQUIRED_MESSAGE);
    const key = apiErrorFromAnswer(403, { detail: "This key may not do that." });
    expect(key.roleRequired).toBe(false);
  });

  it("is told apart from a view-only key when a rotation is refused", () => {
    const role = apiErrorFromAnswer(403, {
      detail: "Rotating the key needs an admin.",
      code: TEAM_CODES.roleRequired,
    });
    expect(rotationError(role)).toBe(
      "The key was not rotated: Rotating the key needs an admin. The current key still works.",
    );
    expect(rotationError(apiErrorFromAnswer(403, { detail: "nope" }))).toMatch(/view-only key/);
  });
});
