/**
 * The SQL that turns the lookups into the file's tables. Contacts are built in three integer-only
 * steps (t_people, t_second_job, t_ready) and one final statement that assembles the strings and
 * sorts by RBID_PAO, so that the expensive sort and write happen once.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { VECTOR_DIMS } from "./embed";
import { DATASET_VERSION, type DatasetSpec } from "./index";
import { SLOTS, sqlString } from "./lookups";
import { EMAIL_PATTERNS } from "./vocab/firmographics";

/** Shares of contacts with each optional field (percent). */
const SHARE = { homeCountry: 80, hqCity: 45, email: 70, mobile: 35, linkedin: 85, secondJob: 3 } as const;

/** Salts of the per-contact draws (see `draws`): one per independent random choice, < 64. */
const SALT = {
  homeCountry: 1,
  country: 2,
  hqCity: 3,
  city: 4,
  nameRegion: 5,
  firstName: 6,
  lastName: 7,
  level: 8,
  function: 9,
  title: 10,
  secondJob: 20,
  secondJobSource: 21,
  email: 22,
  mobile: 23,
  mobileDigits: 24,
  mobilePrefix: 25,
  linkedin: 26,
  linkedinSuffix: 27,
  sample: 30,
} as const;

const RBID_KINDS = { pao: 1, per: 2, org: 3 } as const;

/**
 * RBIDs are 12 hex digits of a 3-round Feistel permutation of the index over 48 bits: they look
 * random, differ per seed, and can never collide (a Feistel network is a bijection whatever its
 * round function, here DuckDB's `hash`). Plain BIGINT arithmetic, so it is cheap per row.
 */
function feistelSql(column: string, seed: number, kind: keyof typeof RBID_KINDS): string {
  const mask = 0xffffff;
  // Round key and seed are packed into the hashed value (see `draws`); half < 2^24.
  const f = (half: string, round: number) =>
    `(hash((${half}) * 16 + ${BigInt(RBID_KINDS[kind] * 4 + round) + seedOffset(seed)}) & ${mask})::BIGINT`;
  const x = `(${column})::BIGINT`;
  const r1 = `xor(${x} >> 24, ${f(`${x} & ${mask}`, 1)})`;
  const r2 = `xor(${x} & ${mask}, ${f(r1, 2)})`;
  const r3 = `xor(${r1}, ${f(r2, 3)})`;
  return `((${r2}) << 24 | (${r3}))`;
}

const rbidTextSql = (prefix: string, key: string) => `'${prefix}_' || lpad(lower(hex(${key})), 12, '0')`;

/** The seed in the high half of a hashed BIGINT (seed < 2^31, so no overflow). */
const seedOffset = (seed: number) => BigInt(seed) << 32n;

/**
 * SQL for the per-contact random draws and choices made from them: `hash()` of one BIGINT that
 * packs the row index, the salt and the seed (`i * 64 + salt` < 2^32 for up to 50M rows). Never
 * `hash(i, salt, seed)`: DuckDB combines the hashes of several arguments in a way that leaves
 * the low bits nearly the same across salts and seeds, so `hash(i, 6, seed) % 1024` and
 * `hash(i, 7, seed) % 1024` were functions of each other (first and last names came in pairs).
 */
export function draws(seed: number) {
  const r = (column: string, salt: number) => `hash((${column}) * 64 + ${BigInt(salt) + seedOffset(seed)})`;
  return {
    r,
    pick: (column: string, salt: number, size: number) => `(${r(column, salt)} % ${size})::INTEGER`,
    below: (column: string, salt: number, percent: number) => `${r(column, salt)} % 1000 < ${percent * 10}`,
  };
}

