/**
 * The documented View operation (`POST /v2/contact/view`): its response fields, its numbered rules 1-4,
 * the Limits section (rows per request, daily budget) and our inferred View choices.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePreviewCapSchema } from "../../../src/contract/errors";
import { responses } from "../../../src/contract/operations";
import { api, type SandboxServer, startSandboxServer } from "../../support/sandbox-server";
import { cond, DEFAULT_VIEW_FIELDS, expectOk, group, KEYS } from "./helpers";

let server: SandboxServer;
beforeAll(async () => {
  server = await startSandboxServer();
});
afterAll(async () => {
  await server?.close();
});

const view = (body: unknown, key: string = KEYS.payg) => api(server.url, key).post("/v2/contact/view", body);

function remainingOf(answer: { headers: Headers }): number {
  const raw = answer.headers.get("x-freepreview-remaining");
  expect(raw, "X-FreePreview-Remaining").not.toBeNull();
  expect(raw).toMatch(/^\d+$/);
  return Number(raw);
}

describe("View request rule `limit` and Limits rule 1: clamped to 1..100, omitted or null is 100", () => {
  it.each([
    [{ limit: 0 }, 1],
    [{ limit: -7 }, 1],
    [{ limit: 1 }, 1],
    [{ limit: 37 }, 37],
    [{ limit: 100 }, 100],
    [{ limit: 101 }, 100],
    [{ limit: 1000 }, 100],
    [{ limit: null }, 100],
    [{}, 100],
  ])("%j -> applied limit %i, and that many rows from the whole dataset", async (body, applied) => {
    const answer = await view(body);
    const sample = expectOk(answer, responses.view);
    expect(sample.limit).toBe(applied);
    expect(sample.rows).toHaveLength(applied);
    expect(sample.rowCount).toBe(sample.rows.length);
  });

  it("a non-integer limit is a 422, not clamped", async () => {
    expect((await view({ limit: 2.5 })).status).toBe(422);
    expect((await view({ limit: "10" })).status).toBe(422);
  });
});

describe("View response: rowCount is the rows returned (not the audience total)", () => {
  it("rowCount equals rows.length for a small audience below the limit", async () => {
    const ids = expectOk(await view({ limit: 3, columns: ["RBID_PAO"] }), responses.view).rows.map((r) =>
      String(r.RBID_PAO),
    );
    const sample = expectOk(
      await view({ filter: group([cond("RBID_PAO", "in", { valueList: ids })]), limit: 50 }),
      responses.view,
    );
    expect(sample.rowCount).toBe(3);
    expect(sample.rows).toHaveLength(3);
    expect(sample.limit).toBe(50);
  });
});

describe("View columns: RBID_PAO always present; masked columns become hasEmail/hasMobile; labels for every field", () => {
  it("default fields (no columns): the inferred set, flags instead of email and mobile", async () => {
    const sample = expectOk(await view({ limit: 20 }), responses.view);
    expect(sample.columns).toEqual(DEFAULT_VIEW_FIELDS);
    for (const row of sample.rows) {
      expect(Object.keys(row).sort()).toEqual([...DEFAULT_VIEW_FIELDS].sort());
      expect(typeof row.hasEmail).toBe("boolean");
      expect(typeof row.hasMobile).toBe("boolean");
      expect(typeof row.RBID_PAO).toBe("string");
    }
    expect(Object.keys(sample.columnLabels).sort()).toEqual([...sample.columns].sort());
    for (const label of Object.values(sample.columnLabels)) expect(label.trim()).not.toBe("");
  });

  it("RBID_PAO is returned even when not requested", async () => {
    const sample = expectOk(
      await view({ columns: ["FULL_NAME_PER", "FOUNDED_ORG"], limit: 5 }),
      responses.view,
    );
    expect(sample.columns).toContain("RBID_PAO");
    expect(sample.columns).toEqual(expect.arrayContaining(["FULL_NAME_PER", "FOUNDED_ORG"]));
    for (const row of sample.rows) {
      expect(typeof row.RBID_PAO).toBe("string");
      expect(Object.keys(row).sort()).toEqual([...sample.columns].sort());
    }
    expect(Object.keys(sample.columnLabels).sort()).toEqual([...sample.columns].sort());
  });

  it("asking for EMAIL_ADDRESS_PER / CELLPHONE_PER returns hasEmail / hasMobile booleans, never the values", async () => {
    const answer = await view({
      columns: ["EMAIL_ADDRESS_PER", "CELLPHONE_PER", "JOB_TITLE_PER"],
      limit: 100,
    });
    const sample = expectOk(answer, responses.view);
    expect(sample.columns).toEqual(
      expect.arrayContaining(["RBID_PAO", "hasEmail", "hasMobile", "JOB_TITLE_PER"]),
    );
    expect(sample.columns).not.toContain("EMAIL_ADDRESS_PER");
    expect(sample.columns).not.toContain("CELLPHONE_PER");
    expect(sample.columnLabels).toHaveProperty("hasEmail");
    expect(sample.columnLabels).toHaveProperty("hasMobile");
    for (const row of sample.rows) {
      expect(row).not.toHaveProperty("EMAIL_ADDRESS_PER");
      expect(row).not.toHaveProperty("CELLPHONE_PER");
      expect(typeof row.hasEmail).toBe("boolean");
      expect(typeof row.hasMobile).toBe("boolean");
    }
    // No address or phone number anywhere in the answer.
    expect(answer.text).not.toMatch(/@/);
    expect(answer.text).not.toMatch(/\+\d[\d ()-]{6,}/);
  });

  it("the flags tell the truth: hasEmail follows EMAIL_ADDRESS_PER isNull / isNotNull", async () => {
    const withEmail = expectOk(
      await view({ filter: group([cond("EMAIL_ADDRESS_PER", "isNotNull")]), limit: 30 }),
      responses.view,
    );
    const without = expectOk(
      await view({ filter: group([cond("EMAIL_ADDRESS_PER", "isNull")]), limit: 30 }),
      responses.view,
    );
    expect(withEmail.rows.length).toBeGreaterThan(0);
    expect(without.rows.length).toBeGreaterThan(0);
    expect(withEmail.rows.every((r) => r.hasEmail === true)).toBe(true);
    expect(without.rows.every((r) => r.hasEmail === false)).toBe(true);
    const withMobile = expectOk(
      await view({
        filter: group([cond("CELLPHONE_PER", "isNotNull")]),
        limit: 30,
        columns: ["CELLPHONE_PER"],
      }),
      responses.view,
    );
    expect(withMobile.rows.every((r) => r.hasMobile === true)).toBe(true);
  });

  it("the flags may be asked for by name; without email/mobile columns no flag appears", async () => {
    const flags = expectOk(await view({ columns: ["hasMobile"], limit: 3 }), responses.view);
    expect(flags.columns).toEqual(["RBID_PAO", "hasMobile"]);
    const none = expectOk(await view({ columns: ["JOB_LEVEL_PER"], limit: 3 }), responses.view);
    expect(none.columns).toEqual(["RBID_PAO", "JOB_LEVEL_PER"]);
    for (const row of none.rows) {
      expect(row).not.toHaveProperty("hasEmail");
      expect(row).not.toHaveProperty("hasMobile");
    }
  });
});

describe("View rule 1: an empty audience returns an empty sample", () => {
  it("200 with rows [] and rowCount 0, and no budget used", async () => {
    const before = remainingOf(await view({ limit: 1 }));
    const answer = await view({
      filter: group([cond("FULL_NAME_PER", "eq", { value: "No Such Person Anywhere 4711" })]),
      limit: 100,
    });
    const sample = expectOk(answer, responses.view);
    expect(sample.rows).toEqual([]);
    expect(sample.rowCount).toBe(0);
    expect(sample.limit).toBe(100);
    expect(remainingOf(answer)).toBe(before);
  });
});

describe("View rule 2: no pagination cursor; repeating the call does not return the next page", () => {
  it("a small audience comes back whole on every call (the second call is not an empty next page)", async () => {
    const ids = expectOk(await view({ limit: 6, columns: ["RBID_PAO"] }), responses.view).rows.map((r) =>
      String(r.RBID_PAO),
    );
    const filter = group([cond("RBID_PAO", "in", { valueList: ids })]);
    const first = expectOk(await view({ filter, limit: 100 }), responses.view);
    const second = expectOk(await view({ filter, limit: 100 }), responses.view);
    expect(first.rows.map((r) => r.RBID_PAO).sort()).toEqual([...ids].sort());
    expect(second.rows.map((r) => r.RBID_PAO).sort()).toEqual([...ids].sort());
  });

  it("the answer carries no cursor, and two samples of a large audience are independent random draws", async () => {
    const a = await view({ limit: 100, columns: ["RBID_PAO"] });
    const b = await view({ limit: 100, columns: ["RBID_PAO"] });
    const first = expectOk(a, responses.view);
    const second = expectOk(b, responses.view);
    for (const body of [a.body, b.body] as Record<string, unknown>[])
      expect(Object.keys(body).sort()).toEqual(["columnLabels", "columns", "limit", "rowCount", "rows"]);
    const one = first.rows.map((r) => String(r.RBID_PAO));
    const two = second.rows.map((r) => String(r.RBID_PAO));
    expect(new Set(one).size).toBe(100);
    expect(one).not.toEqual(two);
    // A random sample, not the first rows by id.
    const sorted = [...one].sort();
    const firstById = expectOk(
      await api(server.url, KEYS.ayce).post("/v2/contact/preview", {
        limit: 100,
        reveal: "none",
        columns: ["RBID_PAO"],
      }),
      responses.preview,
    ).rows.map((r) => String(r.RBID_PAO));
    expect(sorted).not.toEqual(firstById);
  });
});

describe("View rule 3 and Limits rule 3: each row returned counts against the key's daily budget", () => {
  it("X-FreePreview-Remaining decreases by rowCount, per key", async () => {
    const start = remainingOf(await view({ limit: 1 }));
    const a = await view({ limit: 40 });
    expect(remainingOf(a)).toBe(start - 40);
    const b = await view({ limit: 100 });
    expect(remainingOf(b)).toBe(start - 140);
    // Another key has its own budget.
    const other = await view({ limit: 1 }, KEYS.ayce);
    expect(remainingOf(other)).toBeGreaterThan(start - 140);
  });

  it("View costs 0 credits on both plans", async () => {
    for (const key of [KEYS.payg, KEYS.ayce]) {
      const client = api(server.url, key);
      const before = expectOk(await client.get("/v2/credits"), responses.credits).credits;
      await view({ limit: 100, columns: ["EMAIL_ADDRESS_PER", "CELLPHONE_PER"] }, key);
      const after = expectOk(await client.get("/v2/credits"), responses.credits).credits;
      expect(after).toBe(before);
    }
  });
});

describe("View includeScores: adds `score` with semantic and lookalike filters", () => {
  it("semantic title filter: score in [0,1], listed in columns and labels; the exact title scores 1", async () => {
    const filter = group([{ type: "semantic", on: "title", text: "Marketing Manager", match: "similar" }]);
    const sample = expectOk(
      await view({ filter, includeScores: true, limit: 100, columns: ["JOB_TITLE_PER"] }),
      responses.view,
    );
    expect(sample.rows.length).toBeGreaterThan(0);
    expect(sample.columns).toContain("score");
    expect(sample.columnLabels).toHaveProperty("score");
    for (const row of sample.rows) {
      expect(typeof row.score).toBe("number");
      expect(row.score as number).toBeGreaterThanOrEqual(0);
      expect(row.score as number).toBeLessThanOrEqual(1);
      if (String(row.JOB_TITLE_PER).toLowerCase() === "marketing manager") expect(row.score).toBe(1);
      // `similar` is a distance of at most 0.25.
      expect(row.score as number).toBeGreaterThanOrEqual(0.75 - 1e-6);
    }
  });

  it("lookalike filter: score in [0,1]; the named company itself scores 1", async () => {
    const source = expectOk(await view({ columns: ["DOMAIN_ORG", "RBID_ORG"], limit: 1 }), responses.view)
      .rows[0]!;
    const filter = group([{ type: "lookalike", domain: String(source.DOMAIN_ORG), match: "related" }]);
    const sample = expectOk(
      await view({ filter, includeScores: true, limit: 100, columns: ["RBID_ORG"] }),
      responses.view,
    );
    expect(sample.rows.length).toBeGreaterThan(0);
    expect(sample.columns).toContain("score");
    for (const row of sample.rows) {
      expect(row.score as number).toBeGreaterThanOrEqual(0);
      expect(row.score as number).toBeLessThanOrEqual(1);
      if (row.RBID_ORG === source.RBID_ORG) expect(row.score).toBe(1);
    }
  });

  it("a row matched only through another OR branch has score null", async () => {
    const filter = group(
      [
        { type: "semantic", on: "title", text: "Marketing Manager", match: "exact" },
        cond("JOB_TITLE_PER", "eq", { value: "Software Engineer" }),
      ],
      { op: "OR" },
    );
    const sample = expectOk(
      await view({ filter, includeScores: true, limit: 100, columns: ["JOB_TITLE_PER"] }),
      responses.view,
    );
    expect(sample.rows.length).toBeGreaterThan(0);
    for (const row of sample.rows)
      expect(["marketing manager", "software engineer"]).toContain(String(row.JOB_TITLE_PER).toLowerCase());
    for (const row of sample.rows) {
      if (String(row.JOB_TITLE_PER).toLowerCase() === "software engineer") expect(row.score).toBeNull();
      else expect(row.score).toBe(1);
    }
  });

  it("without includeScores there is no score field", async () => {
    const filter = group([{ type: "semantic", on: "title", text: "Sales Director" }]);
    const sample = expectOk(await view({ filter, limit: 10 }), responses.view);
    expect(sample.columns).not.toContain("score");
    for (const row of sample.rows) expect(row).not.toHaveProperty("score");
  });
});

describe("View rule 4 and Limits rule 2: budget exhausted -> 429 FREE_PREVIEW_CAP_REACHED; budget persists", () => {
  let small: SandboxServer;
  beforeAll(async () => {
    small = await startSandboxServer({ viewBudget: 150 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it("150 rows: 100, then 20, then 30 of 100 asked, then 429 with resetAt the next UTC midnight; survives a restart", async () => {
    const client = () => api(small.url, KEYS.payg);
    const first = await client().post("/v2/contact/view", { limit: 100 });
    expect(expectOk(first, responses.view).rowCount).toBe(100);
    expect(remainingOf(first)).toBe(50);

    // Restart on the same state: the budget used is remembered.
    await small.close({ keepData: true });
    small = await startSandboxServer({ viewBudget: 150, dataDir: small.dataDir });

    const second = await client().post("/v2/contact/view", { limit: 20 });
    expect(expectOk(second, responses.view).rowCount).toBe(20);
    expect(remainingOf(second)).toBe(30);

    const third = await client().post("/v2/contact/view", { limit: 100 });
    const partial = expectOk(third, responses.view);
    expect(partial.rowCount).toBe(30);
    expect(partial.rows).toHaveLength(30);
    expect(remainingOf(third)).toBe(0);

    const capped = await client().post("/v2/contact/view", { limit: 5 });
    expect(capped.status, capped.text).toBe(429);
    const body = freePreviewCapSchema.parse(capped.body);
    expect(body.code).toBe("FREE_PREVIEW_CAP_REACHED");
    expect(remainingOf(capped)).toBe(0);
    const now = Date.now();
    const midnight = (t: number) => {
      const d = new Date(t);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    };
    const resetAt = Date.parse(body.resetAt);
    expect(Number.isNaN(resetAt)).toBe(false);
    expect([midnight(now - 60_000), midnight(now)]).toContain(resetAt);
    // An ordinary rate-limit 429 is told apart by its code.
    expect(body.code).not.toBe("RATE_LIMITED");

    // Still capped after another restart; another key of the same sandbox is not.
    await small.close({ keepData: true });
    small = await startSandboxServer({ viewBudget: 150, dataDir: small.dataDir });
    const stillCapped = await client().post("/v2/contact/view", { limit: 1 });
    expect(stillCapped.status).toBe(429);
    expect(freePreviewCapSchema.safeParse(stillCapped.body).success).toBe(true);
    const other = await api(small.url, KEYS.ayce).post("/v2/contact/view", { limit: 10 });
    expect(expectOk(other, responses.view).rowCount).toBe(10);
    expect(remainingOf(other)).toBe(140);
    // Other operations are not affected by the View cap.
    expect((await client().post("/v2/contact/count", {})).status).toBe(200);
  });
});

describe("Limits: the daily View budget is never exceeded, even by concurrent Views (rules 3 and 4)", () => {
  let small: SandboxServer;
  beforeAll(async () => {
    small = await startSandboxServer({ viewBudget: 150 });
  });
  afterAll(async () => {
    await small?.close();
  });

  it("six concurrent Views of 100 with 150 left deliver 150 rows in all, the rest are 429", async () => {
    const client = api(small.url, KEYS.payg);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => client.post("/v2/contact/view", { limit: 100, columns: ["RBID_PAO"] })),
    );
    let delivered = 0;
    for (const answer of answers) {
      if (answer.status === 200) delivered += expectOk(answer, responses.view).rowCount;
      else {
        expect(answer.status, answer.text).toBe(429);
        expect(freePreviewCapSchema.safeParse(answer.body).success).toBe(true);
      }
    }
    expect(delivered).toBe(150);
    const after = await client.post("/v2/contact/view", { limit: 1 });
    expect(after.status).toBe(429);
    expect(remainingOf(after)).toBe(0);
  });
});

describe("INFERRED: X-FreePreview-Remaining is on every View answer, errors included", () => {
  it("a 422 View answer carries the budget left", async () => {
    const before = remainingOf(await view({ limit: 1 }));
    const refused = await view({ limit: "many" });
    expect(refused.status).toBe(422);
    expect(remainingOf(refused)).toBe(before);
  });
});
