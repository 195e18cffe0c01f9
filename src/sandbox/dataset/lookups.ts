/**
 * Everything the contact pipeline looks up, as TEMP tables: companies (as planned), geography,
 * names, the job taxonomy, and the ENUM types of the file. Weighted choices become "slot
 * tables" so that SQL draws them with one equi-join on `hash(...) % size`.
 */
import {
  ARRAY,
  arrayValue,
  BIGINT,
  type DuckDBConnection,
  DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
  FLOAT,
  INTEGER,
  VARCHAR,
} from "@duckdb/node-api";
import { ALL_CITIES, CITIES_BY_COUNTRY, type CompanyPlan, type CompanyText, slug } from "./companies";
import { embedTitle, VECTOR_DIMS } from "./embed";
import { apportion } from "./random";
import {
  allTitles,
  FAMILIES,
  FUNCTION_NAMES,
  functionWeightsFor,
  levelWeights,
  SIZE_CLASSES,
} from "./taxonomy";
import { EMPLOYEE_RANGES, REVENUE_RANGES } from "./vocab/firmographics";
import { CONTINENTS, COUNTRIES, type NameRegion } from "./vocab/geo";
import { INDUSTRIES } from "./vocab/industries";
import { JOB_LEVELS } from "./vocab/job-titles";
import { PERSON_NAMES } from "./vocab/person-names";

/** Resolution of the weighted-choice slot tables. */
export const SLOTS = {
  country: 1000,
  city: 256,
  nameRegion: 100,
  name: 1024,
  mobilePrefix: 64,
  level: 1000,
  function: 1000,
  title: 4096,
} as const;

export const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const unique = (values: readonly string[]) => [...new Set(values)];

/** ENUM types of the low-cardinality text columns, named after what they hold. */
export async function createEnumTypes(db: DuckDBConnection): Promise<void> {
  const enums: Record<string, string[]> = {
    job_title_t: allTitles().map((t) => t.title),
    job_level_t: [...JOB_LEVELS],
    job_function_t: [...FUNCTION_NAMES],
    city_t: unique(ALL_CITIES.map((c) => c.name)),
    state_t: unique(ALL_CITIES.flatMap((c) => (c.state ? [c.state] : []))),
    country_t: COUNTRIES.map((c) => c.name),
    continent_t: [...CONTINENTS],
    industry_t: INDUSTRIES.map((i) => i.name),
    employee_range_t: EMPLOYEE_RANGES.map((r) => r.label),
    revenue_range_t: REVENUE_RANGES.map((r) => r.label),
  };
  for (const [name, values] of Object.entries(enums)) {
    await db.run(`CREATE TYPE ${name} AS ENUM (${unique(values).map(sqlString).join(", ")})`);
  }
}

/** A column to append: ENUM columns are appended as VARCHAR and cast in SQL afterwards. */
interface Column {
  name: string;
  type: DuckDBType;
  values: readonly DuckDBValue[];
}

/**
 * Creates a TEMP table (or a table in another catalog, e.g. `scratch`) and fills it through the
 * appender, 2,048 rows per chunk.
 */
async function appendTable(
  db: DuckDBConnection,
  table: string,
  columns: readonly Column[],
  catalog = "temp",
): Promise<void> {
  const definition = columns.map((c) => `${c.name} ${c.type.toString()}`).join(", ");
  await db.run(
    catalog === "temp"
      ? `CREATE TEMP TABLE ${table} (${definition})`
      : `CREATE TABLE ${catalog}.main.${table} (${definition})`,
  );
  const rowCount = columns[0]?.values.length ?? 0;
  const appender = await db.createAppender(table, "main", catalog);
  const types = columns.map((c) => c.type);
  for (let start = 0; start < rowCount; start += 2048) {
    const end = Math.min(rowCount, start + 2048);
    const chunk = DuckDBDataChunk.create(types, end - start);
    chunk.setColumns(columns.map((c) => c.values.slice(start, end)));
    appender.appendDataChunk(chunk);
  }
  appender.closeSync();
}

