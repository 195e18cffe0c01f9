/**
 * Properties that must hold on the real (generated) dataset, for filters drawn by fast-check from the
 * contract's own arbitraries (tests/support/arbitraries/filter.ts), over real HTTP:
 * - negation is the exact complement (INFERRED "Filter semantics": count(A) + count(NOT A) = all);
 * - OR / AND obey inclusion-exclusion;
 * - a wider match level never matches fewer rows (semantic title/company and lookalike);
 * - an export with maxRows >= count delivers exactly count rows;
 * - an estimate's credits are what the export is charged, and a preview's charge is its price-table
 *   cost computed from the rows it returned.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MATCH_LEVELS, REVEALS } from "../../../src/contract/inferred";
import { responses } from "../../../src/contract/operations";
import {
  COMPANY_TEXTS,
  type GroupInput,
  type NodeInput,
  nonBlankTextArb,
  TITLES,
} from "../../support/arbitraries/node-inputs";
import { validFilterArb } from "../../support/arbitraries/valid-filter";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import { creditsOf, csvObjects, expectOk, KEYS, priceOfRows, waitExport } from "./helpers";

let server: SandboxServer;
let client: ReturnType<typeof api>;
let payg: ReturnType<typeof api>;
let total: number;
/** Real companies, so that lookalike nodes name something (an unknown company is a 422 by design). */
let companies: { domain: string; rbidOrg: string }[];

beforeAll(async () => {
  server = await startSandboxServer();
  client = api(server.url, KEYS.ayce);
  payg = api(server.url, KEYS.payg);
  total = await count(null);
  const sample = expectOk(
    await client.post("/v2/contact/view", { columns: ["DOMAIN_ORG", "RBID_ORG"], limit: 40 }),
    responses.view,
  );
  companies = sample.rows.map((r) => ({ domain: String(r.DOMAIN_ORG), rbidOrg: String(r.RBID_ORG) }));
});
afterAll(async () => {
  await server?.close();
});

async function count(filter: unknown): Promise<number> {
  const answer = await client.post("/v2/contact/count", { filter });
  expect(answer.status, `${answer.text}\nfilter: ${JSON.stringify(filter)}`).toBe(200);
  return responses.count.parse(answer.body).count;
}

function hash(text: string): number {
  let h = 7;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}

/** Points every lookalike node at a real company (keeping whether it named it by domain or id). */
function withRealCompanies<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withRealCompanies) as T;
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) copy[k] = withRealCompanies(v);
  if (copy.type === "lookalike") {
    const pick = companies[hash(`${copy.domain ?? ""}|${copy.rbidOrg ?? ""}`) % companies.length]!;
    if (typeof copy.domain === "string" && copy.domain.trim() !== "") {
      copy.domain = pick.domain;
      copy.rbidOrg = "";
    } else {
      copy.rbidOrg = pick.rbidOrg;
      copy.domain = "";
    }
  }
  return copy as T;
}

/** A tree used as a child: its own connector removed, so it cannot override the parent's op. */
function asChild(tree: GroupInput): NodeInput {
  const { joinWithPrevious: _ignored, ...rest } = withRealCompanies(tree);
  return rest;
}

/** Trees as the contract's arbitrary draws them; lookalikes are pointed at real companies when used. */
const filterArb = validFilterArb({ maxDepth: 2 });

const RUNS = { numRuns: 25, interruptAfterTimeLimit: 25_000, markInterruptAsFailure: false } as const;

describe("INFERRED Filter semantics: negate is the exact complement over the whole dataset", () => {
  it("count(A) + count(NOT A) = count(all)", async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, async (tree) => {
        const a = withRealCompanies(tree);
        const notA = { type: "group", negate: true, children: [asChild(tree)] };
        const [inA, outA] = await Promise.all([count(a), count(notA)]);
        expect(inA + outA).toBe(total);
      }),
      RUNS,
    );
  });

  it("double negation is the identity", async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, async (tree) => {
        const a = withRealCompanies(tree);
        const notNotA = {
          type: "group",
          negate: true,
          children: [{ type: "group", negate: true, children: [asChild(tree)] }],
        };
        expect(await count(notNotA)).toBe(await count(a));
      }),
      { ...RUNS, numRuns: 15 },
    );
  });
});

