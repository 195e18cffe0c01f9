/**
 * Text `in`/`notIn` lists: a short list is bound value by value, a long one (above
 * LITERAL_TEXT_MAX, an exclusion list of thousands of contact ids) is one bound VARCHAR[] tested
 * with a semi-join. Both must match exactly the rows whose value is listed, ignoring case, and
 * `notIn` must never match a NULL.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { GroupNode } from "../../../src/contract/filter";
import { Dataset, SqlBuilder } from "../../../src/sandbox/db";
import { compileFilter, LITERAL_TEXT_MAX } from "../../../src/sandbox/query/compile";

let db: Dataset;
let ids: string[] = [];
let urls: { value: string | null; n: number }[] = [];

beforeAll(async () => {
  db = await Dataset.open(inject("datasetFile"), { connections: 1, threads: 1 });
  ids = (await db.rows({ text: `SELECT "RBID_PAO" AS id FROM contacts ORDER BY 1`, params: [] })).map((r) =>
    String(r.id),
  );
  urls = (
    await db.rows({
      text: `SELECT "LINKEDIN_URL_PER" AS value, count(*)::BIGINT AS n FROM contacts GROUP BY ALL ORDER BY 1`,
      params: [],
    })
  ).map((r) => ({ value: r.value === null ? null : String(r.value), n: Number(r.n) }));
});
afterAll(() => db.close());

function filterOf(column: string, operator: "in" | "notIn", valueList: string[]): GroupNode {
  return {
    type: "group",
    op: "AND",
    children: [{ type: "condition", column, operator, valueList }],
  } as GroupNode;
}

async function count(filter: GroupNode): Promise<{ n: number; params: number; text: string }> {
  const sql = new SqlBuilder();
  const { where } = compileFilter(filter, sql, {
    dictionaries: new Map(),
    resolved: new Map(),
    orgIdxLimit: 0,
  });
  const row = await db.one(sql.build(`SELECT count(*)::BIGINT AS n FROM contacts WHERE ${where}`));
  return { n: Number(row?.n), params: sql.params.length, text: where };
}

describe("text in/notIn lists", () => {
  it("long lists of ids (upper-cased, with unknown ones) match exactly the listed rows, in one parameter", async () => {
    for (const size of [LITERAL_TEXT_MAX, LITERAL_TEXT_MAX + 1, 10_000]) {
      const picked = ids.filter((_, i) => i % 3 === 0).slice(0, size - 10);
      const list = [...picked.map((id, i) => (i % 2 ? id.toUpperCase() : id))];
      for (let i = 0; list.length < size; i++) list.push(`pao_not_there_${i}`);
      const isIn = await count(filterOf("RBID_PAO", "in", list));
      const notIn = await count(filterOf("RBID_PAO", "notIn", list));
      expect(isIn.n).toBe(picked.length);
      expect(notIn.n).toBe(ids.length - picked.length);
      if (size > LITERAL_TEXT_MAX) {
        expect(isIn.params).toBe(1);
        expect(isIn.text).toContain("unnest(");
      } else expect(isIn.params).toBe(size);
    }
  });

  it("notIn on a long list never matches a NULL, and a negated in keeps them", async () => {
    const present = urls.filter((d) => d.value !== null);
    const nulls = urls.find((d) => d.value === null)?.n ?? 0;
    expect(nulls).toBeGreaterThan(0);
    const picked = present.slice(0, LITERAL_TEXT_MAX + 50);
    const list = picked.map((d) => d.value!.toUpperCase());
    for (let i = 0; list.length < LITERAL_TEXT_MAX + 100; i++)
      list.push(`https://linkedin.com/in/nobody-${i}`);
    const listed = picked.reduce((s, d) => s + d.n, 0);
    const all = urls.reduce((s, d) => s + d.n, 0);
    expect((await count(filterOf("LINKEDIN_URL_PER", "in", list))).n).toBe(listed);
    expect((await count(filterOf("LINKEDIN_URL_PER", "notIn", list))).n).toBe(all - nulls - listed);
    const negated = { ...filterOf("LINKEDIN_URL_PER", "in", list), negate: true } as GroupNode;
    expect((await count(negated)).n).toBe(all - listed);
  });

  it("sibling lists on one column (ANDed notIn, ORed in) are one semi-join and match as the lists apart", async () => {
    const chunks = [0, 1, 2, 3, 4].map((k) => ids.filter((_, i) => i % 7 === k).slice(0, 2000));
    const listed = new Set(chunks.flat());
    const condition = (operator: "in" | "notIn", valueList: string[]) => ({
      type: "condition",
      column: "RBID_PAO",
      operator,
      valueList,
    });
    const andNotIn = {
      type: "group",
      op: "AND",
      children: [
        { type: "condition", column: "RBID_PAO", operator: "isNotNull" },
        ...chunks.map((c) =>
          condition(
            "notIn",
            c.map((id) => id.toUpperCase()),
          ),
        ),
      ],
    } as GroupNode;
    const merged = await count(andNotIn);
    expect(merged.n).toBe(ids.length - listed.size);
    expect(merged.params).toBe(1);
    const orIn = { type: "group", op: "OR", children: chunks.map((c) => condition("in", c)) } as GroupNode;
    const anyOf = await count(orIn);
    expect(anyOf.n).toBe(listed.size);
    expect(anyOf.params).toBe(1);
    // Within a larger tree: (listed AND not the first chunk) OR a url that is nobody's.
    const nested = {
      type: "group",
      op: "OR",
      children: [
        { type: "group", op: "OR", children: chunks.map((c) => condition("in", c)) },
        { type: "condition", column: "LINKEDIN_URL_PER", operator: "eq", value: "https://nobody.example" },
      ],
    } as GroupNode;
    const wrapped = {
      type: "group",
      op: "AND",
      children: [nested, condition("notIn", chunks[0]!)],
    } as GroupNode;
    expect((await count(wrapped)).n).toBe(listed.size - chunks[0]!.length);
  });

  it("a long list holding the separator character is bound as a list and still matches exactly", async () => {
    const picked = ids.slice(0, LITERAL_TEXT_MAX + 10);
    const list = [...picked, "odd\u001fvalue"];
    const isIn = await count(filterOf("RBID_PAO", "in", list));
    expect(isIn.n).toBe(picked.length);
    expect(isIn.text).not.toContain("string_split");
    const plain = await count(filterOf("RBID_PAO", "in", picked));
    expect(plain.text).toContain("string_split");
    expect(plain.n).toBe(picked.length);
  });
});