/** One row per company, plain VARCHAR texts, with its description vector. */
export async function createCompaniesTable(db: DuckDBConnection, seed: number): Promise<void> {
  await db.run(`
    CREATE TABLE companies AS
    SELECT org_idx, ${rbidTextSql("org", feistelSql("org_idx", seed, "org"))} AS RBID_ORG,
           x.COMPANY_NAME_ORG, x.DOMAIN_ORG, 'https://www.' || x.DOMAIN_ORG AS WEBSITE_ORG,
           INDUSTRY_LINKEDIN_ORG::industry_t AS INDUSTRY_LINKEDIN_ORG,
           EMPLOYEE_COUNT_MIN, EMPLOYEE_COUNT_MAX,
           EMPLOYEE_COUNT_RANGE_ORG::employee_range_t AS EMPLOYEE_COUNT_RANGE_ORG,
           REVENUE_RANGE_ORG::revenue_range_t AS REVENUE_RANGE_ORG, REVENUE_MIN, REVENUE_MAX, FOUNDED_ORG,
           HEADQUARTERS_CITY_ORG::city_t AS HEADQUARTERS_CITY_ORG,
           HEADQUARTERS_COUNTRY_NAME_ORG::country_t AS HEADQUARTERS_COUNTRY_NAME_ORG,
           x.ABOUT_US_ORG, x.vec
    FROM t_company c JOIN scratch.t_company_text x USING (org_idx)
    ORDER BY org_idx`);
}

/** Every contact as integers (t_ready): who, where, which job, which email key, which RBIDs. */
export async function buildPeople(db: DuckDBConnection, spec: DatasetSpec): Promise<void> {
  const { r, pick, below } = draws(spec.seed);

  // 1. One row per contact, integers only: company, location, name ids and job title.
  await db.run(`
    CREATE TEMP TABLE t_people AS
    WITH base AS (
      SELECT org_idx, size_class, family_idx, hq_country_idx, hq_city_id,
             contact_start + unnest(range(contact_count)) AS i
      FROM t_company
    ),
    placed AS (
      SELECT b.*,
             CASE WHEN ${below("b.i", SALT.homeCountry, SHARE.homeCountry)} THEN b.hq_country_idx
                  ELSE cs.country_idx END AS country_idx
      FROM base b JOIN t_country_slot cs ON cs.slot = ${pick("b.i", SALT.country, SLOTS.country)}
    ),
    located AS (
      SELECT p.*,
             CASE WHEN p.country_idx = p.hq_country_idx AND ${below("p.i", SALT.hqCity, SHARE.hqCity)}
                  THEN p.hq_city_id ELSE cy.city_id END AS city_id
      FROM placed p
      JOIN t_city_slot cy ON cy.country_idx = p.country_idx AND cy.slot = ${pick("p.i", SALT.city, SLOTS.city)}
    )
    SELECT l.i, l.org_idx, l.country_idx, l.city_id,
           f.name_id AS first_id, f.slug_id AS first_slug, f.initial,
           n.name_id AS last_id, n.slug_id AS last_slug,
           ts.title_idx
    FROM located l
    JOIN t_region_slot rs ON rs.country_idx = l.country_idx AND rs.slot = ${pick("l.i", SALT.nameRegion, SLOTS.nameRegion)}
    JOIN t_first f ON f.region_idx = rs.region_idx AND f.slot = ${pick("l.i", SALT.firstName, SLOTS.name)}
    JOIN t_last n ON n.region_idx = rs.region_idx AND n.slot = ${pick("l.i", SALT.lastName, SLOTS.name)}
    JOIN t_level_slot ls ON ls.size_class = l.size_class AND ls.slot = ${pick("l.i", SALT.level, SLOTS.level)}
    JOIN t_function_slot fs ON fs.family_idx = l.family_idx AND fs.level_idx = ls.level_idx
         AND fs.slot = ${pick("l.i", SALT.function, SLOTS.function)}
    JOIN t_title_slot ts ON ts.function_idx = fs.function_idx AND ts.level_idx = ls.level_idx
         AND ts.slot = ${pick("l.i", SALT.title, SLOTS.title)}`);

  // 2. About 3% of contacts are a second job of a person from another company: same person id,
  //    name and location. Never twice at one company, and never a second job's second job.
  const isSecondJob = (column: string) => below(column, SALT.secondJob, SHARE.secondJob);
  await db.run(`
    CREATE TEMP TABLE t_second_job AS
    SELECT d.i, s.i AS person_i, s.country_idx, s.city_id, s.first_id, s.first_slug, s.initial, s.last_id, s.last_slug
    FROM t_people d
    JOIN t_people s ON s.i = (${r("d.i", SALT.secondJobSource)} % ${spec.rows})::BIGINT
    WHERE ${isSecondJob("d.i")} AND NOT (${isSecondJob("s.i")}) AND s.org_idx <> d.org_idx
    QUALIFY row_number() OVER (PARTITION BY s.i, d.org_idx ORDER BY d.i) = 1`);

  // 3. Who each contact is (after second jobs), email namesakes numbered on integer keys
  //    (john.smith@, john.smith2@), and the RBID keys.
  const localKey = EMAIL_PATTERNS.map((pattern, k) => `WHEN ${k} THEN ${emailKeySql(pattern)}`).join(" ");
  await db.run(`
    CREATE TEMP TABLE t_ready AS
    WITH person AS (
      SELECT p.i, p.org_idx, p.title_idx,
             coalesce(j.person_i, p.i) AS person_i,
             coalesce(j.country_idx, p.country_idx) AS country_idx,
             coalesce(j.city_id, p.city_id) AS city_id,
             coalesce(j.first_id, p.first_id) AS first_id,
             coalesce(j.first_slug, p.first_slug) AS first_slug,
             coalesce(j.initial, p.initial) AS initial,
             coalesce(j.last_id, p.last_id) AS last_id,
             coalesce(j.last_slug, p.last_slug) AS last_slug
      FROM t_people p LEFT JOIN t_second_job j ON j.i = p.i
    ),
    keyed AS (
      SELECT ps.*, c.email_pattern, ${below("ps.i", SALT.email, SHARE.email)} AS has_email,
             CASE c.email_pattern ${localKey} END AS local_key
      FROM person ps JOIN t_company c ON c.org_idx = ps.org_idx
    )
    SELECT k.*,
           row_number() OVER (PARTITION BY k.org_idx, k.has_email, k.local_key ORDER BY k.i) AS namesake,
           ${feistelSql("k.i", spec.seed, "pao")} AS pao_key,
           ${feistelSql("k.person_i", spec.seed, "per")} AS per_key
    FROM keyed k`);
}

