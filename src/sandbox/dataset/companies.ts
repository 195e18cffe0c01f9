/**
 * Companies, built in JS (60,000 at most, so this is cheap) together with their vectors.
 *
 * Companies come in clusters of 2-6 similar businesses (same industry, offering, customers and
 * promise, worded differently), which guarantees every company a neighbour within the "similar"
 * distance. Names and domains are unique, and a description never contains its company's name
 * or domain.
 */
import { cosineDistance, embedCompanyText } from "./embed";
import { apportion, Random } from "./random";
import { FAMILIES } from "./taxonomy";
import {
  BRAND_HEADS,
  BRAND_TAILS,
  COINED_ENDS,
  COINED_MIDDLES,
  COINED_STARTS,
  PARTNER_NAMES,
  PLACE_FIRSTS,
  PLACE_SECONDS,
} from "./vocab/company-names";
import {
  EMAIL_PATTERN_WEIGHTS,
  EMAIL_PATTERNS,
  EMPLOYEE_RANGES,
  REVENUE_BY_EMPLOYEE_RANGE,
} from "./vocab/firmographics";
import { COUNTRIES } from "./vocab/geo";
import { INDUSTRIES, type IndustryVocab } from "./vocab/industries";

/** Cities of all countries in one list; a company or person refers to a city by its index here. */
export const ALL_CITIES = COUNTRIES.flatMap((country, countryIdx) =>
  country.cities.map((city) => ({
    countryIdx,
    name: city.name,
    state: city.state ?? null,
    weight: city.weight,
  })),
);
/** Indexes into ALL_CITIES of each country's cities. */
export const CITIES_BY_COUNTRY: readonly number[][] = COUNTRIES.map((_, countryIdx) =>
  ALL_CITIES.flatMap((city, id) => (city.countryIdx === countryIdx ? [id] : [])),
);

/** What the contact pipeline needs to know about a company: cheap to draw, drawn first. */
export interface CompanyPlan {
  orgIdx: number;
  clusterIdx: number;
  industryIdx: number;
  familyIdx: number;
  employeeRangeIdx: number;
  revenueRangeIdx: number | null;
  founded: number | null;
  hqCountryIdx: number;
  hqCityId: number;
  emailPatternIdx: number;
  contactCount: number;
  /** Index of the company's first contact; its contacts are contactStart .. contactStart+contactCount-1. */
  contactStart: number;
}

/** The words of a company: description, its vector, name and domain (slower to build). */
export interface CompanyText {
  name: string;
  domain: string;
  about: string;
  vec: Float32Array;
}

export interface Company extends CompanyPlan, CompanyText {}

/** What the members of one cluster have in common. */
interface ClusterTheme {
  industryIdx: number;
  offering: string;
  customer: string;
  outcome: string;
  altOffering: string;
  altCustomer: string;
}

/** Description wording. Generic words here are stop-words for the company embedding. */
const OPENERS: readonly ((offering: string, customer: string) => string)[] = [
  (o, c) => `Provides ${o} for ${c}.`,
  (o, c) => `Offers ${o} to ${c}.`,
  (o, c) => `Specializes in ${o} for ${c}.`,
  (o, c) => `${capitalize(o)} for ${c}.`,
  (o, c) => `A provider of ${o} for ${c}.`,
  (o, c) => `Delivers ${o} to ${c}.`,
];
const CLOSERS: readonly ((outcome: string) => string)[] = [
  (u) => `Helps clients ${u}.`,
  (u) => `Customers use it to ${u}.`,
  (u) => `The team helps customers ${u}.`,
  (u) => `Built to help organizations ${u}.`,
  (u) => `Its clients rely on it to ${u}.`,
];
const EXTRAS: readonly ((altOffering: string, altCustomer: string) => string)[] = [
  (o) => `Also offers ${o}.`,
  (_, c) => `Also works with ${c}.`,
];

/** Cluster members must stay this close to at least one sibling (the service's "similar" is 0.25). */
const MAX_SIBLING_DISTANCE = 0.2;

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** ASCII letters and digits only: for domains. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]/g, "");
}

