/**
 * The filter tree as a client sends it (every defaulted field may be left out), the fields each kind
 * of node knows, and realistic values: titles, company texts, domains, column names, values per type.
 */
import fc from "fast-check";
import { COLUMNS } from "../../../src/contract/columns";
import {
  type ConditionInput,
  type FilterNodeInput,
  type GroupInput,
  type LookalikeInput,
  NODE_FIELDS,
  type SemanticInput,
} from "../../../src/contract/filter";
import { MATCH_LEVELS } from "../../../src/contract/inferred";

// ---------------------------------------------------------------------------------------------
// Input shapes (what a client sends: every defaulted field may be left out)
// ---------------------------------------------------------------------------------------------

export type Join = "AND" | "OR";
export type ScalarInput = string | number | boolean | null;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type { ConditionInput, GroupInput, LookalikeInput, SemanticInput };
export type NodeInput = FilterNodeInput;

/** Fields each node type knows (the contract's schemas); anything else is an unknown field. */
export const KNOWN_NODE_KEYS = NODE_FIELDS;

// ---------------------------------------------------------------------------------------------
// Realistic values
// ---------------------------------------------------------------------------------------------

export const TITLES = [
  "CMO",
  "Chief Marketing Officer",
  "Marketing Manager",
  "Sales Director",
  "Software Engineer",
  "Chief Executive Officer",
  "VP of Sales",
  "Head of Growth",
  "Data Scientist",
  "HR Business Partner",
] as const;
export const COMPANY_TEXTS = [
  "cloud security software",
  "B2B payments platform",
  "renewable energy developer",
  "industrial IoT sensors",
  "healthcare staffing agency",
  "craft brewery",
] as const;
export const TEXT_VALUES = [
  "United States",
  "Germany",
  "France",
  "Director",
  "VP",
  "Manager",
  "C-Level",
  "Marketing",
  "Engineering",
  "Software Development",
  "Acme",
  "San Francisco",
  "11-50",
  "$1M-$10M",
  "Zürich",
  "東京",
] as const;
export const DOMAINS = ["acme.com", "example.org", "globex.io", "initech.co.uk", "umbrella-corp.de"] as const;

export const MASKED = COLUMNS.filter((c) => c.maskedAs);
export const UNMASKED_COLUMN_NAMES: readonly string[] = COLUMNS.filter((c) => !c.maskedAs).map((c) => c.name);
export const INTEGER_COLUMNS = COLUMNS.filter((c) => c.type === "integer" && !c.maskedAs);
export const TEXT_COLUMNS = COLUMNS.filter((c) => c.type === "text" && !c.maskedAs);
export const UNKNOWN_COLUMNS = [
  "NOPE",
  "",
  "country_name_per",
  "COUNTRY",
  "hasEmail",
  "score",
  "*",
  "__proto__",
  "constructor",
  "toString",
] as const;

export const join = fc.constantFrom<Join>("AND", "OR");
export const optionalJoin = fc.option(join, { nil: null });
export const nodeId = fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })), { nil: null });

export const intValueArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 100_000 }), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER), weight: 1 },
);
export const textValueArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TEXT_VALUES), weight: 4 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }), weight: 1 },
);
/** Non-blank text (what semantic nodes, lookalike names and required strings need). */
export const nonBlankTextArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TITLES, ...COMPANY_TEXTS), weight: 4 },
  { arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ""), weight: 1 },
  {
    arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ""),
    weight: 1,
  },
);
/** Any scalar the documentation allows in `value` / `value2` (used where the operator ignores it). */
export const anyScalar: fc.Arbitrary<ScalarInput> = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
export const maxDistanceArb = fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null });
export const matchArb = fc.option(fc.constantFrom(...MATCH_LEVELS), { nil: null });

export function digitStringArb(): fc.Arbitrary<string> {
  return fc.oneof(fc.integer().map(String), fc.integer({ min: 0, max: 3000 }).map(String));
}