describe("INFERRED Filter semantics: OR and AND of two filters obey inclusion-exclusion", () => {
  it("count(A OR B) = count(A) + count(B) - count(A AND B)", async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, filterArb, async (ta, tb) => {
        const a = asChild(ta);
        const b = asChild(tb);
        const [ca, cb, or, and] = await Promise.all([
          count({ type: "group", op: "AND", children: [a] }),
          count({ type: "group", op: "AND", children: [b] }),
          count({ type: "group", op: "OR", children: [a, b] }),
          count({ type: "group", op: "AND", children: [a, b] }),
        ]);
        expect(or).toBe(ca + cb - and);
        expect(and).toBeLessThanOrEqual(Math.min(ca, cb));
        expect(or).toBeGreaterThanOrEqual(Math.max(ca, cb));
      }),
      RUNS,
    );
  });

  it("joinWithPrevious overrides the group's op: [A, B(OR)] in an AND group is A OR B", async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, filterArb, async (ta, tb) => {
        const a = asChild(ta);
        const b = asChild(tb);
        const viaConnector = await count({
          type: "group",
          op: "AND",
          children: [a, { ...b, joinWithPrevious: "OR" }],
        });
        expect(viaConnector).toBe(await count({ type: "group", op: "OR", children: [a, b] }));
      }),
      { ...RUNS, numRuns: 15 },
    );
  });
});

describe("INFERRED match levels: exact -> same -> similar -> related -> broad never matches fewer rows", () => {
  const ORDER = ["exact", "same", "similar", "related", "broad"] as const;

  it("the contract lists exactly these levels", () => {
    expect([...MATCH_LEVELS].sort()).toEqual([...ORDER].sort());
  });

  async function levelCounts(node: Record<string, unknown>, context: NodeInput | null) {
    return Promise.all(
      ORDER.map((match) =>
        count({ type: "group", op: "AND", children: [...(context ? [context] : []), { ...node, match }] }),
      ),
    );
  }

  const nonDecreasing = (counts: number[]) => {
    for (let i = 1; i < counts.length; i++)
      expect(counts[i]!, JSON.stringify(counts)).toBeGreaterThanOrEqual(counts[i - 1]!);
  };

  it("semantic on title", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.constantFrom(...TITLES), weight: 3 },
          { arbitrary: nonBlankTextArb, weight: 1 },
        ),
        fc.option(filterArb, { nil: null }),
        async (text, context) => {
          const counts = await levelCounts(
            { type: "semantic", on: "title", text },
            context ? asChild(context) : null,
          );
          nonDecreasing(counts);
        },
      ),
      RUNS,
    );
  });

  it("semantic on company", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.constantFrom(...COMPANY_TEXTS), weight: 3 },
          { arbitrary: nonBlankTextArb, weight: 1 },
        ),
        fc.option(filterArb, { nil: null }),
        async (text, context) => {
          nonDecreasing(
            await levelCounts({ type: "semantic", on: "company", text }, context ? asChild(context) : null),
          );
        },
      ),
      RUNS,
    );
  });

  it("lookalike (by domain or rbidOrg); the named company itself always matches", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), async (i, byDomain) => {
        const company = companies[i % companies.length]!;
        const node = byDomain
          ? { type: "lookalike", domain: company.domain }
          : { type: "lookalike", rbidOrg: company.rbidOrg };
        const counts = await levelCounts(node, null);
        nonDecreasing(counts);
        const own = await count({
          type: "group",
          children: [{ type: "condition", column: "RBID_ORG", operator: "eq", value: company.rbidOrg }],
        });
        expect(own).toBeGreaterThan(0);
        expect(counts[0]).toBe(own); // exact = the company itself
        // INFERRED: every company has another company within `similar` distance.
        const companyCount = responses.companyCount.parse(
          (
            await client.post("/v2/contact/company/count", {
              filter: { type: "group", children: [{ ...node, match: "similar" }] },
            })
          ).body,
        ).count;
        expect(companyCount).toBeGreaterThanOrEqual(2);
      }),
      { ...RUNS, numRuns: 15 },
    );
  });
});

