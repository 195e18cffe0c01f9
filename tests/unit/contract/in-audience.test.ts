import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { GroupNode } from "../../../src/contract/filter";
import { type FreeCalls, idsInAudience, withinIds } from "../../../src/contract/in-audience";
import { strictRequests } from "../../../src/contract/operations";

describe("withinIds: the audience narrowed to some people", () => {
  const audience: GroupNode = {
    type: "group",
    op: "OR",
    negate: true,
    id: "root",
    children: [
      { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany", id: "a" },
      { type: "condition", column: "JOB_LEVEL_PER", operator: "eq", value: "VP", id: "b" },
    ],
  };

  it("is the audience ANDed with RBID_PAO in [...], valid for the strict contract", () => {
    const filter = withinIds(audience, ["pao_2", "pao_1"]);
    expect(filter.op).toBe("AND");
    expect(filter.children).toHaveLength(2);
    expect(filter.children[0]).toMatchObject({ type: "group", op: "OR", negate: true });
    expect(filter.children[1]).toEqual({
      type: "condition",
      column: "RBID_PAO",
      operator: "in",
      valueList: ["pao_1", "pao_2"],
    });
    expect(JSON.stringify(filter)).not.toContain('"id"');
    const parsed = strictRequests.exportStart.safeParse({ filter, maxRows: 2, reveal: "none" });
    expect(parsed.success).toBe(true);
  });

  it("of everyone (or no filter) is just the ids", () => {
    const only = [{ type: "condition", column: "RBID_PAO", operator: "in", valueList: ["pao_1"] }];
    expect(withinIds({ type: "group", op: "AND", negate: false, children: [] }, ["pao_1"]).children).toEqual(
      only,
    );
    expect(withinIds(null, ["pao_1"]).children).toEqual(only);
  });
});

/** A service whose audience is `members`: counts and lists answer from it; every call is noted. */
function fakeService(members: ReadonlySet<string>) {
  const calls: ("count" | "list")[] = [];
  const asked = (filter: GroupNode) => {
    const last = filter.children.at(-1);
    if (last?.type !== "condition" || last.column !== "RBID_PAO") throw new Error("not narrowed to ids");
    return (last.valueList ?? []).filter((id) => members.has(id.toLowerCase()));
  };
  const service: FreeCalls = {
    count: async (filter) => {
      calls.push("count");
      return asked(filter).length;
    },
    list: async (filter) => {
      calls.push("list");
      const rows = asked(filter);
      if (rows.length > 100) throw new Error("a View answers at most 100 rows");
      // The service's own spelling of the id.
      return rows.map((id) => id.toLowerCase());
    },
  };
  return { service, calls };
}

const ids = (n: number, prefix = "pao_") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("idsInAudience: which people are in it, with free calls only", () => {
  it("lists a small set with one View, keeping the ids as given", async () => {
    const { service, calls } = fakeService(new Set(["pao_1", "pao_3"]));
    const found = await idsInAudience(null, ["PAO_1", "pao_2", "pao_3", "pao_4", "pao_5"], service);
    expect(found).toEqual({ found: ["PAO_1", "pao_3"], complete: true });
    expect(calls).toEqual(["list"]);
  });

  it("settles a large set wholly in or wholly out with one Count", async () => {
    const all = ids(1000);
    const inside = fakeService(new Set(all));
    expect(await idsInAudience(null, all, inside.service)).toEqual({ found: all, complete: true });
    expect(inside.calls).toEqual(["count"]);
    const outside = fakeService(new Set());
    expect(await idsInAudience(null, all, outside.service)).toEqual({ found: [], complete: true });
    expect(outside.calls).toEqual(["count"]);
  });

  it("finds exactly the members of any set, within the calls allowed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer(),
        async (n, share, seed) => {
          const all = ids(n);
          const members = new Set(all.filter((_, i) => ((i * 7919 + seed) >>> 0) % 1000 < share * 1000));
          const { service, calls } = fakeService(members);
          const { found, complete } = await idsInAudience(null, all, service);
          expect(complete).toBe(true);
          expect(found.sort()).toEqual([...members].sort());
          // 1,000 ids take at most 31 calls (halving down to Views of under 100).
          expect(calls.length).toBeLessThanOrEqual(31);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("stops at the calls allowed and says it did not finish", async () => {
    const all = ids(1000);
    const { service, calls } = fakeService(new Set(all.filter((_, i) => i % 2 === 0)));
    const result = await idsInAudience(null, all, service, 3);
    expect(result.complete).toBe(false);
    expect(calls).toHaveLength(3);
  });
});
