/**
 * The Companies screen's operations through the proxy over the real sandbox: company count (with and
 * without a filter, checked against the distinct companies insights reports), lookalikes by domain
 * and by company id (columns, `*`, limit clamping, the 422s), and the values of every enumerable
 * company column (422 for any other column).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPANY_COLUMNS, ENUMERABLE_COMPANY_COLUMNS } from "../../../src/contract/columns";
import { responses } from "../../../src/contract/operations";
import type { Sandbox } from "../../../src/sandbox/app";
import {
  type Browser,
  browser,
  type ProxyServer,
  startProxy,
  startSandbox,
} from "../../support/proxy-server";

let sandbox: Sandbox;
let server: ProxyServer;
let api: Browser;

beforeAll(async () => {
  ({ sandbox } = await startSandbox());
  server = await startProxy(sandbox.fetch, { env: { UPSTREAM_RATE_PER_MIN: "10000" } });
  api = browser(server.url);
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const group = (children: unknown[], op: "AND" | "OR" = "AND") => ({ type: "group", op, children });
const cond = (column: string, operator: string, extra: Record<string, unknown>) => ({
  type: "condition",
  column,
  operator,
  ...extra,
});
const germany = group([cond("COUNTRY_NAME_PER", "eq", { value: "Germany" })]);
const directorsInGermany = group([
  cond("COUNTRY_NAME_PER", "eq", { value: "Germany" }),
  cond("JOB_LEVEL_PER", "eq", { value: "Director" }),
]);

type Company = Record<string, unknown>;
interface Lookalike {
  source: Company;
  companies: (Company & { distance: number })[];
  limit: number;
}
interface Issue {
  loc: (string | number)[];
  msg: string;
}

async function companyCount(filter: unknown): Promise<number> {
  const answer = await api.post<{ count: number }>("/api/v2/contact/company/count", { filter });
  expect(answer.status, answer.text).toBe(200);
  expect(responses.companyCount.safeParse(answer.body).success).toBe(true);
  return answer.body.count;
}

async function distinctCompanies(filter: unknown): Promise<number> {
  const answer = await api.post<{ companies: number; total: number }>("/api/v2/contact/insights", {
    section: "summary",
    filter,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.companies;
}

async function lookalike(body: unknown) {
  return api.post<Lookalike>("/api/v2/contact/company/lookalike", body);
}

/** A company that employs people of the dataset, taken from a lookalike answer (the sandbox's data). */
let seed: { rbidOrg: string; domain: string; name: string };

beforeAll(async () => {
  // Any company of the dataset: the first employer of a German contact, through the free View.
  const view = await api.post<{ rows: Record<string, unknown>[] }>("/api/v2/contact/view", {
    filter: germany,
    limit: 1,
    columns: ["RBID_ORG", "COMPANY_NAME_ORG", "DOMAIN_ORG"],
  });
  expect(view.status, view.text).toBe(200);
  const row = view.body.rows[0]!;
  seed = {
    rbidOrg: String(row.RBID_ORG),
    domain: String(row.DOMAIN_ORG),
    name: String(row.COMPANY_NAME_ORG),
  };
  expect(seed.domain).toMatch(/\./);
});

