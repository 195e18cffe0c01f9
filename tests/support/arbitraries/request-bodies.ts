/**
 * Every request body of `src/contract`: `bodyArbs[key].valid` bodies of `requests[key]` and
 * `.broken` ones (always refused by both copies of the schema).
 */
import fc from "fast-check";
import { COLUMN_NAMES, COMPANY_COLUMNS } from "../../../src/contract/columns";
import {
  COUNT_MODES,
  ENRICH_MAX_ENTRIES,
  INSIGHTS_MAX_FIELDS,
  REVEALS,
  VERIFY_BATCH_MAX,
} from "../../../src/contract/inferred";
import type { Requests } from "../../../src/contract/operations";
import { anyJsonArb, invalidFilterArb, unknownFieldName } from "./broken-filter";
import {
  COMPANY_TEXTS,
  DOMAINS,
  INTEGER_COLUMNS,
  MASKED,
  TEXT_COLUMNS,
  UNMASKED_COLUMN_NAMES,
} from "./node-inputs";
import { cloneJson, setOwn } from "./tree-edits";
import { validFilterArb } from "./valid-filter";

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

export const BODY_KEYS = [
  "count",
  "view",
  "preview",
  "estimate",
  "exportStart",
  "enrich",
  "insights",
  "companyCount",
  "lookalike",
  "verifyV1",
  "verifyV2",
  "batchV1",
  "processIdV1Body",
  "organizationResolve",
  "organizationDiscover",
] as const satisfies readonly (keyof Requests)[];
export type BodyKey = (typeof BODY_KEYS)[number];

/** Body keys whose schema carries an optional `filter`. */
export const FILTER_BODY_KEYS: readonly BodyKey[] = [
  "count",
  "view",
  "preview",
  "estimate",
  "exportStart",
  "insights",
  "companyCount",
];

type Body = Record<string, unknown>;

const filterField = fc.oneof(
  { arbitrary: validFilterArb() as fc.Arbitrary<unknown>, weight: 4 },
  { arbitrary: fc.constant(null), weight: 1 },
);
const limitArb = fc.option(
  fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, 1, 100, 101, Number.MAX_SAFE_INTEGER)),
  { nil: null },
);
const viewColumns = fc.option(
  fc.shuffledSubarray([...COLUMN_NAMES, "hasEmail", "hasMobile"], { maxLength: 12 }),
  {
    nil: null,
  },
);
const rowColumns = fc.option(fc.shuffledSubarray([...COLUMN_NAMES], { maxLength: 12 }), { nil: null });
const companyColumns = fc.option(
  fc.oneof(fc.constant(["*"]), fc.shuffledSubarray([...COMPANY_COLUMNS], { maxLength: 8 })),
  { nil: null },
);
const revealArb = fc.constantFrom(...REVEALS);
const maxRowsArb = fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constant(Number.MAX_SAFE_INTEGER));
const hqField = fc.option(fc.oneof(fc.constantFrom("California", "US", "Berlin", "10115"), fc.string()), {
  nil: null,
});
const emailArb = fc.emailAddress().filter((e) => e.length <= 320 && /^[^@\s]+@[^@\s]+$/.test(e));
const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T, requiredKeys: (keyof T & string)[]) =>
  fc.record(model, { requiredKeys, noNullPrototype: true }) as fc.Arbitrary<Body>;