/**
 * A weighted choice as a table: each item gets slots in proportion to its weight (at least one
 * when `everyItem`), so `JOIN ... ON slot = hash(...) % size` draws it with that probability.
 */
function slotRanges(
  weights: readonly number[],
  size: number,
  everyItem = false,
): [item: number, lo: number, hi: number][] {
  const present = weights.map((w) => (w > 0 ? 1 : 0));
  const minimum = everyItem ? present : weights.map(() => 0);
  const reserved = minimum.reduce((s: number, m) => s + m, 0);
  const parts = apportion(weights, size - reserved).map((p, i) => p + (minimum[i] ?? 0));
  const out: [number, number, number][] = [];
  let lo = 0;
  parts.forEach((count, item) => {
    if (count > 0) out.push([item, lo, lo + count]);
    lo += count;
  });
  return out;
}

/** Expands (keys..., item, lo, hi) rows into a TEMP slot table (keys..., item, slot). */
async function slotTable(
  db: DuckDBConnection,
  table: string,
  keyNames: readonly string[],
  itemName: string,
  rows: readonly { keys: number[]; ranges: [number, number, number][] }[],
): Promise<void> {
  const flat = rows.flatMap((r) => r.ranges.map(([item, lo, hi]) => [...r.keys, item, lo, hi]));
  const names = [...keyNames, itemName, "lo", "hi"];
  await appendTable(
    db,
    `${table}_ranges`,
    names.map((name, k) => ({ name, type: INTEGER, values: flat.map((row) => row[k] ?? 0) })),
  );
  await db.run(
    `CREATE TEMP TABLE ${table} AS SELECT ${[...keyNames, itemName].join(", ")}, unnest(range(lo, hi))::INTEGER AS slot FROM ${table}_ranges`,
  );
  await db.run(`DROP TABLE ${table}_ranges`);
}

/** Letters and digits only, for email local parts ("O'Brien" -> "obrien", "Müller" -> "muller"). */
function emailSlug(name: string): string {
  return slug(foldLetters(name));
}

