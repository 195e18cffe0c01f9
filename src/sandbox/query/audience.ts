import { COLUMN_NAMES, getColumn } from "../../contract/columns";
import { validationError } from "../../contract/errors";
import type { GroupNode, LookalikeNode, SemanticNode } from "../../contract/filter";
import { INSIGHTS_BREAKDOWN_TOP, INSIGHTS_FIELDS_TOP } from "../../contract/inferred";
import { ENUM_COLUMNS } from "../dataset/index";
import { type Dataset, type Row, type Sql, SqlBuilder } from "../db";
import { unprocessable } from "../http/pipeline";
import {
  type Compiled,
  compileFilter,
  type Dictionary,
  dictionary,
  type Resolved,
  semanticNodes,
} from "./compile";
import { type SemanticIndex, UnknownCompanyError } from "./semantic";

/** A filter made ready to query: its WHERE text and parameters, and its score sources. */
export interface Prepared {
  sql: SqlBuilder;
  compiled: Compiled;
}

/** Every read the contact operations make of the dataset. Column names come from the catalogue only. */
export class Audience {
  private constructor(
    private readonly db: Dataset,
    private readonly semantic: SemanticIndex,
    private readonly dictionaries: ReadonlyMap<string, Dictionary>,
    private readonly rowCount: number,
    private readonly orgIdxLimit: number,
  ) {}

  static async load(db: Dataset, semantic: SemanticIndex): Promise<Audience> {
    const dictionaries = new Map<string, Dictionary>();
    await Promise.all(
      ENUM_COLUMNS.map(async (name) => {
        // enum_range lists the values in code order, which enum_code comparisons rely on.
        const rows = await db.rows({
          text: `SELECT unnest(enum_range("${name}"))::VARCHAR AS v FROM (SELECT "${name}" FROM contacts LIMIT 1)`,
          params: [],
        });
        dictionaries.set(name, dictionary(rows.map((r) => String(r.v))));
      }),
    );
    const count = await db.one({ text: "SELECT count(*)::BIGINT AS n FROM contacts", params: [] });
    // Every org_idx is below this (the compiler sizes company masks by it).
    const companies = await db.one({
      text: "SELECT coalesce(max(org_idx) + 1, 0)::BIGINT AS n FROM companies",
      params: [],
    });
    return new Audience(db, semantic, dictionaries, Number(count?.n ?? 0), Number(companies?.n ?? 0));
  }

  /** Resolves semantic/lookalike nodes (a 422 at the node for an unknown company), then compiles. */
  async prepare(filter: GroupNode | null | undefined, sql = new SqlBuilder()): Promise<Prepared> {
    return this.compile(filter, await this.resolve(filter), sql);
  }

  private async resolve(filter: GroupNode | null | undefined) {
    const resolved = new Map<SemanticNode | LookalikeNode, Resolved>();
    await Promise.all(
      semanticNodes(filter).map(async ({ node, path }) => {
        try {
          resolved.set(node, await this.semantic.resolve(node));
        } catch (error) {
          if (error instanceof UnknownCompanyError)
            throw unprocessable(validationError(["body", "filter", ...path], error.message, node));
          throw error;
        }
      }),
    );
    return resolved;
  }

  /** Compiling needs no query once the semantic nodes are resolved. */
  private compile(
    filter: GroupNode | null | undefined,
    resolved: ReadonlyMap<SemanticNode | LookalikeNode, Resolved>,
    sql = new SqlBuilder(),
  ): Prepared {
    return {
      sql,
      compiled: compileFilter(filter, sql, {
        dictionaries: this.dictionaries,
        resolved,
        orgIdxLimit: this.orgIdxLimit,
      }),
    };
  }

  /** The SQL a count runs (also timed raw by the benchmark). */
  async countSql(filter: GroupNode | null | undefined): Promise<Sql> {
    const { sql, compiled } = await this.prepare(filter);
    return sql.build(`SELECT count(*)::BIGINT AS n FROM contacts WHERE ${compiled.where}`);
  }

  async count(filter: GroupNode | null | undefined): Promise<number> {
    const row = await this.db.one(await this.countSql(filter));
    return Number(row?.n ?? 0);
  }

  async companyCount(filter: GroupNode | null | undefined): Promise<number> {
    const { sql, compiled } = await this.prepare(filter);
    const row = await this.db.one(
      sql.build(`SELECT count(DISTINCT org_idx)::BIGINT AS n FROM contacts WHERE ${compiled.where}`),
    );
    return Number(row?.n ?? 0);
  }

  /**
   * A fresh random sample: the first matching rows from a random position of the file. The file is
   * stored in RBID_PAO order, and RBID_PAO is a hash, so neighbouring rows are unrelated and any
   * run of them is as random as a shuffle; the scan stops as soon as it has enough rows (a full
   * top-N on a random key costs more than ten times as much). It wraps around once.
   */
  async sampleSql(
    filter: GroupNode | null | undefined,
    columns: readonly string[],
    n: number,
    wrap?: number,
  ) {
    return this.sampleQuery(filter, await this.resolve(filter), columns, n, wrap);
  }