const validBodies: Record<BodyKey, fc.Arbitrary<Body>> = {
  count: rec({ filter: filterField, mode: fc.constantFrom(...COUNT_MODES) }, []),
  view: rec({ filter: filterField, columns: viewColumns, limit: limitArb, includeScores: fc.boolean() }, []),
  preview: rec({ filter: filterField, columns: rowColumns, limit: limitArb, reveal: revealArb }, ["reveal"]),
  estimate: rec({ filter: filterField, maxRows: maxRowsArb, reveal: revealArb, columns: rowColumns }, [
    "maxRows",
    "reveal",
  ]),
  exportStart: rec(
    {
      filter: filterField,
      maxRows: maxRowsArb,
      reveal: revealArb,
      columns: rowColumns,
      name: fc.option(fc.string({ maxLength: 200 }), { nil: null }),
    },
    ["maxRows", "reveal"],
  ),
  enrich: fc
    .record(
      {
        personIds: fc.option(fc.array(fc.string({ maxLength: 12 }), { maxLength: 20 }), { nil: null }),
        emails: fc.option(fc.array(emailArb, { maxLength: 20 }), { nil: null }),
        reveal: revealArb,
        columns: rowColumns,
      },
      { requiredKeys: ["reveal"], noNullPrototype: true },
    )
    .filter((b) => (b.personIds?.length ?? 0) + (b.emails?.length ?? 0) > 0) as fc.Arbitrary<Body>,
  insights: fc.oneof(
    rec(
      {
        section: fc.constant("summary"),
        filter: filterField,
        fields: fc.option(fc.array(fc.string(), { maxLength: INSIGHTS_MAX_FIELDS }), { nil: null }),
        groupField: fc.option(fc.string(), { nil: null }),
      },
      ["section"],
    ),
    rec(
      {
        section: fc.constant("breakdown"),
        filter: filterField,
        groupField: fc.constantFrom(...UNMASKED_COLUMN_NAMES),
      },
      ["section", "groupField"],
    ),
    rec(
      {
        section: fc.constant("fields"),
        filter: filterField,
        fields: fc.shuffledSubarray([...UNMASKED_COLUMN_NAMES], {
          minLength: 1,
          maxLength: INSIGHTS_MAX_FIELDS,
        }),
      },
      ["section", "fields"],
    ),
  ),
  companyCount: rec({ filter: filterField, mode: fc.option(fc.string(), { nil: null }) }, []),
  lookalike: fc.oneof(
    rec(
      {
        domain: fc.constantFrom(...DOMAINS),
        rbidOrg: fc.constantFrom<string | null>("", "  ", null),
        limit: limitArb,
        columns: companyColumns,
      },
      ["domain"],
    ),
    rec(
      {
        rbidOrg: fc.integer({ min: 1, max: 999_999 }).map((n) => `ORG${n}`),
        domain: fc.constantFrom<string | null>("", null),
        limit: limitArb,
        columns: companyColumns,
      },
      ["rbidOrg"],
    ),
  ),
  verifyV1: rec({ email: fc.oneof(emailArb, fc.string({ minLength: 1, maxLength: 40 })) }, ["email"]),
  verifyV2: rec({ email: emailArb }, ["email"]),
  batchV1: rec({ emails: fc.array(fc.oneof(emailArb, fc.string()), { minLength: 1, maxLength: 20 }) }, [
    "emails",
  ]),
  processIdV1Body: rec({ process_id: fc.oneof(fc.nat().map(String), fc.string()) }, ["process_id"]),
  organizationResolve: rec(
    {
      company_name: fc.oneof(fc.constantFrom("Acme", "Globex Corporation"), fc.string({ minLength: 1 })),
      result_count: fc.integer({ min: 1, max: 10 }),
      headquarters_state: hqField,
      headquarters_country: hqField,
      headquarters_city: hqField,
      headquarters_street: hqField,
      headquarters_zip: hqField,
    },
    ["company_name"],
  ),
  organizationDiscover: rec(
    {
      keyword: fc.oneof(fc.constantFrom(...COMPANY_TEXTS), fc.string({ minLength: 1 })),
      result_count: fc.integer({ min: 1, max: 1000 }),
      min_similarity_score: fc.double({ min: 0, max: 0.95, noNaN: true }),
      headquarters_state: hqField,
      headquarters_country: hqField,
      headquarters_city: hqField,
      headquarters_street: hqField,
    },
    ["keyword"],
  ),
};

type Mutation = (body: Body) => fc.Arbitrary<unknown>;

const set =
  (field: string, bad: readonly unknown[] | fc.Arbitrary<unknown>): Mutation =>
  (body) =>
    (Array.isArray(bad) ? fc.constantFrom(...bad) : (bad as fc.Arbitrary<unknown>)).map((value) => {
      const copy = cloneJson(body);
      setOwn(copy, field, value);
      return copy;
    });
