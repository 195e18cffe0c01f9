import { ARRAY, arrayValue, FLOAT } from "@duckdb/node-api";
import { PRICE } from "../../contract/inferred";
import { discoverCost } from "../../contract/pricing";
import { charge } from "../billing";
import { embedCompanyText } from "../dataset/embed";
import { VECTOR_DIMS } from "../dataset/index";
import { type Dataset, type Row, SqlBuilder } from "../db";
import type { SomeHandlers } from "../http/pipeline";
import type { StateStore } from "../state/store";

interface HqFilter {
  headquarters_country?: string | null;
  headquarters_city?: string | null;
}

/** Optional HQ filters of the public docs (country case-insensitive; city exact, as documented). */
function hqClauses(sql: SqlBuilder, body: HqFilter): string {
  const clauses: string[] = [];
  if (body.headquarters_country)
    clauses.push(
      `lower(HEADQUARTERS_COUNTRY_NAME_ORG::VARCHAR) = ${sql.param(body.headquarters_country.toLowerCase())}`,
    );
  if (body.headquarters_city)
    clauses.push(`HEADQUARTERS_CITY_ORG::VARCHAR = ${sql.param(body.headquarters_city)}`);
  return clauses.length ? `AND ${clauses.join(" AND ")}` : "";
}

const company = (row: Row, score: number) => ({
  rbid: String(row.RBID_ORG),
  company_name: String(row.COMPANY_NAME_ORG),
  similar_score: Math.round(score * 1e4) / 1e4,
  about_us: (row.ABOUT_US_ORG as string | null) ?? null,
  headquarters_city: (row.HEADQUARTERS_CITY_ORG as string | null) ?? null,
  headquarters_country: (row.HEADQUARTERS_COUNTRY_NAME_ORG as string | null) ?? null,
});

const COLUMNS = `RBID_ORG, COMPANY_NAME_ORG, ABOUT_US_ORG, HEADQUARTERS_CITY_ORG::VARCHAR AS HEADQUARTERS_CITY_ORG,
  HEADQUARTERS_COUNTRY_NAME_ORG::VARCHAR AS HEADQUARTERS_COUNTRY_NAME_ORG`;

/**
 * Organization resolve (name match, a credit per request on either plan, as the public docs price
 * it) and discover (keyword over the description vectors, a credit per result at or above the
 * threshold on PAYG, as the public docs describe the charge). Prices: src/contract/pricing.ts.
 */
export function organizationHandlers(deps: {
  db: Dataset;
  store: StateStore;
}): SomeHandlers<"organizationResolve" | "organizationDiscover"> {
  const { db, store } = deps;
  return {
    async organizationResolve({ c, body, caller }) {
      const sql = new SqlBuilder();
      const name = sql.param(body.company_name.trim().toLowerCase());
      const rows = await db.rows(
        sql.build(
          `SELECT ${COLUMNS}, jaro_winkler_similarity(lower(COMPANY_NAME_ORG), ${name}) AS s FROM companies
           WHERE TRUE ${hqClauses(sql, body)} ORDER BY s DESC, RBID_ORG LIMIT ${sql.param(body.result_count)}`,
        ),
      );
      await charge(store, caller.account, PRICE.perResolve);
      return c.json({ companies: rows.map((r) => company(r, Number(r.s))) });
    },
    async organizationDiscover({ c, body, caller }) {
      const sql = new SqlBuilder();
      const vec = sql.param(
        arrayValue(Array.from(embedCompanyText(body.keyword))),
        ARRAY(FLOAT, VECTOR_DIMS),
      );
      const rows = await db.rows(
        sql.build(
          `SELECT * FROM (SELECT ${COLUMNS}, 1 - array_cosine_distance(vec, ${vec}) AS s FROM companies WHERE TRUE ${hqClauses(sql, body)})
           WHERE s >= ${sql.param(body.min_similarity_score)} ORDER BY s DESC, RBID_ORG LIMIT ${sql.param(body.result_count)}`,
        ),
      );
      await charge(store, caller.account, discoverCost(caller.account.plan, rows.length));
      return c.json({ companies: rows.map((r) => company(r, Number(r.s))) });
    },
  };
}