  private sampleQuery(
    filter: GroupNode | null | undefined,
    resolved: ReadonlyMap<SemanticNode | LookalikeNode, Resolved>,
    columns: readonly string[],
    n: number,
    wrap?: number,
  ) {
    const { sql, compiled } = this.compile(filter, resolved);
    const start = wrap ?? Math.floor(Math.random() * Math.max(1, this.rowCount));
    const position = wrap === undefined ? `rowid >= ${sql.param(start)}` : `rowid < ${sql.param(start)}`;
    const select = selectList(columns, ["JOB_TITLE_PER", "org_idx"]);
    const query = sql.build(
      `SELECT ${select} FROM contacts WHERE ${position} AND (${compiled.where}) LIMIT ${sql.param(n)}`,
    );
    return { query, scoreSources: compiled.scoreSources, start };
  }

  async sample(filter: GroupNode | null | undefined, columns: readonly string[], n: number) {
    const resolved = await this.resolve(filter);
    const first = this.sampleQuery(filter, resolved, columns, n);
    // Both halves on one connection: under load, queueing again for the wrapped half waited behind
    // every request that had arrived meanwhile (a View took twice as long as a count).
    const rows = await this.db.session(async (run) => {
      const found = await run(first.query);
      if (found.length < n)
        found.push(
          ...(await run(this.sampleQuery(filter, resolved, columns, n - found.length, first.start).query)),
        );
      return found;
    });
    return rows.map((row) => ({ row, score: score(row, first.scoreSources) }));
  }

  /** The first `n` rows of the audience by RBID_PAO (the file is stored in that order). */
  async firstRows(
    filter: GroupNode | null | undefined,
    columns: readonly string[],
    n: number,
  ): Promise<Row[]> {
    const { sql, compiled } = await this.prepare(filter);
    return this.db.rows(
      sql.build(
        `SELECT ${selectList(columns)} FROM contacts WHERE ${compiled.where} ORDER BY RBID_PAO LIMIT ${sql.param(n)}`,
      ),
    );
  }

  /** Size of the audience, and how many of its first `n` rows carry an email and a mobile. */
  async exportFigures(filter: GroupNode | null | undefined, n: number) {
    const { sql, compiled } = await this.prepare(filter);
    const row = await this.db.one(
      sql.build(
        `WITH audience AS (SELECT RBID_PAO, EMAIL_ADDRESS_PER, CELLPHONE_PER FROM contacts WHERE ${compiled.where}),
              chosen AS (SELECT * FROM audience ORDER BY RBID_PAO LIMIT ${sql.param(n)})
         SELECT (SELECT count(*) FROM audience)::BIGINT AS audience,
                count(*)::BIGINT AS rows,
                count(EMAIL_ADDRESS_PER)::BIGINT AS with_email,
                count(CELLPHONE_PER)::BIGINT AS with_mobile
         FROM chosen`,
      ),
    );
    return {
      audienceCount: Number(row?.audience ?? 0),
      rows: Number(row?.rows ?? 0),
      withEmail: Number(row?.with_email ?? 0),
      withMobile: Number(row?.with_mobile ?? 0),
    };
  }

  /** Streams the first `n` audience rows by RBID_PAO, a chunk at a time (exports). */
  async *streamRows(filter: GroupNode | null, columns: readonly string[], n: number) {
    const { sql, compiled } = await this.prepare(filter);
    yield* this.db.stream(
      sql.build(
        `SELECT ${selectList(columns)} FROM contacts WHERE ${compiled.where} ORDER BY RBID_PAO LIMIT ${sql.param(n)}`,
      ),
    );
  }

  /** Rows by RBID_PAO or email (case-insensitive), in the order asked. */
  async lookup(personIds: readonly string[], emails: readonly string[], columns: readonly string[]) {
    const sql = new SqlBuilder();
    const ids = [...new Set(personIds.map((id) => id.trim().toLowerCase()))];
    const mails = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
    const clauses: string[] = [];
    // Ids are generated in lower case, so the asked ones are lowered and the column compared as
    // stored: lower(RBID_PAO) made every Enrich scan and lower a million ids (~70 ms against ~5).
    // Bound one by one (up to 1,000 a call): an unnested list parameter kept native memory per
    // query (see inValues in compile.ts).
    if (ids.length) clauses.push(`RBID_PAO IN (${sql.list(ids)})`);
    if (mails.length) clauses.push(`EMAIL_ADDRESS_PER IN (${sql.list(mails)})`);
    const rows = await this.db.rows(
      sql.build(
        `SELECT ${selectList(columns, ["EMAIL_ADDRESS_PER"])} FROM contacts WHERE ${clauses.join(" OR ")}`,
      ),
    );
    return rows;
  }