const drop =
  (field: string): Mutation =>
  (body) =>
    fc.constant(Object.fromEntries(Object.entries(body).filter(([k]) => k !== field)));
const merge =
  (fields: readonly Body[]): Mutation =>
  (body) =>
    fc.constantFrom(...fields).map((extra) => ({ ...cloneJson(body), ...extra }));

const TOO_MANY_IDS = Array.from({ length: ENRICH_MAX_ENTRIES + 1 }, (_, i) => `PAO${i}`);
const TOO_MANY_EMAILS = Array.from({ length: VERIFY_BATCH_MAX + 1 }, (_, i) => `u${i}@example.com`);
const badFilter = set("filter", invalidFilterArb({ maxDepth: 2 }));
const badLimit = set("limit", [2.5, "5", true, [], {}, -0.5]);
const badReveal = set("reveal", ["all", "EMAIL", "", 1, null, true]);
const badMaxRows = set("maxRows", [0, -1, 2.5, "5", null, true]);
const badRowColumns = set("columns", [
  ["NOPE"],
  ["hasEmail"],
  "RBID_PAO",
  [5],
  [null],
  ["RBID_PAO", "constructor_"],
]);
const badStr = [5, true, null, [], {}];

const brokenMutations: Record<BodyKey, Mutation[]> = {
  count: [badFilter, set("mode", ["slow", "EXACT", 1, null])],
  view: [
    badFilter,
    badLimit,
    set("includeScores", ["true", 1, null]),
    set("columns", [["NOPE"], "RBID_PAO", [5], ["rbid_pao"], [""]]),
  ],
  preview: [badFilter, badLimit, badReveal, drop("reveal"), badRowColumns],
  estimate: [badFilter, badMaxRows, drop("maxRows"), badReveal, drop("reveal"), badRowColumns],
  exportStart: [
    badFilter,
    badMaxRows,
    drop("maxRows"),
    badReveal,
    drop("reveal"),
    badRowColumns,
    set("name", ["n".repeat(201), 5, true]),
  ],
  enrich: [
    badReveal,
    drop("reveal"),
    badRowColumns,
    merge([
      { personIds: [], emails: [] },
      { personIds: null, emails: null },
      { personIds: [], emails: null },
    ]),
    merge([
      { personIds: TOO_MANY_IDS },
      { personIds: TOO_MANY_IDS.slice(0, 600), emails: TOO_MANY_EMAILS.slice(0, 401) },
    ]),
    set("personIds", ["PAO1", 5, [5], {}]),
    set("emails", ["a@b.c", [null], true]),
  ],
  insights: [
    badFilter,
    set("section", ["SUMMARY", "top", 1, null]),
    drop("section"),
    merge([
      { section: "breakdown", groupField: null },
      { section: "breakdown", groupField: "" },
      { section: "breakdown", groupField: "EMAIL_ADDRESS_PER" },
      { section: "breakdown", groupField: "CELLPHONE_PER" },
      { section: "breakdown", groupField: "NOPE" },
      { section: "breakdown", groupField: 5 },
      { section: "fields", fields: [] },
      { section: "fields", fields: null },
      { section: "fields", fields: ["EMAIL_ADDRESS_PER"] },
      { section: "fields", fields: ["CITY_PER", "NOPE"] },
      { section: "fields", fields: UNMASKED_COLUMN_NAMES.slice(0, INSIGHTS_MAX_FIELDS + 1) },
      { section: "fields", fields: "CITY_PER" },
    ]),
  ],
  companyCount: [badFilter, set("mode", [5, true, [], {}])],
  lookalike: [
    merge([
      { domain: "acme.com", rbidOrg: "ORG1" },
      { domain: null, rbidOrg: null },
      { domain: "", rbidOrg: "" },
      { domain: " ", rbidOrg: "\t" },
    ]),
    badLimit,
    set("columns", [["FULL_NAME_PER"], ["EMAIL_ADDRESS_PER"], ["NOPE"], "*", [5], ["hasEmail"]]),
    set("domain", [5, true, ["acme.com"]]),
  ],
  verifyV1: [set("email", ["", "x".repeat(321), ...badStr]), drop("email")],
  verifyV2: [set("email", ["", "no-at-sign", "a@b@c", "a b@c.d", "@", "x@", ...badStr]), drop("email")],
  batchV1: [set("emails", [[], "a@b.c", [5], [null], TOO_MANY_EMAILS, null]), drop("emails")],
  processIdV1Body: [set("process_id", [5, null, true, [], {}]), drop("process_id")],
  organizationResolve: [
    set("company_name", ["", ...badStr]),
    drop("company_name"),
    set("result_count", [0, 11, 2.5, "3", null]),
    set("headquarters_country", [5, true, []]),
  ],
  organizationDiscover: [
    set("keyword", ["", ...badStr]),
    drop("keyword"),
    set("result_count", [0, 1001, 2.5, "10", null]),
    set("min_similarity_score", [-0.01, 0.96, "0.5", null]),
    set("headquarters_city", [5, false]),
  ],
};

