/**
 * Membership in a list of codes we made ourselves (ENUM codes, company indexes): literals up to
 * LITERAL_CODES_MAX, a get_bit mask above. Both must match exactly the rows whose code is listed,
 * leave NULL unknown (so a negation, `IS NOT TRUE`, keeps the NULL rows), and the mask must stay
 * one bound parameter: a list's length is not allowed to cost DuckDB per row (the load suite lost
 * half its throughput to 250-literal lists).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Dataset, SqlBuilder } from "../../../src/sandbox/db";
import { codeIn, LITERAL_CODES_MAX } from "../../../src/sandbox/query/compile";

let db: Dataset;
/** Rows per code of each column, counted once by DuckDB itself (the oracle), and its domain. */
const histograms = new Map<string, { perCode: Map<number, number>; domain: number }>();
let total = 0;

const COLUMNS = {
  title: {
    expr: `enum_code("JOB_TITLE_PER")`,
    domain: `SELECT len(enum_range("JOB_TITLE_PER")) AS n FROM contacts LIMIT 1`,
  },
  company: { expr: "org_idx", domain: "SELECT max(org_idx) + 1 AS n FROM companies" },
} as const;
type ColumnName = keyof typeof COLUMNS;

beforeAll(async () => {
  db = await Dataset.open(inject("datasetFile"), { connections: 1, threads: 1 });
  total = Number((await db.one({ text: "SELECT count(*)::BIGINT AS n FROM contacts", params: [] }))?.n);
  for (const [name, column] of Object.entries(COLUMNS)) {
    const rows = await db.rows({
      text: `SELECT ${column.expr} AS c, count(*)::BIGINT AS n FROM contacts GROUP BY ALL`,
      params: [],
    });
    const perCode = new Map<number, number>();
    for (const r of rows) if (r.c !== null) perCode.set(Number(r.c), Number(r.n));
    const domain = Number((await db.one({ text: column.domain, params: [] }))?.n);
    histograms.set(name, { perCode, domain });
  }
});
afterAll(() => db.close());

async function countWhere(where: (sql: SqlBuilder) => string): Promise<number> {
  const sql = new SqlBuilder();
  const clause = where(sql);
  const row = await db.one(sql.build(`SELECT count(*)::BIGINT AS n FROM contacts WHERE ${clause}`));
  return Number(row?.n);
}

/** A column and a set of its codes: short lists, long ones, all of them, none. */
const caseArb = fc.constantFrom<ColumnName>("title", "company").chain((column) => {
  const { domain } = histograms.get(column)!;
  const code = fc.integer({ min: 0, max: domain - 1 });
  return fc.record({
    column: fc.constant(column),
    codes: fc.oneof(
      fc.uniqueArray(code, { maxLength: LITERAL_CODES_MAX }),
      fc.uniqueArray(code, { minLength: LITERAL_CODES_MAX + 1, maxLength: Math.min(domain, 600) }),
      fc.constant(Array.from({ length: domain }, (_, i) => i)),
    ),
  });
});

describe("codeIn", () => {
  it("matches exactly the rows whose code is listed, and its negation all the others, NULL included", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ column, codes }) => {
        const { perCode, domain } = histograms.get(column)!;
        const expr = COLUMNS[column].expr;
        const expected = codes.reduce((sum, c) => sum + (perCode.get(c) ?? 0), 0);
        expect(await countWhere((sql) => codeIn(expr, codes, domain, sql))).toBe(expected);
        expect(await countWhere((sql) => `(${codeIn(expr, codes, domain, sql)} IS NOT TRUE)`)).toBe(
          total - expected,
        );
      }),
      { numRuns: 60 },
    );
  });

  it("keeps a NULL code unknown, as IN does", async () => {
    const sql = new SqlBuilder();
    const codes = Array.from({ length: 100 }, (_, i) => i);
    const row = await db.one(sql.build(`SELECT (${codeIn("NULL::INTEGER", codes, 200, sql)}) AS m`));
    expect(row?.m).toBeNull();
  });

  it("writes a short list as literals and a long one as a single bound mask", () => {
    const short = new SqlBuilder();
    expect(codeIn("c", [3, 1, 2], 10, short)).toBe("(c IN (3, 1, 2))");
    expect(short.params).toEqual([]);

    const long = new SqlBuilder();
    const codes = Array.from({ length: LITERAL_CODES_MAX + 1 }, (_, i) => i * 2);
    expect(codeIn("c", codes, 100, long)).toBe("(get_bit($1::BIT, c) = 1)");
    expect(long.params).toHaveLength(1);
    const mask = String(long.params[0]);
    expect(mask).toHaveLength(100);
    expect([...mask].flatMap((b, i) => (b === "1" ? [i] : []))).toEqual(codes);
  });

  it("falls back to literals for a code outside the domain rather than index past the mask", () => {
    const sql = new SqlBuilder();
    const codes = [...Array.from({ length: LITERAL_CODES_MAX + 1 }, (_, i) => i), 500];
    expect(codeIn("c", codes, 100, sql)).toMatch(/^\(c IN \(0, 1, .*, 500\)\)$/);
  });
});