  async summary(filter: GroupNode | null | undefined) {
    const { sql, compiled } = await this.prepare(filter);
    const row = await this.db.one(
      sql.build(
        `SELECT count(*)::BIGINT AS total, count(EMAIL_ADDRESS_PER)::BIGINT AS with_email,
                count(CELLPHONE_PER)::BIGINT AS with_mobile, count(DISTINCT org_idx)::BIGINT AS companies
         FROM contacts WHERE ${compiled.where}`,
      ),
    );
    return {
      total: Number(row?.total ?? 0),
      withEmail: Number(row?.with_email ?? 0),
      withMobile: Number(row?.with_mobile ?? 0),
      companies: Number(row?.companies ?? 0),
    };
  }

  async breakdownSql(filter: GroupNode | null | undefined, column: string, top = INSIGHTS_BREAKDOWN_TOP) {
    const { sql, compiled } = await this.prepare(filter);
    const col = quoted(column);
    return sql.build(
      `WITH g AS (SELECT ${col} AS value, count(*)::BIGINT AS n FROM contacts WHERE ${compiled.where} GROUP BY 1)
       SELECT value, n, (SELECT sum(n) FROM g)::BIGINT AS total FROM g ORDER BY n DESC, value NULLS LAST LIMIT ${sql.param(top)}`,
    );
  }

  /** Top values of a column; what the top leaves out is `otherCount`, so the parts add up to total. */
  async breakdown(filter: GroupNode | null | undefined, column: string, top = INSIGHTS_BREAKDOWN_TOP) {
    const rows = await this.db.rows(await this.breakdownSql(filter, column, top));
    const total = rows.length ? Number(rows[0]!.total) : 0;
    const buckets = rows.map((r) => ({ value: jsonValue(r.value), count: Number(r.n) }));
    const shown = buckets.reduce((sum, b) => sum + b.count, 0);
    return { total, buckets, otherCount: total - shown };
  }

  async topValues(filter: GroupNode | null | undefined, columns: readonly string[]) {
    const entries = await Promise.all(
      columns.map(
        async (column) =>
          [column, (await this.breakdown(filter, column, INSIGHTS_FIELDS_TOP)).buckets] as const,
      ),
    );
    return Object.fromEntries(entries);
  }

  /** Distinct values of a company column: bands in their natural order (the ENUM's), others A to Z. */
  async columnValues(column: string): Promise<string[]> {
    const col = quoted(column);
    // Range bands keep their ENUM order (1-10 before 11-50); the output alias must not shadow it.
    const order = getColumn(column)?.ordinal ? "raw" : "raw::VARCHAR";
    const rows = await this.db.rows({
      text: `SELECT raw::VARCHAR AS v FROM (SELECT DISTINCT ${col} AS raw FROM companies WHERE ${col} IS NOT NULL) ORDER BY ${order}`,
      params: [],
    });
    return rows.map((r) => String(r.v));
  }

  async companies(orgIdx: readonly number[], columns: readonly string[]): Promise<Row[]> {
    if (orgIdx.length === 0) return [];
    // The dataset's own company indexes: whole numbers, written as literals (no unnested list).
    if (!orgIdx.every(Number.isSafeInteger)) throw new Error("company indexes must be whole numbers");
    return this.db.rows({
      text: `SELECT org_idx, ${columns.map(quoted).join(", ")} FROM companies WHERE org_idx IN (${orgIdx.join(", ")})`,
      params: [],
    });
  }
}

/** Quoted column list from the catalogue, plus internal columns the caller needs (dropped later). */
function selectList(columns: readonly string[], internal: readonly string[] = []): string {
  const wanted = [...new Set([...columns, ...internal])];
  return wanted.map(quoted).join(", ");
}

/** Column names reach SQL text only from the catalogue or the dataset's own internal names. */
function quoted(name: string): string {
  if (!COLUMN_NAMES.includes(name) && !["org_idx", "sample_key"].includes(name))
    throw new Error(`not a column: ${name}`);
  return `"${name}"`;
}

function jsonValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  return typeof value === "number" ? value : String(value);
}

/** 1 - the smallest distance over the semantic/lookalike nodes the row matched; null if none. */
function score(row: Row, sources: readonly Resolved[]): number | null {
  let best: number | null = null;
  for (const source of sources) {
    const key = source.kind === "title" ? String(row.JOB_TITLE_PER) : Number(row.org_idx);
    const d = source.distances.get(key);
    if (d !== undefined && (best === null || d < best)) best = d;
  }
  return best === null ? null : Math.max(0, Math.min(1, Math.round((1 - best) * 1e4) / 1e4));
}