interface NameChoice {
  name: string;
  /** The distinctive part, used alone for some domains ("northwind.io"). */
  brand: string;
}

function makeName(rng: Random, industry: IndustryVocab): NameChoice {
  const suffix = rng.pick(industry.nameSuffixes);
  const withSuffix = (base: string) => `${base} ${suffix}`;
  const compound = () => capitalize(`${rng.pick(BRAND_HEADS)}${rng.pick(BRAND_TAILS)}`.toLowerCase());
  const coined = () => {
    const middle = rng.chance(0.5) ? rng.pick(COINED_MIDDLES) : "";
    return capitalize(`${rng.pick(COINED_STARTS)}${middle}${rng.pick(COINED_ENDS)}`.toLowerCase());
  };
  switch (rng.weighted([40, 20, 8, 7, 15, 10])) {
    case 0: {
      const brand = compound();
      return { name: withSuffix(brand), brand };
    }
    case 1: {
      const brand = coined();
      return { name: withSuffix(brand), brand };
    }
    case 2: {
      const brand = coined();
      return { name: brand, brand };
    }
    case 3: {
      const brand = compound();
      return { name: brand, brand };
    }
    case 4: {
      const brand = `${rng.pick(PLACE_FIRSTS)} ${rng.pick(PLACE_SECONDS)}`;
      return { name: withSuffix(brand), brand };
    }
    default: {
      const a = rng.pick(PARTNER_NAMES);
      let b = rng.pick(PARTNER_NAMES);
      if (b === a) b = rng.pick(PARTNER_NAMES);
      const brand = `${a} & ${b}`;
      return { name: suffix.startsWith("&") ? brand : `${brand} ${suffix}`, brand };
    }
  }
}

/** Startup domains (.io, .ai) only for tech companies; everyone else falls back to .com. */
const TECH_ONLY_TLDS = new Set([".io", ".ai"]);

/** Universities use their country's academic domain where it has one. */
const ACADEMIC_TLDS: Readonly<Record<string, string>> = {
  "United States": ".edu",
  "United Kingdom": ".ac.uk",
  Australia: ".edu.au",
  India: ".ac.in",
  Brazil: ".edu.br",
  Japan: ".ac.jp",
  China: ".edu.cn",
  "New Zealand": ".ac.nz",
  "South Africa": ".ac.za",
  Israel: ".ac.il",
  Mexico: ".edu.mx",
  Argentina: ".edu.ar",
  Colombia: ".edu.co",
  Philippines: ".edu.ph",
  Singapore: ".edu.sg",
  "South Korea": ".ac.kr",
};

function pickTld(rng: Random, countryIdx: number, industry: IndustryVocab): string {
  const country = COUNTRIES[countryIdx];
  const tlds = country?.tlds ?? [[".com", 1]];
  const drawn = tlds[rng.weighted(tlds.map(([, w]) => w))]?.[0] ?? ".com";
  const tld = TECH_ONLY_TLDS.has(drawn) && industry.family !== "tech" ? ".com" : drawn;
  return industry.name === "Higher Education" ? (ACADEMIC_TLDS[country?.name ?? ""] ?? tld) : tld;
}

function employeeRangeWeights(industry: IndustryVocab): number[] {
  return EMPLOYEE_RANGES.map((r, k) => r.weight * Math.exp(industry.sizeBias * (k - 2.5) * 0.35));
}

function foundedYear(rng: Random, employeeRangeIdx: number): number | null {
  if (rng.chance(0.05)) return null;
  // Small companies are young, large ones old: exponential ages with a size-dependent mean.
  const [minAge, meanAge, maxAge] =
    employeeRangeIdx <= 1 ? [0, 9, 60] : employeeRangeIdx <= 4 ? [3, 20, 120] : [8, 40, 170];
  const age = Math.min(maxAge, minAge + Math.floor(-Math.log(1 - rng.next()) * meanAge));
  return 2024 - age;
}