describe("company count", () => {
  it("counts every company without a filter, and equals insights' distinct companies", async () => {
    const all = await companyCount(null);
    expect(all).toBeGreaterThan(100);
    expect(all).toBe(await distinctCompanies(null));
    // An absent filter and an empty group are the whole dataset too.
    const absent = await api.post<{ count: number }>("/api/v2/contact/company/count", {});
    expect(absent.body.count).toBe(all);
    expect(await companyCount(group([]))).toBe(all);
  });

  it("counts the distinct employers of a filtered audience, fewer for a narrower one", async () => {
    const all = await companyCount(null);
    const inGermany = await companyCount(germany);
    const directors = await companyCount(directorsInGermany);
    expect(inGermany).toBeGreaterThan(0);
    expect(inGermany).toBeLessThan(all);
    expect(directors).toBeGreaterThan(0);
    expect(directors).toBeLessThanOrEqual(inGermany);
    expect(inGermany).toBe(await distinctCompanies(germany));
    expect(directors).toBe(await distinctCompanies(directorsInGermany));
  });

  it("counts one company for a company id condition, and accepts (ignores) any mode", async () => {
    const one = group([cond("RBID_ORG", "eq", { value: seed.rbidOrg })]);
    expect(await companyCount(one)).toBe(1);
    const withMode = await api.post<{ count: number }>("/api/v2/contact/company/count", {
      filter: germany,
      mode: "anything",
    });
    expect(withMode.status).toBe(200);
    expect(withMode.body.count).toBe(await companyCount(germany));
  });

  it("counts the companies of a lookalike audience", async () => {
    const like = group([{ type: "lookalike", domain: seed.domain, match: "broad" }]);
    const count = await companyCount(like);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBe(await distinctCompanies(like));
  });

  it("refuses a broken filter with a readable 422", async () => {
    const answer = await api.post<{ detail: Issue[] }>("/api/v2/contact/company/count", {
      filter: group([cond("FOUNDED_ORG", "gte", { value: "soon" })]),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]!.loc).toEqual(["body", "filter", "children", 0, "value"]);
  });
});

