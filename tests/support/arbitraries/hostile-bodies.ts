import fc from "fast-check";
import {
  ENRICH_MAX_ENTRIES,
  INSIGHTS_MAX_FIELDS,
  MAX_FILTER_DEPTH,
  VALUE_LIST_MAX,
  VERIFY_BATCH_MAX,
} from "../../../src/contract/inferred";
import { anyJsonArb, PROTOTYPE_KEYS } from "./broken-filter";
import { type Route, routeArb } from "./hostile-targets";
import { type Recipe, shown, utf8 } from "./raw-request";
import { bodyArbs } from "./request-bodies";
import { setOwn } from "./tree-edits";

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** Exports in valid bodies ask for few rows, so a run does not write big CSVs. */
function capRows(body: unknown): unknown {
  if (body && typeof body === "object" && "maxRows" in body && typeof body.maxRows === "number")
    return { ...body, maxRows: Math.min(body.maxRows, 50) };
  return body;
}

/** Puts `key: value` as an own property somewhere in `value` (any object, at any depth). */
function plant(value: unknown, key: string, planted: unknown, pick: number): unknown {
  const objects: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      objects.push(v as Record<string, unknown>);
      Object.values(v).forEach(walk);
    }
  };
  const copy = JSON.parse(JSON.stringify(value ?? {}) ?? "{}") as unknown;
  walk(copy);
  if (objects.length === 0) return copy;
  setOwn(objects[pick % objects.length]!, key, planted);
  return copy;
}

const HUGE_LENGTHS = [10_000, 300_000, 1_100_000] as const;

