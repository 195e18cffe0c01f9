import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GroupNode } from "../../src/contract/filter";
import { DEFAULT_VIEW_COLUMNS } from "../../src/contract/inferred";
import { requests } from "../../src/contract/operations";
import { datasetPath } from "../../src/sandbox/dataset/index";
import { Dataset, type Sql } from "../../src/sandbox/db";
import { Audience } from "../../src/sandbox/query/audience";
import { SemanticIndex } from "../../src/sandbox/query/semantic";
import { freePort, rssMb, startProcess, stopProcess } from "../support/processes";
import { fmt, median, p95, table, timed } from "./stats";

/**
 * Part one of `npm run bench`: the sandbox on the full dataset. Each operation is timed over HTTP
 * and, in the same run and interleaved with it, the raw DuckDB time of the very SQL the sandbox
 * runs for it, so the ratio holds on a noisy machine.
 */
export async function sandboxBench(options: { rows: number; runs: number }) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ab-bench-sandbox-"));
  const env = {
    SANDBOX_DATA_DIR: dataDir,
    SANDBOX_ROWS: String(options.rows),
    SANDBOX_RATE_PER_MIN: "1000000",
    SANDBOX_RATE_PER_DAY: "100000000",
    SANDBOX_VIEW_BUDGET: "100000000",
  };
  const lines: string[] = [];
  try {
    // Cold: generates the dataset. Warm: reuses it.
    const cold = await startProcess(
      "sandbox",
      { ...env, SANDBOX_PORT: String(await freePort()) },
      /ready on/,
    );
    await stopProcess(cold.child);
    const port = await freePort();
    const warm = await startProcess("sandbox", { ...env, SANDBOX_PORT: String(port) }, /ready on/);
    const url = `http://127.0.0.1:${port}`;

    const db = await Dataset.open(
      datasetPath(path.join(dataDir, "dataset"), { rows: options.rows, seed: 42 }),
    );
    const semantic = new SemanticIndex(db);
    const audience = await Audience.load(db, semantic);
    const facts = await datasetFacts(db);
    const cases = benchCases(facts);

    const results: (string | number)[][] = [];
    for (const bench of cases) {
      const parse = (requests as Record<string, { parse(v: unknown): { filter?: GroupNode | null } }>)[
        bench.schema
      ]!;
      const parsed = parse.parse(bench.body);
      const http: number[] = [];
      const raw: number[] = [];
      const call = () =>
        fetch(`${url}${bench.path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-key": "sbx_ayce_demo" },
          body: JSON.stringify(bench.body),
        }).then(async (r) => {
          if (!r.ok) throw new Error(`${bench.name}: ${r.status} ${await r.text()}`);
          return r.json();
        });
      // Warm-up: caches of both sides, then interleaved measurement.
      for (let i = 0; i < 3; i++) {
        await call();
        await db.rows(await bench.sql(audience, parsed.filter));
      }
      for (let i = 0; i < options.runs; i++) {
        http.push((await timed(call))[0]);
        const query = await bench.sql(audience, parsed.filter);
        raw.push((await timed(() => db.rows(query)))[0]);
      }
      results.push([
        bench.name,
        fmt(median(http)),
        fmt(p95(http)),
        fmt(median(raw)),
        fmt(p95(raw)),
        fmt(median(http) - median(raw)),
        (median(http) / median(raw)).toFixed(2),
      ]);
    }
    const rss = rssMb(warm.child.pid!);
    await stopProcess(warm.child);
    db.close();

    lines.push(
      `Sandbox on ${options.rows.toLocaleString("en-US")} contacts, ${options.runs} runs each (ms):`,
      "",
      table(["operation", "HTTP median", "HTTP p95", "raw median", "raw p95", "overhead", "ratio"], results),
      "",
      table(
        ["start-up", "figure"],
        [
          ["cold start (generates the dataset)", `${(cold.startMs / 1000).toFixed(1)} s`],
          ["warm start", `${(warm.startMs / 1000).toFixed(2)} s`],
          ["resident memory after the runs", `${rss.toFixed(0)} MB`],
        ],
      ),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines.join("\n");
}

interface Facts {
  industry: string;
  country: string;
  domain: string;
}

async function datasetFacts(db: Dataset): Promise<Facts> {
  const top = async (column: string) =>
    String(
      (await db.one({
        text: `SELECT "${column}"::VARCHAR AS v FROM contacts GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
        params: [],
      }))!.v,
    );
  const domain = String(
    (await db.one({ text: "SELECT DOMAIN_ORG AS v FROM companies ORDER BY org_idx LIMIT 1", params: [] }))!.v,
  );
  return { industry: await top("INDUSTRY_LINKEDIN_ORG"), country: await top("COUNTRY_NAME_PER"), domain };
}