function describe(rng: Random, theme: ClusterTheme, withExtra: boolean): string {
  const parts = [rng.pick(OPENERS)(theme.offering, theme.customer), rng.pick(CLOSERS)(theme.outcome)];
  if (withExtra) parts.push(rng.pick(EXTRAS)(theme.altOffering, theme.altCustomer));
  return parts.join(" ");
}

function otherThan<T>(rng: Random, items: readonly T[], not: T): T {
  if (items.length < 2) return not;
  for (;;) {
    const item = rng.pick(items);
    if (item !== not) return item;
  }
}

export function companyVectorText(about: string, industry: string): string {
  return `${about} ${industry}`;
}

/** Everything about the companies, in one call (tests and tools; the generator uses the two halves). */
export function buildCompanies(rows: number, seed: number, companyCount: number): Company[] {
  const plans = planCompanies(rows, seed, companyCount);
  const texts = describeCompanies(plans, seed);
  return plans.map((plan, i) => ({ ...plan, ...(texts[i] as CompanyText) }));
}

/**
 * Clusters of 2-6 companies sharing an industry; each company's size, revenue, age, location,
 * email pattern and number of contacts (adding up to exactly `rows`).
 */
export function planCompanies(rows: number, seed: number, companyCount: number): CompanyPlan[] {
  const rng = new Random(seed, "company-plan");
  const industryWeights = INDUSTRIES.map((i) => i.weight);
  const countryWeights = COUNTRIES.map((c) => c.weight);
  const rangeWeights = INDUSTRIES.map(employeeRangeWeights);
  const cityWeights = CITIES_BY_COUNTRY.map((ids) => ids.map((id) => ALL_CITIES[id]?.weight ?? 0));
  const plans: CompanyPlan[] = [];

  for (let clusterIdx = 0; plans.length < companyCount; clusterIdx++) {
    const left = companyCount - plans.length;
    let size = [2, 3, 4, 5, 6][rng.weighted([30, 30, 20, 12, 8])] ?? 2;
    if (left - size === 1) size++; // never leave a lone company at the end
    size = Math.min(size, left);
    const industryIdx = rng.weighted(industryWeights);
    const industry = INDUSTRIES[industryIdx] as IndustryVocab;
    // Similar businesses are often, not always, in the same country.
    const clusterCountry = rng.weighted(countryWeights);

    for (let m = 0; m < size; m++) {
      const hqCountryIdx = rng.chance(0.4) ? clusterCountry : rng.weighted(countryWeights);
      const employeeRangeIdx = rng.weighted(rangeWeights[industryIdx] ?? []);
      const revenueRangeIdx = rng.chance(0.05)
        ? null
        : rng.weighted(REVENUE_BY_EMPLOYEE_RANGE[employeeRangeIdx] ?? [1]);
      let emailPatternIdx = rng.weighted(EMAIL_PATTERN_WEIGHTS);
      if (EMAIL_PATTERNS[emailPatternIdx] === "first" && employeeRangeIdx > 1) emailPatternIdx = 0;
      const cities = CITIES_BY_COUNTRY[hqCountryIdx] ?? [];
      plans.push({
        orgIdx: plans.length,
        clusterIdx,
        industryIdx,
        familyIdx: FAMILIES.indexOf(industry.family),
        employeeRangeIdx,
        revenueRangeIdx,
        founded: foundedYear(rng, employeeRangeIdx),
        hqCountryIdx,
        hqCityId: cities[rng.weighted(cityWeights[hqCountryIdx] ?? [])] ?? 0,
        emailPatternIdx,
        contactCount: 0,
        contactStart: 0,
      });
    }
  }
  allocateContacts(rng, plans, rows);
  return plans;
}

/**
 * Descriptions (worded differently within a cluster, yet close), their vectors, and unique
 * names and domains that no description contains. Same order as `plans`.
 */