describe("INFERRED exports: maxRows >= count delivers exactly count rows", () => {
  it("for random filters (AYCE, free)", async () => {
    await fc.assert(
      fc.asyncProperty(
        filterArb,
        fc.integer({ min: 0, max: 50 }),
        fc.constantFrom(...REVEALS),
        async (tree, extra, reveal) => {
          const filter = withRealCompanies(tree);
          const n = await count(filter);
          const started = await client.post("/v2/contact/export", { filter, maxRows: n + extra + 1, reveal });
          const body = expectOk(started, responses.exportStarted, 202);
          expect(body.rows).toBe(n);
          const done = await waitExport(client, body.exportId);
          expect(done.status).toBe("COMPLETED");
          expect(done.rowsWritten).toBe(n);
          const csv = csvObjects((await client.get(`/v2/contact/export/${body.exportId}/download`)).text);
          expect(csv.rows).toHaveLength(n);
          expect(new Set(csv.rows.map((r) => r.RBID_PAO)).size).toBe(n);
        },
      ),
      { ...RUNS, numRuns: 10 },
    );
  });
});

describe("INFERRED Credits: the estimate is the export's charge; a preview's charge is its rows' price", () => {
  it("PAYG export: charged exactly the estimate, which is the price of the delivered rows", async () => {
    await fc.assert(
      fc.asyncProperty(
        filterArb,
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom(...REVEALS),
        async (tree, maxRows, reveal) => {
          const filter = withRealCompanies(tree);
          const estimate = expectOk(
            await payg.post("/v2/contact/export/estimate", { filter, maxRows, reveal }),
            responses.estimate,
          );
          expect(estimate.rows).toBe(Math.min(maxRows, estimate.audienceCount));
          const before = await creditsOf(payg);
          const started = expectOk(
            await payg.post("/v2/contact/export", { filter, maxRows, reveal }),
            responses.exportStarted,
            202,
          );
          expect(started.credits).toBe(estimate.credits);
          const done = await waitExport(payg, started.exportId);
          expect(done.status).toBe("COMPLETED");
          expect(before - (await creditsOf(payg))).toBe(estimate.credits);
          const csv = csvObjects((await payg.get(`/v2/contact/export/${started.exportId}/download`)).text);
          expect(csv.rows).toHaveLength(estimate.rows);
          expect(priceOfRows(csv.rows, reveal)).toBe(estimate.credits);
        },
      ),
      { ...RUNS, numRuns: 20 },
    );
  });

  it("PAYG preview: creditsCharged = price of the returned rows; the balance moves by exactly that", async () => {
    await fc.assert(
      fc.asyncProperty(
        filterArb,
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(...REVEALS),
        async (tree, limit, reveal) => {
          const filter = withRealCompanies(tree);
          const before = await creditsOf(payg);
          const preview = expectOk(
            await payg.post("/v2/contact/preview", { filter, limit, reveal }),
            responses.preview,
          );
          expect(preview.rows.length).toBe(Math.min(limit, await count(filter)));
          expect(preview.creditsCharged).toBe(priceOfRows(preview.rows, reveal));
          expect(preview.creditsRemaining).toBe(before - preview.creditsCharged);
          expect(await creditsOf(payg)).toBe(before - preview.creditsCharged);
        },
      ),
      RUNS,
    );
  });
});

