import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ARRAY, arrayValue, type DuckDBConnection, DuckDBInstance, FLOAT } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cosineDistance,
  embedCompanyText,
  embedTitle,
  VECTOR_DIMS,
} from "../../../src/sandbox/dataset/embed";
import { generateDataset } from "../../../src/sandbox/dataset/generate";
import { companyCountFor, DATASET_VERSION, ENUM_COLUMNS } from "../../../src/sandbox/dataset/index";
import { draws } from "../../../src/sandbox/dataset/tables";
import { EMPLOYEE_RANGES, REVENUE_RANGES } from "../../../src/sandbox/dataset/vocab/firmographics";
import { COUNTRIES } from "../../../src/sandbox/dataset/vocab/geo";

const ROWS = 20_000;
const SEED = 7;

const TEXT_COLUMNS = [
  "RBID_PAO",
  "RBID_PER",
  "RBID_ORG",
  "FIRST_NAME_PER",
  "LAST_NAME_PER",
  "FULL_NAME_PER",
  "JOB_TITLE_PER",
  "JOB_LEVEL_PER",
  "JOB_FUNCTION_PER",
  "EMAIL_ADDRESS_PER",
  "CELLPHONE_PER",
  "LINKEDIN_URL_PER",
  "CITY_PER",
  "STATE_NAME_PER",
  "COUNTRY_NAME_PER",
  "CONTINENT_PER",
  "COMPANY_NAME_ORG",
  "DOMAIN_ORG",
  "WEBSITE_ORG",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
  "HEADQUARTERS_CITY_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
  "ABOUT_US_ORG",
];
const INTEGER_COLUMNS = [
  "EMPLOYEE_COUNT_MIN",
  "EMPLOYEE_COUNT_MAX",
  "REVENUE_MIN",
  "REVENUE_MAX",
  "FOUNDED_ORG",
];
const COMPANY_COLUMNS = [
  "RBID_ORG",
  "COMPANY_NAME_ORG",
  "DOMAIN_ORG",
  "WEBSITE_ORG",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_MIN",
  "EMPLOYEE_COUNT_MAX",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
  "REVENUE_MIN",
  "REVENUE_MAX",
  "FOUNDED_ORG",
  "HEADQUARTERS_CITY_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
  "ABOUT_US_ORG",
];

/** Order-independent fingerprints of every table's content. */
const CONTENT_HASH = {
  contacts: `SELECT sum(hash(${[...TEXT_COLUMNS, ...INTEGER_COLUMNS, "org_idx", "sample_key"].join(", ")}))::VARCHAR FROM contacts`,
  companies: `SELECT sum(hash(org_idx, ${COMPANY_COLUMNS.join(", ")}, vec::VARCHAR))::VARCHAR FROM companies`,
  titles: "SELECT sum(hash(title, JOB_FUNCTION_PER, JOB_LEVEL_PER, vec::VARCHAR))::VARCHAR FROM titles",
};

interface Opened {
  instance: DuckDBInstance;
  db: DuckDBConnection;
}

async function open(file: string): Promise<Opened> {
  const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY", threads: "2" });
  return { instance, db: await instance.connect() };
}

function close({ instance, db }: Opened): void {
  db.closeSync();
  instance.closeSync();
}

async function rows(db: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await db.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

async function value(db: DuckDBConnection, sql: string): Promise<unknown> {
  const first = (await db.runAndReadAll(sql)).getRowsJS()[0];
  return first?.[0];
}

const num = async (db: DuckDBConnection, sql: string) => Number(await value(db, sql));

let dir: string;
let main: Opened;
let db: DuckDBConnection;
const hashes: Record<"same" | "again" | "other", Record<string, unknown>> = {
  same: {},
  again: {},
  other: {},
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-dataset-"));
  const files = {
    same: path.join(dir, "a.duckdb"),
    again: path.join(dir, "b.duckdb"),
    other: path.join(dir, "c.duckdb"),
  };
  await generateDataset(files.same, { rows: ROWS, seed: SEED });
  await generateDataset(files.again, { rows: ROWS, seed: SEED });
  await generateDataset(files.other, { rows: ROWS, seed: SEED + 1 });
  for (const key of ["again", "other"] as const) {
    const opened = await open(files[key]);
    for (const [table, sql] of Object.entries(CONTENT_HASH)) hashes[key][table] = await value(opened.db, sql);
    close(opened);
  }
  main = await open(files.same);
  db = main.db;
  for (const [table, sql] of Object.entries(CONTENT_HASH)) hashes.same[table] = await value(db, sql);
});