interface Case {
  name: string;
  path: string;
  schema: string;
  body: Record<string, unknown>;
  sql: (audience: Audience, filter: GroupNode | null | undefined) => Promise<Sql>;
}

/** Filters of three or more predicates with an OR, three levels deep, as a marketer builds them. */
function benchCases(f: Facts): Case[] {
  const cond = (column: string, operator: string, extra: Record<string, unknown>) => ({
    type: "condition",
    column,
    operator,
    ...extra,
  });
  const threeLevel = {
    type: "group",
    op: "OR",
    children: [
      {
        type: "group",
        op: "AND",
        children: [
          cond("COUNTRY_NAME_PER", "in", { valueList: [f.country, "Canada", "United Kingdom"] }),
          {
            type: "group",
            op: "OR",
            children: [
              cond("JOB_LEVEL_PER", "eq", { value: "Director" }),
              cond("JOB_LEVEL_PER", "eq", { value: "VP" }),
            ],
          },
        ],
      },
      {
        type: "group",
        op: "AND",
        children: [
          cond("INDUSTRY_LINKEDIN_ORG", "eq", { value: f.industry }),
          cond("EMPLOYEE_COUNT_MIN", "gte", { value: 200 }),
        ],
      },
    ],
  };
  const semanticFilter = {
    type: "group",
    op: "OR",
    children: [
      { type: "semantic", on: "title", text: "VP Marketing", match: "similar" },
      {
        type: "group",
        children: [
          cond("COUNTRY_NAME_PER", "eq", { value: f.country }),
          cond("JOB_FUNCTION_PER", "eq", { value: "Marketing" }),
        ],
      },
    ],
  };
  const lookalikeFilter = {
    type: "group",
    op: "OR",
    children: [
      { type: "lookalike", domain: f.domain, match: "related" },
      {
        type: "group",
        children: [
          cond("COUNTRY_NAME_PER", "eq", { value: f.country }),
          cond("JOB_LEVEL_PER", "eq", { value: "C-Level" }),
        ],
      },
    ],
  };
  // Hundreds of titles on each side: a list's length must not cost per row (as 250 IN literals did:
  // 84 ms of CPU per count, half the load suite's throughput).
  const broadTitles = {
    type: "group",
    op: "OR",
    children: [
      { type: "semantic", on: "title", text: "marketing director", match: "related" },
      cond("JOB_TITLE_PER", "contains", { value: "Manager" }),
    ],
  };
  const count = (a: Audience, filter: GroupNode | null | undefined) => a.countSql(filter);
  return [
    {
      name: "count (3-level, OR)",
      path: "/v2/contact/count",
      schema: "count",
      body: { filter: threeLevel },
      sql: count,
    },
    {
      name: "view, 100 rows",
      path: "/v2/contact/view",
      schema: "view",
      body: { filter: threeLevel, limit: 100 },
      sql: async (a, filter) => (await a.sampleSql(filter, DEFAULT_VIEW_COLUMNS, 100)).query,
    },
    {
      name: "insights breakdown",
      path: "/v2/contact/insights",
      schema: "insights",
      body: { section: "breakdown", filter: threeLevel, groupField: "INDUSTRY_LINKEDIN_ORG" },
      sql: (a, filter) => a.breakdownSql(filter, "INDUSTRY_LINKEDIN_ORG"),
    },
    {
      name: "semantic title (count)",
      path: "/v2/contact/count",
      schema: "count",
      body: { filter: semanticFilter },
      sql: count,
    },
    {
      name: "broad title match (count)",
      path: "/v2/contact/count",
      schema: "count",
      body: { filter: broadTitles },
      sql: count,
    },
    {
      name: "lookalike (count)",
      path: "/v2/contact/count",
      schema: "count",
      body: { filter: lookalikeFilter },
      sql: count,
    },
  ];
}
