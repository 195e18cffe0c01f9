import { describe, expect, it } from "vitest";
import { apiErrorFromAnswer } from "../../../../src/app/api/api-error";
import { auditSentence, teamRefusal } from "../../../../src/app/features/team/team-words";
import { type AuditEntry, TEAM_CODES } from "../../../../src/contract/team";

const refused = (status: number, code: string | null, detail = "refused") =>
  apiErrorFromAnswer(status, code ? { detail, code } : { detail });

describe("the Team page's refusals, in words", () => {
  it("explains the last admin, a taken name and a person of the users file", () => {
    expect(teamRefusal(refused(409, TEAM_CODES.lastAdmin), "role", "ada")).toBe(
      "The role was not changed: ada is the team's only admin, and a team needs one to manage people and the key. Make someone else an admin first.",
    );
    expect(teamRefusal(refused(409, TEAM_CODES.nameTaken), "add", "bo")).toMatch(
      /^The person was not added: someone called bo is on the team already\./,
    );
    expect(teamRefusal(refused(409, TEAM_CODES.managedByFile), "remove", "cy")).toMatch(
      /^The person was not removed: cy is listed in the server's users file \(USERS_FILE\)/,
    );
  });

  it("says a person removed meanwhile is gone, and otherwise repeats the proxy", () => {
    expect(teamRefusal(refused(404, null), "password", "bo")).toBe(
      "The password was not reset: bo is no longer on the team (someone removed them).",
    );
    expect(teamRefusal(refused(500, null, "The store is down."), "add", "bo")).toBe(
      "The person was not added: The store is down.",
    );
  });
});

describe("audit entries as sentences", () => {
  const entry = (over: Partial<AuditEntry>): AuditEntry => ({
    id: 1,
    at: "2026-11-25T12:00:00Z",
    actor: "ada",
    action: "person.add",
    target: "bo",
    summary: "",
    ...over,
  });

  it("says who did what to whom, with the proxy's summary", () => {
    expect(auditSentence(entry({ summary: "as buyer" }))).toBe("ada added bo to the team: as buyer.");
    expect(auditSentence(entry({ action: "person.role", summary: "role buyer → analyst." }))).toBe(
      "ada changed the role of bo: role buyer → analyst.",
    );
    expect(auditSentence(entry({ action: "person.remove" }))).toBe("ada removed bo from the team.");
    expect(auditSentence(entry({ action: "key.rotate", target: null, summary: "now ends in …x9Zq" }))).toBe(
      "ada rotated the team's API key: now ends in …x9Zq.",
    );
  });
});