/** Words joined by dashes, for profile URLs ("van den Berg" -> "van-den-berg"). */
function urlSlug(name: string): string {
  return foldLetters(name)
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** Letters that Unicode decomposition leaves alone. */
function foldLetters(name: string): string {
  const map: Record<string, string> = {
    ß: "ss",
    ø: "o",
    Ø: "O",
    æ: "ae",
    Æ: "AE",
    œ: "oe",
    ł: "l",
    Ł: "L",
    đ: "d",
    þ: "th",
  };
  return name.replace(/[ßøØæÆœłŁđþ]/g, (ch) => map[ch] ?? ch);
}

export async function loadLookups(db: DuckDBConnection, companies: readonly CompanyPlan[]): Promise<void> {
  // Companies, as far as the contact pipeline needs them.
  const sizeClassOf = (rangeIdx: number) => (rangeIdx <= 1 ? 0 : rangeIdx <= 4 ? 1 : 2);
  await appendTable(db, "t_company", [
    { name: "org_idx", type: INTEGER, values: companies.map((c) => c.orgIdx) },
    { name: "contact_start", type: BIGINT, values: companies.map((c) => BigInt(c.contactStart)) },
    { name: "contact_count", type: INTEGER, values: companies.map((c) => c.contactCount) },
    { name: "size_class", type: INTEGER, values: companies.map((c) => sizeClassOf(c.employeeRangeIdx)) },
    { name: "family_idx", type: INTEGER, values: companies.map((c) => c.familyIdx) },
    { name: "email_pattern", type: INTEGER, values: companies.map((c) => c.emailPatternIdx) },
    { name: "hq_country_idx", type: INTEGER, values: companies.map((c) => c.hqCountryIdx) },
    { name: "hq_city_id", type: INTEGER, values: companies.map((c) => c.hqCityId) },
    {
      name: "INDUSTRY_LINKEDIN_ORG",
      type: VARCHAR,
      values: companies.map((c) => INDUSTRIES[c.industryIdx]?.name ?? null),
    },
    {
      name: "EMPLOYEE_COUNT_RANGE_ORG",
      type: VARCHAR,
      values: companies.map((c) => EMPLOYEE_RANGES[c.employeeRangeIdx]?.label ?? null),
    },
    {
      name: "EMPLOYEE_COUNT_MIN",
      type: INTEGER,
      values: companies.map((c) => EMPLOYEE_RANGES[c.employeeRangeIdx]?.min ?? null),
    },
    {
      name: "EMPLOYEE_COUNT_MAX",
      type: INTEGER,
      values: companies.map((c) => EMPLOYEE_RANGES[c.employeeRangeIdx]?.max ?? null),
    },
    {
      name: "REVENUE_RANGE_ORG",
      type: VARCHAR,
      values: companies.map((c) =>
        c.revenueRangeIdx === null ? null : (REVENUE_RANGES[c.revenueRangeIdx]?.label ?? null),
      ),
    },
    {
      name: "REVENUE_MIN",
      type: BIGINT,
      values: companies.map((c) => revenueBound(c.revenueRangeIdx, "min")),
    },
    {
      name: "REVENUE_MAX",
      type: BIGINT,
      values: companies.map((c) => revenueBound(c.revenueRangeIdx, "max")),
    },
    { name: "FOUNDED_ORG", type: INTEGER, values: companies.map((c) => c.founded) },
    {
      name: "HEADQUARTERS_CITY_ORG",
      type: VARCHAR,
      values: companies.map((c) => ALL_CITIES[c.hqCityId]?.name ?? null),
    },
    {
      name: "HEADQUARTERS_COUNTRY_NAME_ORG",
      type: VARCHAR,
      values: companies.map((c) => COUNTRIES[c.hqCountryIdx]?.name ?? null),
    },
  ]);

  // Geography.
  await appendTable(db, "t_country_raw", [
    { name: "country_idx", type: INTEGER, values: COUNTRIES.map((_, i) => i) },
    { name: "country", type: VARCHAR, values: COUNTRIES.map((c) => c.name) },
    { name: "continent", type: VARCHAR, values: COUNTRIES.map((c) => c.continent) },
    { name: "calling_code", type: VARCHAR, values: COUNTRIES.map((c) => c.callingCode) },
    { name: "national_digits", type: INTEGER, values: COUNTRIES.map((c) => c.nationalDigits) },
  ]);
  // Every lookup is a fixed-size slot table, so that each join key depends on one side only
  // (a key like `hash % n_names_of_region` would make DuckDB fall back to a cross product).
  const prefixes = COUNTRIES.flatMap((c, countryIdx) =>
    c.mobilePrefixes.map((p, k) => ({ countryIdx, k, p })),
  );
  await appendTable(db, "t_prefix_list", [
    { name: "country_idx", type: INTEGER, values: prefixes.map((p) => p.countryIdx) },
    { name: "k", type: INTEGER, values: prefixes.map((p) => p.k) },
    { name: "prefix", type: VARCHAR, values: prefixes.map((p) => p.p) },
  ]);
  await slotTable(
    db,
    "t_prefix_slot",
    ["country_idx"],
    "k",
    COUNTRIES.map((c, countryIdx) => ({
      keys: [countryIdx],
      ranges: slotRanges(
        c.mobilePrefixes.map(() => 1),
        SLOTS.mobilePrefix,
      ),
    })),
  );
  await db.run(`
    CREATE TEMP TABLE t_prefix AS
    SELECT s.country_idx, s.slot, p.prefix FROM t_prefix_slot s JOIN t_prefix_list p USING (country_idx, k)`);
  await appendTable(db, "t_city_raw", [
    { name: "city_id", type: INTEGER, values: ALL_CITIES.map((_, i) => i) },
    { name: "city", type: VARCHAR, values: ALL_CITIES.map((c) => c.name) },
    { name: "state", type: VARCHAR, values: ALL_CITIES.map((c) => c.state) },
  ]);
  // Lookups hold ENUM values already, so the contacts query copies them without casting.
  await db.run(`
    CREATE TEMP TABLE t_country AS
    SELECT country_idx, country::country_t AS country, continent::continent_t AS continent, calling_code, national_digits
    FROM t_country_raw`);
  await db.run(`
    CREATE TEMP TABLE t_city AS SELECT city_id, city::city_t AS city, state::state_t AS state FROM t_city_raw`);
  await slotTable(db, "t_country_slot", [], "country_idx", [
    {
      keys: [],
      ranges: slotRanges(
        COUNTRIES.map((c) => c.weight),
        SLOTS.country,
      ),
    },
  ]);
  await slotTable(
    db,
    "t_city_slot",
    ["country_idx"],
    "city_id",
    CITIES_BY_COUNTRY.map((ids, countryIdx) => ({
      keys: [countryIdx],
      // Slot ranges index the country's own list; map them back to global city ids.
      ranges: slotRanges(
        ids.map((id) => ALL_CITIES[id]?.weight ?? 0),
        SLOTS.city,
      ).map(([k, lo, hi]) => [ids[k] ?? 0, lo, hi] as [number, number, number]),
    })),
  );

  // Names.
  const regions = Object.keys(PERSON_NAMES) as NameRegion[];
  await slotTable(
    db,
    "t_region_slot",
    ["country_idx"],
    "region_idx",
    COUNTRIES.map((c, countryIdx) => ({
      keys: [countryIdx],
      ranges: slotRanges(
        regions.map((r) => c.nameMix[r] ?? 0),
        SLOTS.nameRegion,
      ),
    })),
  );
  for (const part of ["first", "last"] as const) {
    const names = regions.flatMap((r, regionIdx) =>
      PERSON_NAMES[r][part].map((name, k) => ({ regionIdx, k, name })),
    );
    // Namesakes are detected on integer keys: one id per distinct email slug.
    const slugIds = new Map<string, number>();
    const slugIdOf = (name: string) => {
      const key = emailSlug(name);
      if (!slugIds.has(key)) slugIds.set(key, slugIds.size);
      return slugIds.get(key) ?? 0;
    };
    await appendTable(db, `t_${part}_name`, [
      { name: "name_id", type: INTEGER, values: names.map((_, id) => id) },
      { name: "region_idx", type: INTEGER, values: names.map((n) => n.regionIdx) },
      { name: "k", type: INTEGER, values: names.map((n) => n.k) },
      { name: "name", type: VARCHAR, values: names.map((n) => n.name) },
      { name: "email_slug", type: VARCHAR, values: names.map((n) => emailSlug(n.name)) },
      { name: "slug_id", type: INTEGER, values: names.map((n) => slugIdOf(n.name)) },
      { name: "initial", type: INTEGER, values: names.map((n) => emailSlug(n.name).charCodeAt(0) || 0) },
      { name: "url_slug", type: VARCHAR, values: names.map((n) => urlSlug(n.name)) },
    ]);
    await slotTable(
      db,
      `t_${part}_slot`,
      ["region_idx"],
      "k",
      regions.map((r, regionIdx) => ({
        keys: [regionIdx],
        // Lists start with the most common names; make those more frequent.
        ranges: slotRanges(
          PERSON_NAMES[r][part].map((_, rank) => 1 / Math.sqrt(rank + 4)),
          SLOTS.name,
          true,
        ),
      })),
    );
    await db.run(`
      CREATE TEMP TABLE t_${part} AS
      SELECT s.region_idx, s.slot, n.name_id, n.slug_id, n.initial
      FROM t_${part}_slot s JOIN t_${part}_name n USING (region_idx, k)`);
  }

  // Jobs: level by company size, function by industry family and level, title by both.
  await slotTable(
    db,
    "t_level_slot",
    ["size_class"],
    "level_idx",
    SIZE_CLASSES.map((size, sizeIdx) => ({
      keys: [sizeIdx],
      ranges: slotRanges(levelWeights(size), SLOTS.level),
    })),
  );
  await slotTable(
    db,
    "t_function_slot",
    ["family_idx", "level_idx"],
    "function_idx",
    FAMILIES.flatMap((family, familyIdx) =>
      JOB_LEVELS.map((level, levelIdx) => ({
        keys: [familyIdx, levelIdx],
        ranges: slotRanges(functionWeightsFor(family, level), SLOTS.function),
      })),
    ),
  );
  const titles = allTitles();
  const titleGroups = new Map<string, { functionIdx: number; levelIdx: number; ids: number[] }>();
  titles.forEach((t, id) => {
    const key = `${t.functionIdx}:${t.levelIdx}`;
    const group = titleGroups.get(key) ?? { functionIdx: t.functionIdx, levelIdx: t.levelIdx, ids: [] };
    group.ids.push(id);
    titleGroups.set(key, group);
  });
  await slotTable(
    db,
    "t_title_slot",
    ["function_idx", "level_idx"],
    "title_idx",
    [...titleGroups.values()].map((g) => ({
      keys: [g.functionIdx, g.levelIdx],
      ranges: slotRanges(
        g.ids.map((id) => titles[id]?.weight ?? 0),
        SLOTS.title,
        true,
      ).map(([k, lo, hi]) => [g.ids[k] ?? 0, lo, hi] as [number, number, number]),
    })),
  );
  await appendTable(db, "t_title_raw", [
    { name: "title_idx", type: INTEGER, values: titles.map((_, i) => i) },
    { name: "title", type: VARCHAR, values: titles.map((t) => t.title) },
    { name: "job_function", type: VARCHAR, values: titles.map((t) => FUNCTION_NAMES[t.functionIdx] ?? null) },
    { name: "job_level", type: VARCHAR, values: titles.map((t) => JOB_LEVELS[t.levelIdx] ?? null) },
    {
      name: "vec",
      type: ARRAY(FLOAT, VECTOR_DIMS),
      values: titles.map((t) => arrayValue(Array.from(embedTitle(t.title)))),
    },
  ]);
  await db.run(`
    CREATE TEMP TABLE t_title AS
    SELECT title_idx, title::job_title_t AS title, job_function::job_function_t AS job_function,
           job_level::job_level_t AS job_level, vec
    FROM t_title_raw`);
}

function revenueBound(rangeIdx: number | null, bound: "min" | "max"): bigint | null {
  if (rangeIdx === null) return null;
  const value = REVENUE_RANGES[rangeIdx]?.[bound];
  return value === null || value === undefined ? null : BigInt(value);
}

/** Names, domains, descriptions and vectors of the companies, same order as the plans. */
export async function loadCompanyTexts(db: DuckDBConnection, texts: readonly CompanyText[]): Promise<void> {
  await appendTable(
    db,
    "t_company_text",
    [
      { name: "org_idx", type: INTEGER, values: texts.map((_, i) => i) },
      { name: "COMPANY_NAME_ORG", type: VARCHAR, values: texts.map((t) => t.name) },
      { name: "DOMAIN_ORG", type: VARCHAR, values: texts.map((t) => t.domain) },
      { name: "ABOUT_US_ORG", type: VARCHAR, values: texts.map((t) => t.about) },
      {
        name: "vec",
        type: ARRAY(FLOAT, VECTOR_DIMS),
        values: texts.map((t) => arrayValue(Array.from(t.vec))),
      },
    ],
    "scratch",
  );
}