/** Raw JSON texts (not always JSON) that nest, repeat, overflow or bend the parser. */
function structuralTextArb(validBody: fc.Arbitrary<unknown>): fc.Arbitrary<Uint8Array> {
  const deepGroups = fc
    .oneof(fc.integer({ min: MAX_FILTER_DEPTH + 1, max: 200 }), fc.constantFrom(5_000, 30_000, 60_000))
    .map((d) => utf8(`{"filter":${'{"type":"group","children":['.repeat(d)}${"]}".repeat(d)}}`));
  const deepArrays = fc
    .integer({ min: 50, max: 200_000 })
    .map((n) => utf8(`{"filter":null,"mode":${"[".repeat(n)}${"]".repeat(n)}}`));
  const deepObjects = fc
    .integer({ min: 50, max: 100_000 })
    .map((n) => utf8(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`));
  const hugeString = fc
    .tuple(
      validBody,
      fc.constantFrom(...HUGE_LENGTHS),
      fc.nat(),
      fc.constantFrom("x", "é", "\u202e", "\\u0000"),
    )
    .map(([body, length, pick, unit]) => {
      const huge = unit.repeat(Math.ceil(length / unit.length));
      const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
      const key = keys.length > 0 ? keys[pick % keys.length]! : "mode";
      const text = JSON.stringify({ ...(body as object), [key]: "__HUGE__" });
      return utf8(text.replace('"__HUGE__"', `"${huge}"`));
    });
  const hugeArrays = fc.constantFrom(
    () => ({ emails: Array.from({ length: VERIFY_BATCH_MAX + 1 }, (_, i) => `u${i}@example.com`) }),
    () => ({
      reveal: "none",
      personIds: Array.from({ length: ENRICH_MAX_ENTRIES + 1 }, (_, i) => `PAO${i}`),
    }),
    () => ({
      filter: {
        type: "group",
        children: [
          {
            type: "condition",
            column: "CITY_PER",
            operator: "in",
            valueList: Array.from({ length: VALUE_LIST_MAX + 1 }, (_, i) => `c${i}`),
          },
        ],
      },
    }),
    () => ({ reveal: "none", maxRows: 1, columns: Array.from({ length: 60_000 }, () => "RBID_PAO") }),
    () => ({ section: "fields", fields: Array.from({ length: INSIGHTS_MAX_FIELDS + 50 }, () => "CITY_PER") }),
    () => ({
      filter: {
        type: "group",
        children: Array.from({ length: 12_000 }, () => ({
          type: "condition",
          column: "CITY_PER",
          operator: "isNull",
        })),
      },
    }),
    () => Array.from({ length: 200_000 }, () => 0),
  );
  const numberTricks = fc
    .tuple(
      validBody,
      fc.constantFrom(
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "1e-999",
        "-0",
        "0.1e1",
        "9007199254740993",
        '"NaN"',
        '"Infinity"',
        '"1e3"',
        '" 5"',
        "0x10",
        "+1",
        "01",
        ".5",
      ),
      fc.constantFrom("limit", "maxRows", "result_count", "min_similarity_score", "value", "mode"),
    )
    .map(([body, number, key]) => {
      const text = JSON.stringify({ ...((body as object) ?? {}), [key]: "__N__" });
      return utf8(text.replace('"__N__"', number));
    });
  const badBytes = fc
    .tuple(
      validBody,
      fc.constantFrom([0xff], [0xc0, 0xae], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x00], [0xfe, 0xff]),
    )
    .map(([body, bytes]) => {
      const text = utf8(JSON.stringify({ ...((body as object) ?? {}), name: "__B__" }));
      const at = Buffer.from(text).indexOf("__B__");
      return Uint8Array.from([...text.subarray(0, at), ...bytes, ...text.subarray(at + 5)]);
    });
  const unicode = fc
    .tuple(
      validBody,
      fc.constantFrom(
        "\u202eevil\u202c",
        "\\u0000",
        "\\ud800",
        "\\udfff\\ud800",
        "\uffff",
        "Ｇｅｒｍａｎｙ",
        "G\u0308ermany",
        "😀".repeat(50),
        "\u200b",
        "\\u2028\\u2029",
        "a\\r\\nX-Key: stolen",
      ),
      fc.nat(),
    )
    .map(([body, text, pick]) => {
      const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
      const key = keys.length > 0 ? keys[pick % keys.length]! : "email";
      const json = JSON.stringify({ ...((body as object) ?? {}), [key]: "__U__" });
      return utf8(json.replace('"__U__"', `"${text}"`));
    });
  const duplicateKeys = fc.tuple(validBody, anyJsonArb, fc.boolean()).map(([body, other, badLast]) => {
    const entries = body && typeof body === "object" && !Array.isArray(body) ? Object.entries(body) : [];
    if (entries.length === 0) return utf8(`{"filter":null,"filter":${JSON.stringify(other) ?? "1"}}`);
    const [key, good] = entries[0]!;
    const bad = JSON.stringify(other) ?? "1";
    const rest = entries
      .slice(1)
      .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
      .join("");
    const pair = badLast
      ? `${JSON.stringify(key)}:${JSON.stringify(good)},${JSON.stringify(key)}:${bad}`
      : `${JSON.stringify(key)}:${bad},${JSON.stringify(key)}:${JSON.stringify(good)}`;
    return utf8(`{${pair}${rest}}`);
  });
  const junk = fc
    .constantFrom(
      "",
      " ",
      "{",
      "{}}",
      "null",
      "[]",
      '{"a":1}{"b":2}',
      "\ufeff{}",
      '{"filter":null}\u0000',
      "/* c */{}",
      "{'filter':null}",
      '{"filter":null,}',
      "\u0000",
      "undefined",
      '"\\ud800"',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
    )
    .map(utf8);
  return fc.oneof(
    { arbitrary: deepGroups, weight: 2 },
    { arbitrary: deepArrays, weight: 1 },
    { arbitrary: deepObjects, weight: 1 },
    { arbitrary: hugeString, weight: 2 },
    { arbitrary: hugeArrays.map((make) => utf8(JSON.stringify(make()))), weight: 2 },
    { arbitrary: numberTricks, weight: 2 },
    { arbitrary: badBytes, weight: 2 },
    { arbitrary: unicode, weight: 2 },
    { arbitrary: duplicateKeys, weight: 2 },
    { arbitrary: junk, weight: 2 },
  );
}

/** JSON-ish bodies for one route: valid, broken, prototype-polluted, structural. */
export function bodyFor(route: Route): fc.Arbitrary<Uint8Array> {
  const arbs = route.op?.body ? bodyArbs[route.op.body as keyof typeof bodyArbs] : undefined;
  const valid: fc.Arbitrary<unknown> = arbs
    ? arbs.valid.map(capRows)
    : route.name === "sign-in"
      ? fc.record({ name: fc.constantFrom("alice", "bob", "nobody"), password: fc.string({ maxLength: 20 }) })
      : fc.constant(undefined);
  const broken: fc.Arbitrary<unknown> = arbs ? arbs.broken : anyJsonArb;
  const encode = (value: unknown) => utf8(value === undefined ? "" : (JSON.stringify(value) ?? ""));
  const polluted = fc
    .tuple(valid, fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }), fc.nat())
    .map(([body, key, value, pick]) => encode(plant(body, key, value, pick)));
  return fc.oneof(
    { arbitrary: valid.map(encode), weight: 3 },
    { arbitrary: broken.map(encode), weight: 3 },
    { arbitrary: polluted, weight: 2 },
    { arbitrary: fc.anything().map((v) => encode(safeJson(v))), weight: 1 },
    { arbitrary: structuralTextArb(valid), weight: 4 },
  );
}

/** `fc.anything()` may hold values JSON cannot carry (undefined, -0, sparse arrays): as JSON does. */
function safeJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? "null");
  } catch {
    return null;
  }
}

export const idempotencyKeyArb = fc
  .stringMatching(/^[A-Za-z0-9_-]{8,40}$/)
  .map((k) => `hk-${k}`.slice(0, 128));

/** The headers a well-behaved browser call sends (plus an Idempotency-Key where it spends). */
export function cleanHeaders(route: Route, key: string, json: boolean): [string, string][] {
  const headers: [string, string][] = [];
  if (route.target.startsWith("/api") || route.target.startsWith("/auth")) headers.push(["x-csrf", "1"]);
  if (json) headers.push(["Content-Type", "application/json"]);
  if (route.op?.spends) headers.push(["Idempotency-Key", key]);
  return headers;
}

/** Random and adversarial JSON bodies on a plain route with a clean browser boundary. */
export function bodyRecipeArb(
  options: { own?: boolean; only?: readonly string[] } = {},
): fc.Arbitrary<Recipe> {
  return routeArb(options).chain((route) =>
    fc
      .tuple(
        bodyFor(route),
        idempotencyKeyArb,
        fc.constantFrom(...(route.method === "GET" ? ["GET", "POST"] : ["POST"])),
      )
      .map(
        ([body, key, method]): Recipe =>
          shown({
            label: `${method} ${route.target} with a ${body.byteLength}-byte body`,
            method,
            target: route.target,
            headers: cleanHeaders(route, key, true),
            body,
            refused: false,
          }),
      ),
  );
}