describe("lookalike", () => {
  it("finds companies like one named by domain, nearest first, the source excluded", async () => {
    const answer = await lookalike({ domain: seed.domain, limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    expect(responses.lookalike.safeParse(answer.body).success).toBe(true);
    const { source, companies, limit } = answer.body;
    expect(limit).toBe(10);
    expect(source.RBID_ORG).toBe(seed.rbidOrg);
    expect(source.DOMAIN_ORG).toBe(seed.domain);
    expect(source.COMPANY_NAME_ORG).toBe(seed.name);
    expect(companies.length).toBeGreaterThan(0);
    expect(companies.length).toBeLessThanOrEqual(10);
    const distances = companies.map((c) => c.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    for (const company of companies) {
      expect(company.distance).toBeGreaterThanOrEqual(0);
      expect(company.distance).toBeLessThanOrEqual(2);
      expect(company.RBID_ORG).not.toBe(seed.rbidOrg);
      expect(Object.keys(company)).toEqual(expect.arrayContaining(["RBID_ORG", "COMPANY_NAME_ORG"]));
    }
  });

  it("finds the same companies by company id as by domain, with the default limit of 25", async () => {
    const byDomain = await lookalike({ domain: seed.domain });
    const byId = await lookalike({ rbidOrg: seed.rbidOrg });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.limit).toBe(25);
    expect(byId.body.source.RBID_ORG).toBe(seed.rbidOrg);
    expect(byId.body.companies.map((c) => c.RBID_ORG)).toEqual(
      byDomain.body.companies.map((c) => c.RBID_ORG),
    );
  });

  it("returns the columns asked for (RBID_ORG and distance always), and every company column for *", async () => {
    const some = await lookalike({ rbidOrg: seed.rbidOrg, limit: 3, columns: ["FOUNDED_ORG"] });
    expect(some.status, some.text).toBe(200);
    expect(Object.keys(some.body.source).sort()).toEqual(["FOUNDED_ORG", "RBID_ORG"]);
    for (const company of some.body.companies)
      expect(Object.keys(company).sort()).toEqual(["FOUNDED_ORG", "RBID_ORG", "distance"]);

    const star = await lookalike({ rbidOrg: seed.rbidOrg, limit: 3, columns: ["*"] });
    expect(star.status, star.text).toBe(200);
    expect(Object.keys(star.body.source).sort()).toEqual([...COMPANY_COLUMNS].sort());
    for (const company of star.body.companies)
      expect(Object.keys(company).sort()).toEqual([...COMPANY_COLUMNS, "distance"].sort());
  });

  it("clamps the limit into 1..100", async () => {
    const low = await lookalike({ domain: seed.domain, limit: 0 });
    expect(low.status, low.text).toBe(200);
    expect(low.body.limit).toBe(1);
    expect(low.body.companies).toHaveLength(1);
    const high = await lookalike({ domain: seed.domain, limit: 5000 });
    expect(high.status, high.text).toBe(200);
    expect(high.body.limit).toBe(100);
    expect(high.body.companies.length).toBeLessThanOrEqual(100);
    expect(high.body.companies.length).toBeGreaterThan(25);
  });

  it("refuses both, neither, or blank company references with a readable 422", async () => {
    for (const body of [
      { domain: seed.domain, rbidOrg: seed.rbidOrg },
      {},
      { domain: "  " },
      { domain: null, rbidOrg: null },
    ]) {
      const answer = await lookalike(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      const detail = (answer.body as unknown as { detail: Issue[] }).detail;
      expect(detail.map((d) => d.msg).join(" ")).toMatch(/exactly one of domain or rbidOrg/);
    }
  });

  it("refuses an unknown company with a 422 that points at the field", async () => {
    const byDomain = await lookalike({ domain: "no-such-company.invalid" });
    expect(byDomain.status).toBe(422);
    const domainIssue = (byDomain.body as unknown as { detail: Issue[] }).detail[0]!;
    expect(domainIssue.loc).toEqual(["body", "domain"]);
    expect(domainIssue.msg).not.toBe("");
    const byId = await lookalike({ rbidOrg: "ORG-DOES-NOT-EXIST" });
    expect(byId.status).toBe(422);
    expect((byId.body as unknown as { detail: Issue[] }).detail[0]!.loc).toEqual(["body", "rbidOrg"]);
  });

  it("refuses a person column or an unknown column", async () => {
    for (const column of ["JOB_TITLE_PER", "NOPE"]) {
      const answer = await lookalike({ domain: seed.domain, columns: [column] });
      expect(answer.status, column).toBe(422);
      const issue = (answer.body as unknown as { detail: Issue[] }).detail[0]!;
      expect(issue.loc).toEqual(["body", "columns", 0]);
      expect(issue.msg).toContain(column);
    }
  });
});

describe("column values", () => {
  it("lists the distinct values of every enumerable company column", async () => {
    expect(ENUMERABLE_COMPANY_COLUMNS.length).toBeGreaterThan(0);
    for (const column of ENUMERABLE_COMPANY_COLUMNS) {
      const answer = await api.get<{ column: string; values: string[]; count: number }>(
        `/api/v2/contact/company/columns/${column}/values`,
      );
      expect(answer.status, `${column}: ${answer.text}`).toBe(200);
      expect(responses.columnValues.safeParse(answer.body).success).toBe(true);
      expect(answer.body.column).toBe(column);
      expect(answer.body.values.length).toBeGreaterThan(1);
      expect(answer.body.count).toBe(answer.body.values.length);
      expect(new Set(answer.body.values).size).toBe(answer.body.values.length);
    }
  });

  it("lists a value the seed company carries", async () => {
    const source = await lookalike({ rbidOrg: seed.rbidOrg, limit: 1, columns: ["INDUSTRY_LINKEDIN_ORG"] });
    const industry = source.body.source.INDUSTRY_LINKEDIN_ORG;
    const answer = await api.get<{ values: string[] }>(
      "/api/v2/contact/company/columns/INDUSTRY_LINKEDIN_ORG/values",
    );
    expect(answer.body.values).toContain(industry);
  });

  it("refuses a column that is not an enumerable company column with a readable 422", async () => {
    for (const column of ["CITY_PER", "COMPANY_NAME_ORG", "NOPE"]) {
      const answer = await api.get<{ detail: Issue[] }>(`/api/v2/contact/company/columns/${column}/values`);
      expect(answer.status, column).toBe(422);
      const issue = answer.body.detail[0]!;
      expect(issue.loc).toEqual(["path", "column"]);
      expect(issue.msg).toMatch(/not an enumerable company column/);
    }
  });
});