export function describeCompanies(plans: readonly CompanyPlan[], seed: number): CompanyText[] {
  const rng = new Random(seed, "company-text");
  const names = new Set<string>();
  const domains = new Set<string>();
  const texts: CompanyText[] = [];

  const nameAndDomain = (industry: IndustryVocab, countryIdx: number, about: string) => {
    const text = about.toLowerCase();
    for (;;) {
      const { name, brand } = makeName(rng, industry);
      const key = name.toLowerCase();
      if (names.has(key) || text.includes(key)) continue;
      const tld = pickTld(rng, countryIdx, industry);
      const full = slug(name);
      const short = slug(brand);
      const candidates = rng.chance(0.6) ? [full, short] : [short, full];
      candidates.push(`${short}hq`, `get${short}`, `${short}group`);
      const label = candidates.find((c) => c.length > 2 && !domains.has(`${c}${tld}`) && !text.includes(c));
      if (!label) continue;
      names.add(key);
      domains.add(`${label}${tld}`);
      return { name, domain: `${label}${tld}` };
    }
  };

  let first = 0;
  while (first < plans.length) {
    const clusterIdx = plans[first]?.clusterIdx;
    let end = first;
    while (end < plans.length && plans[end]?.clusterIdx === clusterIdx) end++;
    const members = plans.slice(first, end);
    const industryIdx = members[0]?.industryIdx ?? 0;
    const industry = INDUSTRIES[industryIdx] as IndustryVocab;
    const offering = rng.pick(industry.offerings);
    const customer = rng.pick(industry.customers);
    const theme: ClusterTheme = {
      industryIdx,
      offering,
      customer,
      outcome: rng.pick(industry.outcomes),
      altOffering: otherThan(rng, industry.offerings, offering),
      altCustomer: otherThan(rng, industry.customers, customer),
    };
    // Descriptions first (and their closeness), then names that none of them contains.
    const abouts = members.map((_, m) => describe(rng, theme, m > 0 && rng.chance(0.35)));
    const vectors = ensureSiblings(
      abouts,
      abouts.map((about) => embedCompanyText(companyVectorText(about, industry.name))),
    );
    members.forEach((plan, m) => {
      const about = abouts[m] as string;
      texts.push({
        ...nameAndDomain(industry, plan.hqCountryIdx, about),
        about,
        vec: vectors[m] as Float32Array,
      });
    });
    first = end;
  }
  return texts;
}

/**
 * A member whose nearest sibling is farther than MAX_SIBLING_DISTANCE takes the first member's
 * wording (the first member never has an extra sentence), so that the two differ by stop-words
 * at most. Rewrites `abouts` in place and returns the vectors.
 */
function ensureSiblings(abouts: string[], vectors: Float32Array[]): Float32Array[] {
  for (let m = 0; m < abouts.length; m++) {
    const own = vectors[m] as Float32Array;
    let nearest = Number.POSITIVE_INFINITY;
    for (let o = 0; o < vectors.length; o++) {
      if (o !== m) nearest = Math.min(nearest, cosineDistance(own, vectors[o] as Float32Array));
    }
    if (nearest <= MAX_SIBLING_DISTANCE) continue;
    const anchor = m === 0 ? 1 : 0;
    abouts[m] = abouts[anchor] as string;
    vectors[m] = vectors[anchor] as Float32Array;
  }
  return vectors;
}

/** Contacts per company: bigger companies get more (with jitter); the total is exactly `rows`. */
function allocateContacts(rng: Random, plans: CompanyPlan[], rows: number): void {
  const weights = plans.map(
    (c) => (EMPLOYEE_RANGES[c.employeeRangeIdx]?.contactWeight ?? 1) * (0.5 + rng.next()),
  );
  // Every company gets at least one contact when there are enough rows to go round.
  const floor = rows >= plans.length ? 1 : 0;
  const extra = apportion(weights, rows - floor * plans.length);
  let start = 0;
  plans.forEach((c, i) => {
    c.contactCount = floor + (extra[i] ?? 0);
    c.contactStart = start;
    start += c.contactCount;
  });
}