describe("INFERRED Filter semantics: operators, connectors and empty groups on real data", () => {
  const c = (column: string, operator: string, extra: Record<string, unknown> = {}) => ({
    type: "condition",
    column,
    operator,
    ...extra,
  });
  const g = (children: unknown[], extra: Record<string, unknown> = {}) => ({
    type: "group",
    children,
    ...extra,
  });

  it("ne and notIn never match a null: eq + ne + isNull = all", async () => {
    const value = "Texas";
    const [eq, ne, isNull, notIn, inList] = await Promise.all([
      count(g([c("STATE_NAME_PER", "eq", { value })])),
      count(g([c("STATE_NAME_PER", "ne", { value })])),
      count(g([c("STATE_NAME_PER", "isNull")])),
      count(g([c("STATE_NAME_PER", "notIn", { valueList: [value, "Hesse"] })])),
      count(g([c("STATE_NAME_PER", "in", { valueList: [value, "Hesse"] })])),
    ]);
    expect(isNull).toBeGreaterThan(0);
    expect(eq).toBeGreaterThan(0);
    expect(eq + ne + isNull).toBe(total);
    expect(inList + notIn + isNull).toBe(total);
    // Integer columns too.
    const [feq, fne, fnull] = await Promise.all([
      count(g([c("FOUNDED_ORG", "eq", { value: 2011 })])),
      count(g([c("FOUNDED_ORG", "ne", { value: 2011 })])),
      count(g([c("FOUNDED_ORG", "isNull")])),
    ]);
    expect(fnull).toBeGreaterThan(0);
    expect(feq + fne + fnull).toBe(total);
  });

  it("a long text list (more values than fit a short IN) counts what its values count one by one", async () => {
    const top = expectOk(
      await client.post("/v2/contact/insights", { section: "fields", fields: ["LAST_NAME_PER"] }),
      responses.insightsFields,
    );
    const names = top.fields
      .LAST_NAME_PER!.map((b) => b.value)
      .filter((v): v is string => typeof v === "string");
    expect(names.length).toBeGreaterThanOrEqual(5);
    const invented = Array.from({ length: 90 }, (_, i) => `Nobody'${i}%_\\`);
    const valueList = [...names.map((n) => n.toUpperCase()), ...invented];
    const [inList, ...each] = await Promise.all([
      count(g([c("LAST_NAME_PER", "in", { valueList })])),
      ...names.map((value) => count(g([c("LAST_NAME_PER", "eq", { value })]))),
    ]);
    expect(inList).toBe(each.reduce((a, b) => a + b, 0));
    const [notIn, isNull] = await Promise.all([
      count(g([c("LAST_NAME_PER", "notIn", { valueList })])),
      count(g([c("LAST_NAME_PER", "isNull")])),
    ]);
    expect(inList + notIn + isNull).toBe(total);
  });

  it("between reads value and value2, both ends inclusive", async () => {
    const [between, range, ends] = await Promise.all([
      count(g([c("FOUNDED_ORG", "between", { value: 2000, value2: 2005 })])),
      count(g([c("FOUNDED_ORG", "gte", { value: 2000 }), c("FOUNDED_ORG", "lte", { value: 2005 })])),
      count(g([c("FOUNDED_ORG", "in", { valueList: ["2000", "2005"] })])),
    ]);
    expect(between).toBe(range);
    const inner = await count(
      g([c("FOUNDED_ORG", "gt", { value: 2000 }), c("FOUNDED_ORG", "lt", { value: 2005 })]),
    );
    expect(between - inner).toBe(ends);
    expect(ends).toBeGreaterThan(0);
  });

  it("AND binds tighter than OR: [A, OR B, AND C] = A OR (B AND C)", async () => {
    const A = c("COUNTRY_NAME_PER", "eq", { value: "Germany" });
    const B = c("JOB_LEVEL_PER", "isNotNull");
    const C = c("FOUNDED_ORG", "gte", { value: 2010 });
    const chained = await count(g([A, { ...B, joinWithPrevious: "OR" }, { ...C, joinWithPrevious: "AND" }]));
    const explicit = await count(g([A, g([B, C])], { op: "OR" }));
    const leftFirst = await count(g([g([A, B], { op: "OR" }), C]));
    expect(chained).toBe(explicit);
    expect(chained).not.toBe(leftFirst);
  });

  it("an empty group matches everything; negated, nothing", async () => {
    expect(await count(g([]))).toBe(total);
    expect(await count(g([], { negate: true }))).toBe(0);
    expect(await count(g([g([])]))).toBe(total);
  });

  it("a negated semantic node is the complement of the plain one", async () => {
    for (const on of ["title", "company"] as const) {
      // `broad` on company: short company texts match little at the default level.
      const node =
        on === "title"
          ? { type: "semantic", on, text: "Sales Director" }
          : { type: "semantic", on, text: "cloud security software", match: "broad" };
      const [plain, negated] = await Promise.all([count(g([node])), count(g([{ ...node, negate: true }]))]);
      expect(plain).toBeGreaterThan(0);
      expect(plain + negated).toBe(total);
    }
  });

  it("a lookalike naming one company by both rbidOrg and domain is fine; two different companies are a 422", async () => {
    const [a, b] = companies.filter((x, i, all) => all.findIndex((y) => y.rbidOrg === x.rbidOrg) === i);
    const same = await client.post("/v2/contact/count", {
      filter: g([{ type: "lookalike", rbidOrg: a!.rbidOrg, domain: a!.domain }]),
    });
    expect(same.status, same.text).toBe(200);
    const differ = await client.post("/v2/contact/count", {
      filter: g([{ type: "lookalike", rbidOrg: a!.rbidOrg, domain: b!.domain }]),
    });
    expect(differ.status).toBe(422);
  });
});