afterAll(() => {
  if (main) close(main);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("tables and types", () => {
  it("has exactly the requested number of contacts and companyCountFor(rows) companies", async () => {
    expect(await num(db, "SELECT count(*) FROM contacts")).toBe(ROWS);
    expect(await num(db, "SELECT count(*) FROM companies")).toBe(companyCountFor(ROWS));
    expect(await num(db, "SELECT count(DISTINCT org_idx) FROM contacts")).toBe(companyCountFor(ROWS));
  });

  it("gives every contact column its type; low-cardinality text columns are ENUMs", async () => {
    const types = new Map(
      (
        await rows(db, "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'contacts'")
      ).map((r) => [String(r.column_name), String(r.data_type)]),
    );
    for (const column of TEXT_COLUMNS) {
      const expected = ENUM_COLUMNS.includes(column) ? /^ENUM\(/ : /^VARCHAR$/;
      expect(types.get(column), column).toMatch(expected);
    }
    for (const column of INTEGER_COLUMNS) expect(types.get(column), column).toMatch(/^(INTEGER|BIGINT)$/);
    expect(types.get("org_idx")).toBe("INTEGER");
    expect(types.get("sample_key")).toBe("DOUBLE");
    expect(types.size).toBe(TEXT_COLUMNS.length + INTEGER_COLUMNS.length + 2);
    expect(ENUM_COLUMNS.every((c) => TEXT_COLUMNS.includes(c))).toBe(true);
  });

  it("has companies, titles and meta tables with their columns", async () => {
    const columns = async (table: string) =>
      new Map(
        (
          await rows(db, `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = '${table}'`)
        ).map((r) => [String(r.column_name), String(r.data_type)]),
      );
    const companies = await columns("companies");
    expect([...companies.keys()].sort()).toEqual(["org_idx", "vec", ...COMPANY_COLUMNS].sort());
    expect(companies.get("vec")).toBe(`FLOAT[${VECTOR_DIMS}]`);
    const titles = await columns("titles");
    expect(titles.get("title")).toBe("VARCHAR");
    expect(titles.get("vec")).toBe(`FLOAT[${VECTOR_DIMS}]`);
    expect(titles.has("JOB_FUNCTION_PER") && titles.has("JOB_LEVEL_PER")).toBe(true);
    const meta = Object.fromEntries(
      (await rows(db, "SELECT key, value FROM meta")).map((r) => [String(r.key), String(r.value)]),
    );
    expect(meta).toMatchObject({
      rows: String(ROWS),
      seed: String(SEED),
      version: String(DATASET_VERSION),
      dims: String(VECTOR_DIMS),
      companies: String(companyCountFor(ROWS)),
    });
  });
});

describe("identifiers and order", () => {
  it("has unique, opaque RBIDs", async () => {
    const [r] = await rows(
      db,
      `SELECT count(DISTINCT RBID_PAO) AS pao, count(*) FILTER (WHERE NOT regexp_full_match(RBID_PAO, 'pao_[0-9a-f]{12}')) AS bad_pao,
              count(*) FILTER (WHERE NOT regexp_full_match(RBID_PER, 'per_[0-9a-f]{12}')) AS bad_per,
              count(*) FILTER (WHERE NOT regexp_full_match(RBID_ORG, 'org_[0-9a-f]{12}')) AS bad_org
       FROM contacts`,
    );
    expect(r).toEqual({ pao: BigInt(ROWS), bad_pao: 0n, bad_per: 0n, bad_org: 0n });
    expect(await num(db, "SELECT count(*) - count(DISTINCT RBID_ORG) FROM companies")).toBe(0);
    // One RBID_ORG per company, the same on contacts as in companies.
    expect(
      await num(
        db,
        "SELECT count(*) FROM contacts c JOIN companies o USING (org_idx) WHERE c.RBID_ORG <> o.RBID_ORG",
      ),
    ).toBe(0);
  });

  it("stores contacts physically ordered by RBID_PAO", async () => {
    expect(
      await num(
        db,
        "SELECT count(*) FROM (SELECT RBID_PAO, lag(RBID_PAO) OVER (ORDER BY rowid) AS prev FROM contacts) WHERE prev >= RBID_PAO",
      ),
    ).toBe(0);
  });

  it("has some people at two companies (same RBID_PER and name), never twice at one", async () => {
    const [r] = await rows(
      db,
      `SELECT count(*) AS people, count(*) FILTER (WHERE jobs > 1) AS multi, max(names) AS names, max(same_org) AS same_org
       FROM (SELECT RBID_PER, count(*) AS jobs, count(DISTINCT FULL_NAME_PER) AS names,
                    count(*) - count(DISTINCT org_idx) AS same_org
             FROM contacts GROUP BY RBID_PER)`,
    );
    const share = Number(r?.multi) / ROWS;
    expect(share).toBeGreaterThan(0.01);
    expect(share).toBeLessThan(0.05);
    expect(Number(r?.names)).toBe(1);
    expect(Number(r?.same_org)).toBe(0);
  });

  it("has sample_key uniform in [0, 1)", async () => {
    const [r] = await rows(
      db,
      "SELECT min(sample_key) AS lo, max(sample_key) AS hi, avg(sample_key) AS mean, count(DISTINCT sample_key) AS n FROM contacts",
    );
    expect(Number(r?.lo)).toBeGreaterThanOrEqual(0);
    expect(Number(r?.hi)).toBeLessThan(1);
    expect(Number(r?.mean)).toBeGreaterThan(0.48);
    expect(Number(r?.mean)).toBeLessThan(0.52);
    expect(Number(r?.n)).toBe(ROWS);
  });
});

describe("people", () => {
  it("has emails for ~70%, mobiles for ~35%, LinkedIn profiles for ~85%", async () => {
    const [r] = await rows(
      db,
      `SELECT avg((EMAIL_ADDRESS_PER IS NOT NULL)::INT) AS email, avg((CELLPHONE_PER IS NOT NULL)::INT) AS mobile,
              avg((LINKEDIN_URL_PER IS NOT NULL)::INT) AS linkedin FROM contacts`,
    );
    expect(Number(r?.email)).toBeCloseTo(0.7, 1);
    expect(Number(r?.mobile)).toBeCloseTo(0.35, 1);
    expect(Number(r?.linkedin)).toBeCloseTo(0.85, 1);
  });

  it("draws every random choice independently: varied names, uncorrelated optional fields", async () => {
    // A regression guard: DuckDB's multi-argument hash() once made first and last names come in
    // fixed pairs (a few hundred distinct full names).
    const [r] = await rows(
      db,
      `SELECT count(DISTINCT FULL_NAME_PER) AS names,
              corr((EMAIL_ADDRESS_PER IS NULL)::INT, (CELLPHONE_PER IS NULL)::INT) AS email_mobile,
              corr((LINKEDIN_URL_PER IS NULL)::INT, (CELLPHONE_PER IS NULL)::INT) AS linkedin_mobile,
              corr(sample_key, (EMAIL_ADDRESS_PER IS NULL)::INT) AS sample_email,
              corr(sample_key, org_idx) AS sample_company
       FROM contacts`,
    );
    expect(Number(r?.names)).toBeGreaterThan(ROWS * 0.5);
    for (const key of ["email_mobile", "linkedin_mobile", "sample_email", "sample_company"]) {
      expect(Math.abs(Number(r?.[key])), key).toBeLessThan(0.04);
    }
  });

  it("has lower-case, unique emails at the company's domain", async () => {
    const [r] = await rows(
      db,
      `SELECT count(EMAIL_ADDRESS_PER) AS n, count(DISTINCT EMAIL_ADDRESS_PER) AS distinct_n,
              count(*) FILTER (WHERE EMAIL_ADDRESS_PER <> lower(EMAIL_ADDRESS_PER)) AS upper,
              count(*) FILTER (WHERE split_part(EMAIL_ADDRESS_PER, '@', 2) <> DOMAIN_ORG) AS foreign_domain,
              count(*) FILTER (WHERE NOT regexp_full_match(EMAIL_ADDRESS_PER, '[a-z][a-z0-9._]*@[a-z0-9.-]+\\.[a-z]+')) AS malformed
       FROM contacts WHERE EMAIL_ADDRESS_PER IS NOT NULL`,
    );
    expect(Number(r?.n)).toBeGreaterThan(0);
    expect(r?.distinct_n).toBe(r?.n);
    expect([r?.upper, r?.foreign_domain, r?.malformed]).toEqual([0n, 0n, 0n]);
  });

  it("uses one email pattern per company", async () => {
    // first.last, flast, first or first_last: at a given company, all addresses agree (namesakes
    // get a number: john.smith2@). Names with letters that accents-stripping keeps (ß, ø) may not
    // be recognised here, hence the 99%.
    const [r] = await rows(
      db,
      `WITH classified AS (
         SELECT org_idx, CASE
           WHEN local = first || '.' || last THEN 'first.last'
           WHEN local = first || '_' || last THEN 'first_last'
           WHEN local = left(first, 1) || last THEN 'flast'
           WHEN local = first THEN 'first' END AS pattern
         FROM (SELECT org_idx, regexp_replace(split_part(EMAIL_ADDRESS_PER, '@', 1), '[0-9]+$', '') AS local,
                      regexp_replace(lower(strip_accents(FIRST_NAME_PER)), '[^a-z0-9]', '', 'g') AS first,
                      regexp_replace(lower(strip_accents(LAST_NAME_PER)), '[^a-z0-9]', '', 'g') AS last
               FROM contacts WHERE EMAIL_ADDRESS_PER IS NOT NULL))
       SELECT avg((pattern IS NOT NULL)::INT) AS recognised,
              (SELECT count(*) FROM (SELECT org_idx FROM classified GROUP BY org_idx HAVING count(DISTINCT pattern) > 1)) AS mixed
       FROM classified`,
    );
    expect(Number(r?.recognised)).toBeGreaterThan(0.99);
    expect(Number(r?.mixed)).toBe(0);
  });

  it("writes mobiles in E.164 with the person's country calling code", async () => {
    const mobiles = await rows(
      db,
      "SELECT COUNTRY_NAME_PER::VARCHAR AS country, CELLPHONE_PER AS phone FROM contacts WHERE CELLPHONE_PER IS NOT NULL",
    );
    expect(mobiles.length).toBeGreaterThan(ROWS * 0.3);
    const byName = new Map(COUNTRIES.map((c) => [c.name, c]));
    for (const { country, phone } of mobiles) {
      const spec = byName.get(String(country));
      expect(spec, String(country)).toBeDefined();
      expect(String(phone)).toMatch(/^\+[1-9][0-9]{7,14}$/);
      expect(String(phone).startsWith(`+${spec?.callingCode}`)).toBe(true);
      expect(String(phone).length).toBe(1 + (spec?.callingCode.length ?? 0) + (spec?.nationalDigits ?? 0));
    }
  });

  it("has LinkedIn URLs built from the name, and FULL_NAME = first + last", async () => {
    expect(
      await num(
        db,
        `SELECT count(*) FROM contacts WHERE LINKEDIN_URL_PER IS NOT NULL
           AND NOT regexp_full_match(LINKEDIN_URL_PER, 'https://www\\.linkedin\\.com/in/[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{1,6}')`,
      ),
    ).toBe(0);
    expect(
      await num(
        db,
        "SELECT count(*) FROM contacts WHERE FULL_NAME_PER <> FIRST_NAME_PER || ' ' || LAST_NAME_PER",
      ),
    ).toBe(0);
  });

  it("places people in real cities, with a state only where the country has states", async () => {
    const withStates = COUNTRIES.filter((c) => c.cities.some((city) => city.state)).map((c) => c.name);
    const [r] = await rows(
      db,
      `SELECT count(*) FILTER (WHERE STATE_NAME_PER IS NULL AND COUNTRY_NAME_PER::VARCHAR IN (${withStates.map((n) => `'${n}'`).join(", ")})) AS missing,
              count(*) FILTER (WHERE STATE_NAME_PER IS NOT NULL AND COUNTRY_NAME_PER::VARCHAR NOT IN (${withStates.map((n) => `'${n}'`).join(", ")})) AS extra,
              count(*) FILTER (WHERE CITY_PER IS NULL OR COUNTRY_NAME_PER IS NULL OR CONTINENT_PER IS NULL) AS unplaced,
              avg((COUNTRY_NAME_PER::VARCHAR = HEADQUARTERS_COUNTRY_NAME_ORG::VARCHAR)::INT) AS at_home,
              avg((COUNTRY_NAME_PER = 'United States')::INT) AS us
       FROM contacts`,
    );
    expect([r?.missing, r?.extra, r?.unplaced]).toEqual([0n, 0n, 0n]);
    expect(Number(r?.at_home)).toBeGreaterThan(0.78);
    expect(Number(r?.at_home)).toBeLessThan(0.9);
    expect(Number(r?.us)).toBeGreaterThan(0.33);
    expect(Number(r?.us)).toBeLessThan(0.47);
    // Every (city, country) pair is one of the vocabulary's.
    const pairs = await rows(
      db,
      "SELECT DISTINCT CITY_PER::VARCHAR AS city, COUNTRY_NAME_PER::VARCHAR AS country FROM contacts",
    );
    const known = new Set(COUNTRIES.flatMap((c) => c.cities.map((city) => `${city.name}|${c.name}`)));
    for (const { city, country } of pairs)
      expect(known.has(`${city}|${country}`), `${city}, ${country}`).toBe(true);
  });

  it("has realistic job levels: many individual contributors, few executives", async () => {
    const share = Object.fromEntries(
      (
        await rows(
          db,
          "SELECT JOB_LEVEL_PER::VARCHAR AS level, count(*) / sum(count(*)) OVER () AS share FROM contacts GROUP BY 1",
        )
      ).map((r) => [String(r.level), Number(r.share)]),
    );
    expect(Object.keys(share).sort()).toEqual(
      ["C-Level", "Director", "Entry", "Manager", "Owner", "Partner", "Senior", "Training", "VP"].sort(),
    );
    expect(share.Entry).toBeGreaterThan(0.25);
    expect((share.Entry ?? 0) + (share.Senior ?? 0) + (share.Manager ?? 0)).toBeGreaterThan(0.65);
    expect(share["C-Level"]).toBeLessThan(0.06);
  });
});

describe("titles", () => {
  const REQUIRED = ["Marketing Manager", "Sales Director", "Software Engineer", "Chief Executive Officer"];

  it("lists exactly the distinct contact titles, with their vectors, function and level", async () => {
    expect(await num(db, "SELECT count(*) FROM titles")).toBe(
      await num(db, "SELECT count(DISTINCT JOB_TITLE_PER) FROM contacts"),
    );
    expect(
      await num(
        db,
        `SELECT count(*) FROM (SELECT DISTINCT JOB_TITLE_PER::VARCHAR AS t, JOB_FUNCTION_PER, JOB_LEVEL_PER FROM contacts) c
         LEFT JOIN titles ON titles.title = c.t AND titles.JOB_FUNCTION_PER = c.JOB_FUNCTION_PER AND titles.JOB_LEVEL_PER = c.JOB_LEVEL_PER
         WHERE titles.title IS NULL`,
      ),
    ).toBe(0);
    const sample = await rows(db, "SELECT title, vec FROM titles USING SAMPLE 25 ROWS (reservoir, 3)");
    for (const { title, vec } of sample) {
      const stored = Float32Array.from(vec as number[]);
      expect(cosineDistance(stored, embedTitle(String(title))), String(title)).toBeLessThan(1e-6);
    }
  });

  it.each(REQUIRED)("has %s with several near synonyms", async (title) => {
    expect(await num(db, `SELECT count(*) FROM contacts WHERE JOB_TITLE_PER = '${title}'`)).toBeGreaterThan(
      0,
    );
    const near = await rows(
      db,
      `SELECT t.title, array_cosine_distance(t.vec, (SELECT vec FROM titles WHERE title = '${title}')) AS d
       FROM titles t WHERE t.title <> '${title}' ORDER BY d LIMIT 10`,
    );
    expect(near.filter((r) => Number(r.d) <= 0.25).length, JSON.stringify(near)).toBeGreaterThanOrEqual(3);
    expect(near.filter((r) => Number(r.d) <= 0.1).length, JSON.stringify(near)).toBeGreaterThanOrEqual(1);
  });

  it("has a few thousand distinct titles in a large dataset's vocabulary", async () => {
    expect(await num(db, "SELECT count(*) FROM titles")).toBeGreaterThan(1000);
  });
});

describe("companies", () => {
  it("copies company columns onto every contact unchanged", async () => {
    const differs = COMPANY_COLUMNS.map((c) => `c.${c} IS DISTINCT FROM o.${c}`).join(" OR ");
    expect(
      await num(db, `SELECT count(*) FROM contacts c JOIN companies o USING (org_idx) WHERE ${differs}`),
    ).toBe(0);
  });

  it("has unique names and unique lower-case domains, and websites built from them", async () => {
    const [r] = await rows(
      db,
      `SELECT count(*) - count(DISTINCT lower(COMPANY_NAME_ORG)) AS dup_names, count(*) - count(DISTINCT DOMAIN_ORG) AS dup_domains,
              count(*) FILTER (WHERE NOT regexp_full_match(DOMAIN_ORG, '[a-z0-9]+(\\.[a-z]{2,3}){1,2}')) AS bad_domains,
              count(*) FILTER (WHERE WEBSITE_ORG <> 'https://www.' || DOMAIN_ORG) AS bad_websites
       FROM companies`,
    );
    expect(r).toEqual({ dup_names: 0n, dup_domains: 0n, bad_domains: 0n, bad_websites: 0n });
  });

  it("keeps startup domains (.io, .ai) for tech companies", async () => {
    const tech = [
      "Software Development",
      "IT Services and IT Consulting",
      "Computer and Network Security",
      "Technology, Information and Internet",
      "Telecommunications",
      "Computer Games",
      "Semiconductor Manufacturing",
    ];
    expect(
      await num(
        db,
        `SELECT count(*) FROM companies WHERE regexp_matches(DOMAIN_ORG, '\\.(io|ai)$')
           AND INDUSTRY_LINKEDIN_ORG::VARCHAR NOT IN (${tech.map((t) => `'${t}'`).join(", ")})`,
      ),
    ).toBe(0);
  });

  it("never names the company or its domain in ABOUT_US_ORG", async () => {
    expect(
      await num(
        db,
        `SELECT count(*) FROM companies
         WHERE contains(lower(ABOUT_US_ORG), lower(COMPANY_NAME_ORG))
            OR contains(lower(ABOUT_US_ORG), lower(DOMAIN_ORG))
            OR contains(lower(ABOUT_US_ORG), split_part(DOMAIN_ORG, '.', 1))`,
      ),
    ).toBe(0);
    expect(
      await num(db, "SELECT count(*) FROM companies WHERE ABOUT_US_ORG IS NULL OR length(ABOUT_US_ORG) < 30"),
    ).toBe(0);
  });

  it("keeps size and revenue bands consistent with their bounds, and revenue growing with size", async () => {
    const bands = await rows(
      db,
      `SELECT DISTINCT EMPLOYEE_COUNT_RANGE_ORG::VARCHAR AS label, EMPLOYEE_COUNT_MIN AS lo, EMPLOYEE_COUNT_MAX AS hi FROM companies`,
    );
    for (const { label, lo, hi } of bands) {
      const band = EMPLOYEE_RANGES.find((b) => b.label === label);
      expect(band, String(label)).toBeDefined();
      expect([lo, hi ?? null]).toEqual([band?.min, band?.max]);
    }
    const revenue = await rows(
      db,
      `SELECT DISTINCT REVENUE_RANGE_ORG::VARCHAR AS label, REVENUE_MIN AS lo, REVENUE_MAX AS hi FROM companies`,
    );
    for (const { label, lo, hi } of revenue) {
      if (label === null) {
        expect([lo, hi]).toEqual([null, null]);
        continue;
      }
      const band = REVENUE_RANGES.find((b) => b.label === label);
      expect(band, String(label)).toBeDefined();
      expect([Number(lo), hi === null ? null : Number(hi)]).toEqual([band?.min, band?.max]);
    }
    const [r] = await rows(
      db,
      `SELECT avg(REVENUE_MIN) FILTER (WHERE EMPLOYEE_COUNT_MIN >= 1001) AS big, avg(REVENUE_MIN) FILTER (WHERE EMPLOYEE_COUNT_MAX <= 50) AS small,
              avg((REVENUE_RANGE_ORG IS NULL)::INT) AS no_revenue, avg((FOUNDED_ORG IS NULL)::INT) AS no_founded,
              min(FOUNDED_ORG) AS oldest, max(FOUNDED_ORG) AS newest
       FROM companies`,
    );
    expect(Number(r?.big)).toBeGreaterThan(Number(r?.small) * 50);
    expect(Number(r?.no_revenue)).toBeGreaterThan(0.02);
    expect(Number(r?.no_revenue)).toBeLessThan(0.09);
    expect(Number(r?.no_founded)).toBeGreaterThan(0.02);
    expect(Number(r?.no_founded)).toBeLessThan(0.09);
    expect(Number(r?.newest)).toBeLessThanOrEqual(2024);
    expect(Number(r?.oldest)).toBeGreaterThan(1800);
  });

  it("gives bigger companies more contacts", async () => {
    const perCompany = Object.fromEntries(
      (
        await rows(
          db,
          `SELECT EMPLOYEE_COUNT_RANGE_ORG::VARCHAR AS band, avg(n) AS n
           FROM (SELECT org_idx, EMPLOYEE_COUNT_RANGE_ORG, count(*) AS n FROM contacts GROUP BY ALL) GROUP BY 1`,
        )
      ).map((r) => [String(r.band), Number(r.n)]),
    );
    expect(perCompany["10001+"]).toBeGreaterThan((perCompany["1-10"] ?? 0) * 20);
    expect(perCompany["201-500"]).toBeGreaterThan(perCompany["11-50"] ?? 0);
  });

  it("stores vec = embedCompanyText(ABOUT_US_ORG + ' ' + industry)", async () => {
    const sample = await rows(
      db,
      "SELECT ABOUT_US_ORG AS about, INDUSTRY_LINKEDIN_ORG::VARCHAR AS industry, vec FROM companies USING SAMPLE 25 ROWS (reservoir, 5)",
    );
    for (const { about, industry, vec } of sample) {
      const expected = embedCompanyText(`${about} ${industry}`);
      expect(cosineDistance(Float32Array.from(vec as number[]), expected)).toBeLessThan(1e-6);
    }
  });

  it("gives every company another company within 0.25 (the 'similar' level)", async () => {
    const [r] = await rows(
      db,
      `SELECT max(nearest) AS worst, count(*) AS n FROM (
         SELECT a.org_idx, min(array_cosine_distance(a.vec, b.vec)) AS nearest
         FROM companies a JOIN companies b ON a.org_idx <> b.org_idx GROUP BY a.org_idx)`,
    );
    expect(Number(r?.n)).toBe(companyCountFor(ROWS));
    expect(Number(r?.worst)).toBeLessThanOrEqual(0.25);
  });

  it("answers a realistic query with companies of the right industry", async () => {
    const query = async (text: string) =>
      (
        await db.runAndReadAll(
          `SELECT INDUSTRY_LINKEDIN_ORG::VARCHAR AS industry, array_cosine_distance(vec, $1) AS d
           FROM companies ORDER BY d LIMIT 5`,
          [arrayValue(Array.from(embedCompanyText(text)))],
          [ARRAY(FLOAT, VECTOR_DIMS)],
        )
      ).getRowObjectsJS();
    const security = await query("cloud security software");
    expect(
      security.every((r) => r.industry === "Computer and Network Security"),
      JSON.stringify(security),
    ).toBe(true);
    expect(Number(security[0]?.d)).toBeLessThan(0.4);
    const law = await query("law firm");
    expect(law.every((r) => r.industry === "Law Practice" || r.industry === "Legal Services")).toBe(true);
  });
});

describe("determinism", () => {
  it("generates identical content for the same rows and seed", () => {
    expect(hashes.again).toEqual(hashes.same);
  });

  it("generates different content for another seed", () => {
    for (const table of ["contacts", "companies"])
      expect(hashes.other[table]).not.toEqual(hashes.same[table]);
  });
});

describe("random draws (SQL)", () => {
  it("are independent across salts and seeds, even in their low bits", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const memory = await instance.connect();
    const a = draws(7);
    const b = draws(8);
    // 1M draws into 1024 x 1024 cells: independent draws fill about 1 - e^-0.954 = 61.5% of them.
    const [r] = (
      await memory.runAndReadAll(
        `SELECT count(DISTINCT (${a.pick("range", 6, 1024)}, ${a.pick("range", 7, 1024)})) AS salts,
                count(DISTINCT (${a.pick("range", 6, 1024)}, ${b.pick("range", 6, 1024)})) AS seeds
         FROM range(1000000)`,
      )
    ).getRowObjectsJS();
    for (const key of ["salts", "seeds"]) {
      expect(Number(r?.[key]) / (1024 * 1024), key).toBeGreaterThan(0.6);
    }
    memory.closeSync();
    instance.closeSync();
  });
});
