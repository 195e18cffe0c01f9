import { ARRAY, arrayValue, FLOAT } from "@duckdb/node-api";
import { normaliseDomain } from "../../contract/domains";
import type { LookalikeNode, SemanticNode } from "../../contract/filter";
import { effectiveMaxDistance } from "../../contract/filter";
import { DEFAULT_MATCH_LEVEL, MATCH_LEVEL_MAX_DISTANCE } from "../../contract/inferred";
import { embedCompanyText, embedTitle } from "../dataset/embed";
import { VECTOR_DIMS } from "../dataset/index";
import { type Dataset, SqlBuilder } from "../db";
import type { Resolved } from "./compile";

/** A lookalike that names no company, or two different ones: a 422 at the node. */
export class UnknownCompanyError extends Error {}

export interface CompanyRef {
  org_idx: number;
  RBID_ORG: string;
  COMPANY_NAME_ORG: string;
  DOMAIN_ORG: string;
}

const CACHE_SIZE = 512;

/** A table of vectors a semantic node searches: distinct job titles, or companies' descriptions. */
interface TextTarget {
  table: string;
  key: string;
  /** What `exact` compares the text with. */
  name: string;
  embed: (text: string) => Float32Array;
  kind: Resolved["kind"];
}
const TITLES: TextTarget = { table: "titles", key: "title", name: "title", embed: embedTitle, kind: "title" };
const COMPANIES: TextTarget = {
  table: "companies",
  key: "org_idx",
  name: "COMPANY_NAME_ORG",
  embed: embedCompanyText,
  kind: "org",
};

/**
 * Resolves semantic and lookalike nodes on the stored vectors: cosine distance in DuckDB over the
 * few thousand distinct titles, or over the companies' name-free description vectors. The result
 * (matched values with their distances) is cached, since the same node is asked again for count,
 * sample and insights as a person edits around it.
 */
export class SemanticIndex {
  private readonly cache = new Map<string, Resolved>();

  constructor(private readonly db: Dataset) {}

  async resolve(node: SemanticNode | LookalikeNode): Promise<Resolved> {
    const ceiling = effectiveMaxDistance(node, MATCH_LEVEL_MAX_DISTANCE, DEFAULT_MATCH_LEVEL);
    const key =
      node.type === "semantic"
        ? `s|${node.on}|${node.text.toLowerCase()}|${ceiling}`
        : `l|${node.rbidOrg.toLowerCase()}|${normaliseDomain(node.domain)}|${ceiling}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Refresh its place in the LRU order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const resolved =
      node.type === "lookalike"
        ? await this.lookalike(node, ceiling)
        : await this.nearText(node.on === "title" ? TITLES : COMPANIES, node.text, ceiling);
    this.cache.set(key, resolved);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return resolved;
  }

  /**
   * Values of a vector table within the ceiling of the text; the value whose name equals the text
   * (ignoring case) always counts, at distance 0, so a wider level never matches fewer rows.
   */
  private async nearText(target: TextTarget, text: string, ceiling: number | null): Promise<Resolved> {
    const { table, key, name, embed, kind } = target;
    const sql = new SqlBuilder();
    const exact = sql.param(text.trim().toLowerCase());
    const query =
      ceiling === null
        ? `SELECT ${key} AS k, 0 AS d FROM ${table} WHERE lower(${name}) = ${exact}`
        : `SELECT k, CASE WHEN lower(n) = ${exact} THEN 0 ELSE d END AS d FROM (
             SELECT ${key} AS k, ${name} AS n, array_cosine_distance(vec, ${sql.param(vector(embed(text)), ARRAY(FLOAT, VECTOR_DIMS))}) AS d
             FROM ${table}
           ) WHERE d <= ${sql.param(ceiling)} OR lower(n) = ${exact}`;
    const distances = new Map<string | number, number>();
    for (const row of await this.db.rows(sql.build(query)))
      distances.set(kind === "title" ? String(row.k) : Number(row.k), clampDistance(row.d));
    return { kind, distances };
  }

  /** People at companies near the named one, itself included at distance 0. */
  private async lookalike(node: LookalikeNode, ceiling: number | null): Promise<Resolved> {
    const source = await this.findCompany({ rbidOrg: node.rbidOrg, domain: node.domain });
    const distances = new Map<string | number, number>([[source.org_idx, 0]]);
    if (ceiling === null) return { kind: "org", distances };
    for (const near of await this.nearCompanies(source.org_idx, ceiling, null))
      distances.set(near.org_idx, near.distance);
    distances.set(source.org_idx, 0);
    return { kind: "org", distances };
  }

  /** The company a lookalike names; both identifiers given must agree. */
  async findCompany(ref: { rbidOrg?: string | null; domain?: string | null }): Promise<CompanyRef> {
    const byId = ref.rbidOrg?.trim()
      ? await this.companyBy("lower(RBID_ORG)", ref.rbidOrg.trim().toLowerCase())
      : null;
    const byDomain = ref.domain?.trim()
      ? await this.companyBy("DOMAIN_ORG", normaliseDomain(ref.domain))
      : null;
    if (ref.rbidOrg?.trim() && !byId)
      throw new UnknownCompanyError(`no company with rbidOrg '${ref.rbidOrg}'`);
    if (ref.domain?.trim() && !byDomain)
      throw new UnknownCompanyError(`no company with domain '${ref.domain}'`);
    if (byId && byDomain && byId.org_idx !== byDomain.org_idx)
      throw new UnknownCompanyError(
        `rbidOrg '${ref.rbidOrg}' and domain '${ref.domain}' name different companies`,
      );
    const found = byId ?? byDomain;
    if (!found) throw new UnknownCompanyError("a lookalike needs rbidOrg or domain");
    return found;
  }

  /** Companies nearest to one, nearest first, itself left out. */
  async nearCompanies(orgIdx: number, ceiling: number | null, limit: number | null) {
    const sql = new SqlBuilder();
    const self = sql.param(orgIdx);
    const where = ceiling === null ? "" : `WHERE d <= ${sql.param(ceiling)}`;
    const top = limit === null ? "" : `ORDER BY d, org_idx LIMIT ${sql.param(limit)}`;
    const rows = await this.db.rows(
      sql.build(
        `SELECT org_idx, d FROM (
           SELECT org_idx, array_cosine_distance(vec, (SELECT vec FROM companies WHERE org_idx = ${self})) AS d
           FROM companies WHERE org_idx <> ${self}
         ) ${where} ${top}`,
      ),
    );
    return rows.map((r) => ({ org_idx: Number(r.org_idx), distance: clampDistance(r.d) }));
  }

  private async companyBy(column: string, value: string): Promise<CompanyRef | null> {
    const sql = new SqlBuilder();
    const row = await this.db.one(
      sql.build(
        `SELECT org_idx, RBID_ORG, COMPANY_NAME_ORG, DOMAIN_ORG FROM companies WHERE ${column} = ${sql.param(value)} LIMIT 1`,
      ),
    );
    return row ? (row as unknown as CompanyRef) : null;
  }
}

function vector(v: Float32Array) {
  return arrayValue(Array.from(v));
}

/** Float rounding can put a self-match a hair above 0. */
function clampDistance(d: unknown): number {
  const n = Number(d);
  return Number.isFinite(n) ? Math.max(0, Math.round(n * 1e6) / 1e6) : 2;
}
