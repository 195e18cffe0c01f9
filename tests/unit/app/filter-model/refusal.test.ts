import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/app/api/api-error";
import { refusedNode } from "../../../../src/app/lib/filter/refusal";
import { cond, group, look } from "./helpers";

const refusal = (loc: (string | number)[], msg: string) =>
  new ApiError({
    kind: "validation",
    status: 422,
    message: "invalid",
    issues: [{ loc, msg, type: "value_error" }],
  });

describe("the rule a refused count points at", () => {
  const sent = group("root", [cond("a"), group("g", [cond("b"), look("l", { domain: "nowhere.example" })])]);

  it("follows the children of the sent filter to the node, and says why in words", () => {
    const found = refusedNode(
      sent,
      refusal(
        ["body", "filter", "children", 1, "children", 1, "domain"],
        "Value error, no company with domain 'nowhere.example'",
      ),
    );
    expect(found?.node.id).toBe("l");
    expect(found?.reason).toBe(
      "The data service refused this rule: No company has the domain “nowhere.example”.",
    );
  });

  it("names nothing for an answer about the whole request, another status, or a path that is not there", () => {
    expect(refusedNode(sent, refusal(["body", "filter"], "bad"))).toBeNull();
    expect(refusedNode(sent, refusal(["body", "limit"], "bad"))).toBeNull();
    expect(refusedNode(sent, refusal(["body", "filter", "children", 7], "bad"))).toBeNull();
    expect(refusedNode(sent, new Error("network"))).toBeNull();
  });
});