/** Something that is not a JSON object at all. */
const notAnObject = fc.constantFrom<unknown>(null, [], "body", 5, true, [{}]);

function brokenBodyArb(key: BodyKey): fc.Arbitrary<unknown> {
  const valid = validBodies[key];
  const mutated = fc.oneof(...brokenMutations[key].map((mutate) => valid.chain(mutate)));
  return fc.oneof(
    { arbitrary: mutated, weight: 8 },
    {
      // Still broken with an unknown field on top (the lenient copy ignores that field only).
      arbitrary: fc.tuple(mutated, unknownFieldName, anyJsonArb).map(([body, key2, value]) => {
        if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
        const copy = cloneJson(body as Body);
        if (!Object.hasOwn(copy, key2) && !(key2 in validShapeKeys(key))) setOwn(copy, key2, value);
        return copy;
      }),
      weight: 1,
    },
    { arbitrary: notAnObject, weight: 1 },
  );
}

function validShapeKeys(key: BodyKey): Record<string, true> {
  const keys: Record<BodyKey, string[]> = {
    count: ["filter", "mode"],
    view: ["filter", "columns", "limit", "includeScores"],
    preview: ["filter", "columns", "limit", "reveal"],
    estimate: ["filter", "maxRows", "reveal", "columns"],
    exportStart: ["filter", "maxRows", "reveal", "columns", "name"],
    enrich: ["personIds", "emails", "reveal", "columns"],
    insights: ["section", "filter", "fields", "groupField"],
    companyCount: ["filter", "mode"],
    lookalike: ["domain", "rbidOrg", "limit", "columns"],
    verifyV1: ["email"],
    verifyV2: ["email"],
    batchV1: ["emails"],
    processIdV1Body: ["process_id"],
    organizationResolve: [
      "company_name",
      "result_count",
      "headquarters_state",
      "headquarters_country",
      "headquarters_city",
      "headquarters_street",
      "headquarters_zip",
    ],
    organizationDiscover: [
      "keyword",
      "result_count",
      "min_similarity_score",
      "headquarters_state",
      "headquarters_country",
      "headquarters_city",
      "headquarters_street",
    ],
  };
  const out: Record<string, true> = Object.create(null);
  for (const name of keys[key]) out[name] = true;
  return out;
}

/**
 * For every request body schema of `requests`: `valid` bodies (accepted by both copies of the
 * schema) and `broken` ones (refused by both: a valid body with one field made invalid or removed,
 * sometimes with an unknown field on top, or no object at all).
 */
export const bodyArbs: Record<BodyKey, { valid: fc.Arbitrary<unknown>; broken: fc.Arbitrary<unknown> }> =
  Object.fromEntries(
    BODY_KEYS.map((key) => [key, { valid: validBodies[key], broken: brokenBodyArb(key) }]),
  ) as Record<BodyKey, { valid: fc.Arbitrary<unknown>; broken: fc.Arbitrary<unknown> }>;

/** Known fields of each body schema (for tests that add unknown ones). */
export function bodyFields(key: BodyKey): string[] {
  return Object.keys(validShapeKeys(key));
}

// Columns split by type, for tests that need one of each.
export const CATALOGUE = { MASKED, INTEGER_COLUMNS, TEXT_COLUMNS } as const;
