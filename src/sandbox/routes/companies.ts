import { COMPANY_COLUMNS } from "../../contract/columns";
import { validationError } from "../../contract/errors";
import { type SomeHandlers, unprocessable } from "../http/pipeline";
import type { Audience } from "../query/audience";
import { type SemanticIndex, UnknownCompanyError } from "../query/semantic";

/** Inferred: what a lookalike match carries when no columns are asked for. */
const DEFAULT_COMPANY_COLUMNS = [
  "RBID_ORG",
  "COMPANY_NAME_ORG",
  "DOMAIN_ORG",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
];

export function companyHandlers(deps: {
  audience: Audience;
  semantic: SemanticIndex;
}): SomeHandlers<"companyCount" | "lookalike" | "columnValues"> {
  const { audience, semantic } = deps;
  const valuesCache = new Map<string, string[]>();

  return {
    async companyCount({ c, body }) {
      return c.json({ count: await audience.companyCount(body.filter) });
    },

    async lookalike({ c, body }) {
      let source: Awaited<ReturnType<SemanticIndex["findCompany"]>>;
      try {
        source = await semantic.findCompany({ rbidOrg: body.rbidOrg, domain: body.domain });
      } catch (error) {
        if (!(error instanceof UnknownCompanyError)) throw error;
        const field = body.rbidOrg?.trim() ? "rbidOrg" : "domain";
        throw unprocessable(validationError(["body", field], error.message, body[field]));
      }
      const requested: string[] | null | undefined = body.columns;
      const columns = requested?.includes("*")
        ? [...COMPANY_COLUMNS]
        : requested && requested.length > 0
          ? requested
          : DEFAULT_COMPANY_COLUMNS;
      const wanted = [...new Set(["RBID_ORG", ...columns])];
      const near = await semantic.nearCompanies(source.org_idx, null, body.limit);
      const rows = await audience.companies([source.org_idx, ...near.map((n) => n.org_idx)], wanted);
      const byIdx = new Map(rows.map((r) => [Number(r.org_idx), r]));
      const pick = (idx: number) => {
        const row = byIdx.get(idx) ?? {};
        return Object.fromEntries(wanted.map((col) => [col, row[col] ?? null]));
      };
      return c.json({
        source: pick(source.org_idx),
        companies: near.map((n) => ({ ...pick(n.org_idx), distance: n.distance })),
        limit: body.limit,
      });
    },

    async columnValues({ c, params }) {
      const column: string = params.column;
      let values = valuesCache.get(column);
      if (!values) {
        values = await audience.columnValues(column);
        valuesCache.set(column, values);
      }
      return c.json({ column, values, count: values.length });
    },
  };
}