/** The contacts table, in RBID_PAO order. */
export async function createContacts(db: DuckDBConnection, spec: DatasetSpec): Promise<void> {
  await db.run(`CREATE TABLE contacts AS ${contactsQuery(spec)}`);
}

/** The query behind the contacts table: strings are assembled here only. */
export function contactsQuery(spec: DatasetSpec): string {
  const { r, pick, below } = draws(spec.seed);
  const emailLocal = EMAIL_PATTERNS.map((pattern, k) => `WHEN ${k} THEN ${emailLocalSql(pattern)}`).join(" ");
  const digits = "(ct.national_digits - length(px.prefix))::INTEGER";
  return `
    SELECT
      ${rbidTextSql("pao", "r.pao_key")} AS RBID_PAO,
      ${rbidTextSql("per", "r.per_key")} AS RBID_PER,
      co.RBID_ORG,
      fn.name AS FIRST_NAME_PER,
      ln.name AS LAST_NAME_PER,
      fn.name || ' ' || ln.name AS FULL_NAME_PER,
      t.title AS JOB_TITLE_PER,
      t.job_level AS JOB_LEVEL_PER,
      t.job_function AS JOB_FUNCTION_PER,
      CASE WHEN r.has_email THEN
        (CASE r.email_pattern ${emailLocal} END)
        || CASE WHEN r.namesake > 1 THEN r.namesake::VARCHAR ELSE '' END || '@' || co.DOMAIN_ORG
      END AS EMAIL_ADDRESS_PER,
      CASE WHEN ${below("r.person_i", SALT.mobile, SHARE.mobile)} THEN
        '+' || ct.calling_code || px.prefix
            || lpad(right(${r("r.person_i", SALT.mobileDigits)}::VARCHAR, ${digits}), ${digits}, '0')
      END AS CELLPHONE_PER,
      CASE WHEN ${below("r.person_i", SALT.linkedin, SHARE.linkedin)} THEN
        'https://www.linkedin.com/in/' || fn.url_slug || '-' || ln.url_slug || '-'
          || lower(substr(hex(${r("r.person_i", SALT.linkedinSuffix)}), 1, 6))
      END AS LINKEDIN_URL_PER,
      cy.city AS CITY_PER,
      cy.state AS STATE_NAME_PER,
      ct.country AS COUNTRY_NAME_PER,
      ct.continent AS CONTINENT_PER,
      co.COMPANY_NAME_ORG, co.DOMAIN_ORG, co.WEBSITE_ORG, co.INDUSTRY_LINKEDIN_ORG,
      co.EMPLOYEE_COUNT_MIN, co.EMPLOYEE_COUNT_MAX, co.EMPLOYEE_COUNT_RANGE_ORG,
      co.REVENUE_RANGE_ORG, co.REVENUE_MIN, co.REVENUE_MAX, co.FOUNDED_ORG,
      co.HEADQUARTERS_CITY_ORG, co.HEADQUARTERS_COUNTRY_NAME_ORG, co.ABOUT_US_ORG,
      r.org_idx::INTEGER AS org_idx,
      (${r("r.i", SALT.sample)} >> 11)::DOUBLE / 9007199254740992.0 AS sample_key
    FROM t_ready r
    JOIN companies co ON co.org_idx = r.org_idx
    JOIN t_title t ON t.title_idx = r.title_idx
    JOIN t_first_name fn ON fn.name_id = r.first_id
    JOIN t_last_name ln ON ln.name_id = r.last_id
    JOIN t_country ct ON ct.country_idx = r.country_idx
    JOIN t_city cy ON cy.city_id = r.city_id
    JOIN t_prefix px ON px.country_idx = r.country_idx AND px.slot = ${pick("r.person_i", SALT.mobilePrefix, SLOTS.mobilePrefix)}
    ORDER BY r.pao_key`;
}

