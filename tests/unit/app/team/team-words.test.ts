import { describe, expect, it } from "vitest";
import { apiErrorFromAnswer } from "../../../../src/app/api/api-error";
import { auditQueryOptions } from "../../../../src/app/features/team/api/audit";
import { auditWords, teamRefusal } from "../../../../src/app/features/team/team-words";
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

  it("says who did what to whom, then the proxy's summary as a sentence", () => {
    expect(auditWords(entry({ summary: "added as buyer" }))).toEqual({
      sentence: "ada added bo to the team.",
      detail: "Added as buyer.",
    });
    expect(auditWords(entry({ action: "person.role", summary: "role buyer → analyst" }))).toEqual({
      sentence: "ada changed the role of bo.",
      detail: "Role buyer → analyst.",
    });
    expect(auditWords(entry({ action: "person.remove" }))).toEqual({
      sentence: "ada removed bo from the team.",
      detail: "",
    });
    expect(
      auditWords(entry({ action: "key.rotate", target: null, summary: "now ends in …x9Zq." })).sentence,
    ).toBe("ada rotated the team's API key.");
  });
});

describe("the audit list's pages", () => {
  const page = (ids: number[], more: boolean) => ({
    more,
    entries: ids.map((id) => ({
      id,
      at: "2026-11-25T12:00:00Z",
      actor: "ada",
      action: "person.add" as const,
      target: "bo",
      summary: "",
    })),
  });

  it("asks for the entries before the oldest one shown, and stops when the proxy says there are no more", () => {
    const { getNextPageParam, initialPageParam } = auditQueryOptions();
    expect(initialPageParam).toBeNull();
    expect(getNextPageParam(page([30, 29, 28], true), [], null, [])).toBe(28);
    expect(getNextPageParam(page([3, 2, 1], false), [], 4, [])).toBeNull();
  });
});