/** An integer standing for an email local part within one company (slug ids, not strings). */
function emailKeySql(pattern: (typeof EMAIL_PATTERNS)[number]): string {
  switch (pattern) {
    case "first.last":
    case "first_last":
      return "ps.first_slug::BIGINT * 65536 + ps.last_slug";
    case "flast":
      return "ps.initial::BIGINT * 65536 + ps.last_slug";
    case "first":
      return "ps.first_slug::BIGINT";
  }
}

function emailLocalSql(pattern: (typeof EMAIL_PATTERNS)[number]): string {
  switch (pattern) {
    case "first.last":
      return "fn.email_slug || '.' || ln.email_slug";
    case "flast":
      return "left(fn.email_slug, 1) || ln.email_slug";
    case "first":
      return "fn.email_slug";
    case "first_last":
      return "fn.email_slug || '_' || ln.email_slug";
  }
}

export async function createTitlesAndMeta(
  db: DuckDBConnection,
  spec: DatasetSpec,
  companies: number,
): Promise<number> {
  await db.run(`
    CREATE TABLE titles AS
    SELECT t.title::VARCHAR AS title, t.vec, t.job_function AS JOB_FUNCTION_PER, t.job_level AS JOB_LEVEL_PER
    FROM t_title t
    WHERE t.title_idx IN (SELECT DISTINCT title_idx FROM t_ready)
    ORDER BY t.title`);
  const reader = await db.runAndReadAll("SELECT count(*)::INTEGER FROM titles");
  const titles = Number(reader.getRows()[0]?.[0] ?? 0);
  const meta: [string, string][] = [
    ["rows", String(spec.rows)],
    ["seed", String(spec.seed)],
    ["version", String(DATASET_VERSION)],
    ["dims", String(VECTOR_DIMS)],
    ["companies", String(companies)],
    ["titles", String(titles)],
  ];
  await db.run("CREATE TABLE meta (key VARCHAR, value VARCHAR)");
  await db.run(
    `INSERT INTO meta VALUES ${meta.map(([k, v]) => `(${sqlString(k)}, ${sqlString(v)})`).join(", ")}`,
  );
  return titles;
}
