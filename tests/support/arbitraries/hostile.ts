/**
 * fast-check arbitraries of hostile HTTP/1.1 requests for the proxy, as raw bytes on a socket (so
 * that nothing on our side normalises them away): adversarial JSON bodies, header tricks, request
 * target tricks, odd methods and multipart oddities, aimed at every operation of the contract's table
 * and at the proxy's own routes. A request is a `Recipe`; `toBytes` turns it into what is written.
 *
 * Every recipe says whether the proxy must refuse it before anything leaves (`refused`): a broken
 * browser boundary (CSRF header, Host, Origin) or a request target that is not a plain address.
 * Which operation a request names (the only one it may reach) follows from its method and target.
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { ENUMERABLE_COMPANY_COLUMNS } from "../../../src/contract/columns";
import {
  ENRICH_MAX_ENTRIES,
  INSIGHTS_MAX_FIELDS,
  MAX_FILTER_DEPTH,
  VALUE_LIST_MAX,
  VERIFY_BATCH_MAX,
} from "../../../src/contract/inferred";
import { OPERATIONS, type OperationSpec } from "../../../src/contract/routes";
import { anyJsonArb, bodyArbs, PROTOTYPE_KEYS, setOwn } from "./filter";

export interface Recipe {
  /** What the request tries, for failure messages. */
  label: string;
  method: string;
  /** The request target exactly as written on the request line. */
  target: string;
  /**
   * Header lines in order; `{self}` in a value (or the target) is the proxy's own `host:port`, `{port}`
   * its port. A Host line is added unless one is given.
   */
  headers: [string, string][];
  body?: Uint8Array;
  /** The body bytes are written as given, framing included (no Content-Length is added). */
  rawFraming?: boolean;
  /** Close our sending side right after writing (a body cut off before its declared end). */
  halfClose?: boolean;
  /** The proxy must refuse this before anything leaves (no upstream call at all). */
  refused: boolean;
}

/** How fast-check prints a recipe in a counterexample: the label and a short look at the body. */
function shown<T extends Recipe>(recipe: T): T {
  Object.defineProperty(recipe, fc.toStringMethod, {
    enumerable: false,
    value: () => {
      const body = recipe.body ? Buffer.from(recipe.body.subarray(0, 160)).toString("latin1") : "";
      const more = recipe.body && recipe.body.byteLength > 160 ? `… (${recipe.body.byteLength} bytes)` : "";
      const headers = recipe.headers.map(([n, v]) => `${n}: ${v.length > 60 ? `${v.slice(0, 60)}…` : v}`);
      return `${recipe.label}\n  ${headers.join("\n  ")}\n  body ${JSON.stringify(body)}${more}`;
    },
  });
  return recipe;
}

const encoder = new TextEncoder();
export const utf8 = (text: string) => encoder.encode(text);
const latin1 = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0xff);

/** The bytes written on the socket (always `Connection: close`, so the answer ends with the connection). */
export function toBytes(recipe: Recipe, port: number): Uint8Array {
  const self = `127.0.0.1:${port}`;
  const fill = (text: string) => text.replaceAll("{self}", self).replaceAll("{port}", String(port));
  const headers = recipe.headers.map(([name, value]) => [name, fill(value)] as const);
  const lines = [`${recipe.method} ${fill(recipe.target)} HTTP/1.1`];
  if (!headers.some(([name]) => name.toLowerCase() === "host")) lines.push(`Host: ${self}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const body = recipe.body ?? new Uint8Array(0);
  const framed = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (!recipe.rawFraming && !framed && (body.byteLength > 0 || recipe.method === "POST"))
    lines.push(`Content-Length: ${body.byteLength}`);
  lines.push("Connection: close", "", "");
  // Header text may hold any byte (that is the point): written as latin1, one byte per char.
  const head = latin1(lines.join("\r\n"));
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head);
  out.set(body, head.byteLength);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Targets: every operation, and the proxy's own routes
// ---------------------------------------------------------------------------------------------

export interface Route {
  /** Operation id, or the own route's name. */
  name: string;
  method: string;
  /** A plain target the proxy serves (params filled with well-formed values). */
  target: string;
  op?: OperationSpec;
  /** The target with its (first) path parameter set to `value`, raw. */
  withParam?: (value: string) => string;
}

const GOOD_PARAMS: Record<string, readonly string[]> = {
  exportId: ["exp_1", "exp_nope", "0123456789"],
  process_id: ["12", "999999999999999"],
  column: ENUMERABLE_COMPANY_COLUMNS.slice(0, 3),
};

/** Values a path parameter must never smuggle anything with. */
export const HOSTILE_PARAMS = [
  "..",
  "%2e%2e",
  ".",
  "%2F",
  "exp_1%2Fdownload",
  "a".repeat(65),
  "%00",
  "__proto__",
  "constructor",
  "99999999999999999999",
  "-1",
  "1e3",
  "%D9%A3", // Arabic-Indic digit three
  "%EF%BC%91%EF%BC%92", // full-width 12
  "12%0A",
  "12%0D%0AX-Key:%20stolen",
  "%E2%80%AE",
  "exp%20x%3F",
  "*",
  "%25",
] as const;

const OWN_ROUTES: Route[] = [
  { name: "healthz", method: "GET", target: "/healthz" },
  { name: "session", method: "GET", target: "/api/session" },
  { name: "limits", method: "GET", target: "/api/limits" },
  { name: "sign-in", method: "POST", target: "/auth/sign-in" },
  { name: "sign-out", method: "POST", target: "/auth/sign-out" },
  { name: "index", method: "GET", target: "/" },
  { name: "index.html", method: "GET", target: "/index.html" },
  { name: "asset", method: "GET", target: "/assets/app-1a2b3c.js" },
  { name: "client route", method: "GET", target: "/checkout/export" },
  { name: "dotfile", method: "GET", target: "/.env" },
  { name: "missing asset", method: "GET", target: "/assets/nope.js" },
];

export function routeArb(options: { own?: boolean; only?: readonly string[] } = {}): fc.Arbitrary<Route> {
  if (options.only) return fc.constantFrom(...OWN_ROUTES.filter((r) => options.only?.includes(r.name)));
  const ops = fc.constantFrom(...OPERATIONS).chain((op) => {
    const names = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const values = names.map((name) => fc.constantFrom(...(GOOD_PARAMS[name] ?? ["1"])));
    return fc.tuple(...values).map((filled): Route => {
      const fillIn = (first?: string) => {
        let target: string = op.path;
        names.forEach((name, i) => {
          target = target.replace(`:${name}`, i === 0 && first !== undefined ? first : filled[i]!);
        });
        const query = op.query === "processIdV1Query" ? "?process_id=123" : "";
        return `/api${target}${query}`;
      };
      return {
        name: op.id,
        method: op.method,
        target: fillIn(),
        op,
        withParam: names.length > 0 ? (value) => fillIn(value) : undefined,
      };
    });
  });
  if (options.own === false) return ops;
  return fc.oneof({ arbitrary: ops, weight: 3 }, { arbitrary: fc.constantFrom(...OWN_ROUTES), weight: 1 });
}

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
function cleanHeaders(route: Route, key: string, json: boolean): [string, string][] {
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

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

interface HeaderTrick {
  name: string;
  /** Tricks of one group are never combined (one would undo the other, or they hang Node itself). */
  group: string;
  /** Header list of the clean request -> header list sent (and an optional body/framing override). */
  apply(
    headers: [string, string][],
    body: Uint8Array,
  ): {
    headers: [string, string][];
    body?: Uint8Array;
    rawFraming?: boolean;
    halfClose?: boolean;
  };
  /** Breaks the browser boundary: nothing may leave. */
  refuses: boolean;
}

const without = (headers: [string, string][], name: string) =>
  headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
const replace =
  (name: string, ...values: string[]) =>
  (headers: [string, string][]) => ({
    headers: [...without(headers, name), ...values.map((v): [string, string] => [name, v])],
  });
const trick = (name: string, refuses: boolean, apply: HeaderTrick["apply"]): HeaderTrick => {
  const group = /csrf/i.test(name)
    ? "csrf"
    : name.startsWith("Host")
      ? "host"
      : name.startsWith("Origin")
        ? "origin"
        : name.startsWith("Sec-Fetch")
          ? "fetch-site"
          : // One framing trick at a time; and never Upgrade with one: Node then stops parsing the
            // body (a broken one hangs until its request timeouts, ~25 s, with or without the proxy).
            /Content-Length|chunk|Transfer-Encoding|Upgrade/.test(name)
            ? "framing"
            : name;
  return { name, group, refuses, apply };
};

const chunk = (bytes: Uint8Array) =>
  `${bytes.byteLength.toString(16)}\r\n${Buffer.from(bytes).toString("latin1")}\r\n`;

export const HEADER_TRICKS: readonly HeaderTrick[] = [
  trick("no x-csrf", true, (h) => ({ headers: without(h, "x-csrf") })),
  trick("x-csrf: 0", true, replace("x-csrf", "0")),
  trick("x-csrf twice", true, replace("x-csrf", "1", "1")),
  trick("x-csrf: true", true, replace("x-csrf", "true")),
  trick("x-csrf full-width", true, (h) => replace("x-csrf", "\xef\xbc\x91")(h)),
  trick("X-CSRF upper-case name", false, (h) => ({ headers: [...without(h, "x-csrf"), ["X-CSRF", "1"]] })),
  trick("x-csrf padded", false, replace("x-csrf", "  1  ")),
  trick("Host evil", true, replace("Host", "evil.example")),
  trick("Host evil with our port", true, (h) => replace("Host", "evil.example:{port}")(h)),
  trick("Host another port", true, replace("Host", "127.0.0.1:1")),
  trick("Host suffix", true, replace("Host", "localhost.evil.example:80")),
  trick("Host userinfo", true, replace("Host", "{self}@evil.example")),
  trick("Host trailing dot", true, replace("Host", "localhost.:{port}")),
  trick("Host empty", true, replace("Host", "")),
  trick("Host twice, evil second", false, replace("Host", "{self}", "evil.example")),
  trick("Host twice, evil first", true, replace("Host", "evil.example", "{self}")),
  trick("Host octal", true, replace("Host", "0177.0.0.1:80")),
  trick("Host upper-case", false, (h) => replace("Host", "LOCALHOST:{port}")(h)),
  trick("Origin evil", true, (h) => ({ headers: [...h, ["Origin", "https://evil.example"]] })),
  trick("Origin null", true, (h) => ({ headers: [...h, ["Origin", "null"]] })),
  trick("Origin garbage", true, (h) => ({ headers: [...h, ["Origin", "::::"]] })),
  trick("Origin other port", true, (h) => ({ headers: [...h, ["Origin", "http://127.0.0.1:1"]] })),
  trick("Origin ours", false, (h) => ({ headers: [...h, ["Origin", "http://{self}"]] })),
  trick("Origin ours with a path", false, (h) => ({ headers: [...h, ["Origin", "http://{self}/x"]] })),
  trick("Origin twice", true, (h) => ({
    headers: [...h, ["Origin", "http://{self}"], ["Origin", "https://evil.example"]],
  })),
  trick("Sec-Fetch-Site cross-site", true, (h) => ({ headers: [...h, ["Sec-Fetch-Site", "cross-site"]] })),
  trick("Sec-Fetch-Site same-site", true, (h) => ({ headers: [...h, ["Sec-Fetch-Site", "same-site"]] })),
  trick("Content-Type text/plain", false, replace("Content-Type", "text/plain")),
  trick("Content-Type form", false, replace("Content-Type", "application/x-www-form-urlencoded")),
  trick("Content-Type multipart", false, replace("Content-Type", "multipart/form-data; boundary=x")),
  trick("Content-Type utf-16", false, replace("Content-Type", "application/json; charset=utf-16")),
  trick("Content-Type latin1", false, replace("Content-Type", "application/json; charset=iso-8859-1")),
  trick("Content-Type jsonx", false, replace("Content-Type", "application/jsonx")),
  trick("Content-Type twice", false, replace("Content-Type", "application/json", "text/html")),
  trick("Content-Type list", false, replace("Content-Type", "application/json, text/html")),
  trick("Content-Type missing", false, (h) => ({ headers: without(h, "Content-Type") })),
  trick("body as UTF-16", false, (h, body) => ({
    headers: replace("Content-Type", "application/json; charset=utf-16le")(h).headers,
    body: Buffer.from(`\ufeff${Buffer.from(body).toString("utf8")}`, "utf16le"),
  })),
  trick("gzip garbage", false, (h) => ({
    headers: [...h, ["Content-Encoding", "gzip"]],
    body: Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef]),
  })),
  trick("br garbage", false, (h) => ({
    headers: [...h, ["Content-Encoding", "br"]],
    body: Uint8Array.from([0xce, 0xb2, 0xcf, 0x81]),
  })),
  trick("gzip of real JSON", false, (h, body) => ({
    headers: [...h, ["Content-Encoding", "gzip"]],
    body: new Uint8Array(gzipSync(body)),
  })),
  trick("Content-Encoding on plain JSON", false, (h) => ({
    headers: [...h, ["Content-Encoding", "gzip, deflate"]],
  })),
  trick("absurd Content-Length", false, (h, body) => ({
    headers: [...h, ["Content-Length", "99999999999999999999"]],
    body,
    rawFraming: true,
  })),
  trick("Content-Length over the limit", false, (h, body) => ({
    headers: [...h, ["Content-Length", String(64 * 1024 * 1024)]],
    body,
    rawFraming: true,
    halfClose: true,
  })),
  trick("negative Content-Length", false, (h, body) => ({
    headers: [...h, ["Content-Length", "-1"]],
    body,
    rawFraming: true,
  })),
  trick("hex Content-Length", false, (h, body) => ({
    headers: [...h, ["Content-Length", "0x10"]],
    body,
    rawFraming: true,
  })),
  trick("two Content-Lengths", false, (h, body) => ({
    headers: [...h, ["Content-Length", String(body.byteLength)], ["Content-Length", "1"]],
    body,
    rawFraming: true,
  })),
  trick("Content-Length longer than the body", false, (h, body) => ({
    headers: [...h, ["Content-Length", String(body.byteLength + 100)]],
    body,
    rawFraming: true,
    halfClose: true,
  })),
  trick("chunked", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(`${body.byteLength > 0 ? chunk(body) : ""}0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("chunked in tiny chunks", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(`${[...body].map((b) => chunk(Uint8Array.of(b))).join("")}0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("bad chunk size", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(`zz\r\n${Buffer.from(body).toString("latin1")}\r\n0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("chunk size lies", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(`ffff\r\n${Buffer.from(body).toString("latin1")}\r\n0\r\n\r\n`),
    rawFraming: true,
    halfClose: true,
  })),
  trick("huge chunk size", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(`ffffffffffffffffff\r\n${Buffer.from(body).toString("latin1")}\r\n0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("chunk extensions", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(
      `${body.byteLength.toString(16)};${"x=y;".repeat(5000)}\r\n${Buffer.from(body).toString("latin1")}\r\n0\r\n\r\n`,
    ),
    rawFraming: true,
  })),
  trick("no last chunk", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"]],
    body: latin1(body.byteLength > 0 ? chunk(body) : "1\r\n{\r\n"),
    rawFraming: true,
    halfClose: true,
  })),
  trick("chunked and Content-Length", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "chunked"], ["Content-Length", "3"]],
    body: latin1(`${body.byteLength > 0 ? chunk(body) : ""}0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("Transfer-Encoding gzip, chunked", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "gzip, chunked"]],
    body: latin1(`${body.byteLength > 0 ? chunk(body) : ""}0\r\n\r\n`),
    rawFraming: true,
  })),
  trick("Transfer-Encoding xchunked", false, (h, body) => ({
    headers: [...h, ["Transfer-Encoding", "xchunked"]],
    body,
    rawFraming: true,
  })),
  trick("Idempotency-Key huge", false, replace("Idempotency-Key", "k".repeat(10_000))),
  trick("Idempotency-Key twice", false, replace("Idempotency-Key", "key-aaaaaaaa", "key-bbbbbbbb")),
  trick("Idempotency-Key unicode", false, replace("Idempotency-Key", "kéy-\xe2\x80\xae-12345")),
  trick("Idempotency-Key __proto__", false, replace("Idempotency-Key", "__proto__")),
  trick("Idempotency-Key constructor", false, replace("Idempotency-Key", "constructor")),
  trick("browser sends a key", false, (h) => ({
    headers: [
      ...h,
      ["x-key", "sbx_payg_demo"],
      ["x-api-key", "sbx_payg_demo"],
      ["Authorization", "Bearer x"],
    ],
  })),
  trick("forged session cookie", false, (h) => ({
    headers: [...h, ["Cookie", "ab_session=forged; __proto__=1"]],
  })),
  trick("huge cookie", false, (h) => ({ headers: [...h, ["Cookie", `ab_session=${"a".repeat(12_000)}`]] })),
  trick("too many headers", false, (h) => ({
    headers: [...h, ...Array.from({ length: 3000 }, (_, i): [string, string] => [`x-h${i}`, "v"])],
  })),
  trick("header too large", false, (h) => ({ headers: [...h, ["x-big", "b".repeat(70_000)]] })),
  trick("X-Forwarded-For spoof", false, (h) => ({
    headers: [...h, ["X-Forwarded-For", "127.0.0.1, 10.0.0.1"]],
  })),
  trick("Expect: 100-continue", false, (h) => ({ headers: [...h, ["Expect", "100-continue"]] })),
  trick("Expect: nonsense", false, (h) => ({ headers: [...h, ["Expect", "nonsense"]] })),
  trick("Upgrade: websocket", false, (h) => ({
    headers: [...h, ["Upgrade", "websocket"], ["Connection", "Upgrade"]],
  })),
  trick("header with NUL", false, (h) => ({ headers: [...h, ["x-a", "a\x00b"]] })),
  trick("header folding", false, (h) => ({ headers: [...h, ["x-a", "a\r\n b"]] })),
  trick("space before colon", false, (h) => ({ headers: [...h, ["x-a ", "a"]] })),
  trick("bare LF", false, (h) => ({ headers: [...h, ["x-a", "a\nx-csrf: 1"]] })),
  trick("header name with unicode", false, (h) => ({ headers: [...h, ["x-\xc3\xa9", "1"]] })),
];

/** A clean request (valid or broken body) with one to three header tricks on top. */
export function headerRecipeArb(options: { own?: boolean } = {}): fc.Arbitrary<Recipe> {
  return routeArb(options).chain((route) =>
    fc
      .tuple(
        bodyFor(route).filter((b) => b.byteLength < 64 * 1024),
        idempotencyKeyArb,
        fc.uniqueArray(fc.constantFrom(...HEADER_TRICKS), {
          minLength: 1,
          maxLength: 3,
          selector: (t) => t.group,
        }),
      )
      .map(([body, key, tricks]): Recipe => {
        const names = tricks.map((t) => t.name);
        let headers = cleanHeaders(route, key, route.method === "POST");
        let sent: Uint8Array = route.method === "POST" ? body : new Uint8Array(0);
        let rawFraming = false;
        let halfClose = false;
        for (const t of tricks) {
          const out = t.apply(headers, sent);
          headers = out.headers;
          if (out.body) sent = out.body;
          rawFraming ||= out.rawFraming ?? false;
          halfClose ||= out.halfClose ?? false;
        }
        return shown({
          label: `${route.method} ${route.target} with ${names.join(" + ")}`,
          method: route.method,
          target: route.target,
          headers,
          body: sent,
          rawFraming,
          halfClose,
          refused:
            tricks.some((t) => t.refuses) &&
            (route.target.startsWith("/api") || route.target.startsWith("/auth")),
        });
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// Request targets and methods
// ---------------------------------------------------------------------------------------------

interface PathTrick {
  name: string;
  apply(target: string, pick: number): string;
  /** The target is no longer a plain address: refused before anything leaves. */
  refuses: boolean;
}

/** The path, and what follows it (`?query`, `#fragment`): tricks on the path must not land in either. */
const splitTarget = (target: string) => {
  const q = target.search(/[?#]/);
  return q === -1 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q) };
};
const onSegment =
  (change: (segment: string) => string) =>
  (target: string, pick: number): string => {
    const { path, query } = splitTarget(target);
    const segments = path.split("/");
    const i = 1 + (pick % Math.max(1, segments.length - 1));
    segments[i] = change(segments[i] ?? "");
    return segments.join("/") + query;
  };
const afterSegment =
  (insert: string) =>
  (target: string, pick: number): string => {
    const { path, query } = splitTarget(target);
    const segments = path.split("/");
    const i = 1 + (pick % Math.max(1, segments.length - 1));
    segments.splice(i, 0, insert);
    return segments.join("/") + query;
  };
const path = (name: string, refuses: boolean, apply: PathTrick["apply"]): PathTrick => ({
  name,
  refuses,
  apply,
});

export const PATH_TRICKS: readonly PathTrick[] = [
  path("../ segment", true, afterSegment("..")),
  path("./ segment", true, afterSegment(".")),
  path("%2e%2e segment", true, afterSegment("%2e%2e")),
  path("%2E%2E segment", true, afterSegment("%2E%2E")),
  path(".%2e segment", true, afterSegment(".%2e")),
  path("%252e%252e (double-encoded)", false, afterSegment("%252e%252e")),
  path("overlong UTF-8 dots", false, afterSegment("%c0%ae%c0%ae")),
  path(
    "overlong UTF-8 slash",
    false,
    onSegment((s) => `${s}%c0%af`),
  ),
  path("unicode one-dot leaders", false, afterSegment("%E2%80%A5")),
  path("full-width dots", false, afterSegment("%EF%BC%8E%EF%BC%8E")),
  path("raw UTF-8 dots", false, afterSegment("\xef\xbc\x8e\xef\xbc\x8e")),
  path("double slash", true, (t) => t.replace("/", "//")),
  path(
    "double slash inside",
    true,
    onSegment((s) => `${s}/`),
  ),
  path("encoded slash", true, (t) => {
    const { path: p, query } = splitTarget(t);
    const i = p.lastIndexOf("/");
    return i > 0 ? `${p.slice(0, i)}%2f${p.slice(i + 1)}${query}` : `${p}%2F${query}`;
  }),
  path("backslash", true, (t) => {
    const { path: p, query } = splitTarget(t);
    return `${p.replace(/\/(?=[^/]*$)/, "\\")}${query}`;
  }),
  path(
    "encoded backslash",
    true,
    onSegment((s) => `${s}%5c`),
  ),
  path(
    "NUL",
    true,
    onSegment((s) => `${s}%00`),
  ),
  path(
    "raw NUL",
    true,
    onSegment((s) => `${s}\x00`),
  ),
  path(
    ";params",
    false,
    onSegment((s) => `${s};jsessionid=1`),
  ),
  path(
    "trailing dot",
    false,
    onSegment((s) => `${s}.`),
  ),
  path("trailing slash", false, (t) => {
    const { path: p, query } = splitTarget(t);
    return `${p}/${query}`;
  }),
  path(
    "upper-case segment",
    false,
    onSegment((s) => s.toUpperCase()),
  ),
  path(
    "percent-encoded letters",
    false,
    onSegment((s) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")),
  ),
  path("fragment", false, (t) => `${t}#frag`),
  path("empty query", false, (t) => (t.includes("?") ? `${t}&` : `${t}?`)),
  path("query pollution", false, (t) => `${t}${t.includes("?") ? "&" : "?"}process_id=1&process_id=2`),
  path("__proto__ query", false, (t) => `${t}${t.includes("?") ? "&" : "?"}__proto__=1&constructor=x`),
  path("array query", false, (t) => `${t}${t.includes("?") ? "&" : "?"}a[]=1&a[__proto__][x]=1`),
  path("metadata query", false, (t) => `${t}${t.includes("?") ? "&" : "?"}metadata=true`),
  path("bad percent in query", false, (t) => `${t}${t.includes("?") ? "&" : "?"}process_id=%zz%`),
  path(
    "many query parameters",
    false,
    (t) => `${t}${t.includes("?") ? "&" : "?"}${Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join("&")}`,
  ),
  path("long URL (8 KB)", false, (t) => `${t}${t.includes("?") ? "&" : "?"}x=${"a".repeat(8_000)}`),
  path("very long URL (100 KB)", false, (t) => `${t}${t.includes("?") ? "&" : "?"}x=${"a".repeat(100_000)}`),
  path(
    "long segment",
    false,
    onSegment((s) => `${s}${"s".repeat(12_000)}`),
  ),
  path(
    "bad percent in path",
    false,
    onSegment((s) => `${s}%zz`),
  ),
  path(
    "lone percent",
    false,
    onSegment((s) => `${s}%`),
  ),
  path(
    "space",
    true,
    onSegment((s) => `${s} x`),
  ),
  path(
    "tab",
    true,
    onSegment((s) => `${s}\tx`),
  ),
  path("absolute form", true, (t) => `http://{self}${t}`),
  path("absolute form elsewhere", true, (t) => `http://evil.example${t}`),
  path("asterisk", true, () => "*"),
  path("no leading slash", true, (t) => t.slice(1)),
  path("/api prefix only", false, () => "/api"),
  path("unknown operation", false, () => "/api/v2/contact/unknown"),
  path("another version", false, (t) => t.replace("/v2/", "/v3/").replace("/v1/", "/v0/")),
  path("dot segment into static", true, () => "/assets/../../outside-secret.txt"),
  path("encoded traversal into static", true, () => "/assets/..%2f..%2foutside-secret.txt"),
  path("static dotfile", false, () => "/.env"),
  path("static dotfile, encoded dot", true, () => "/%2eenv"),
  path("static dotfile, upper-case", false, () => "/.ENV"),
];

const PATH_TRICK_NAMES = PATH_TRICKS.map((t) => t.name);

const METHODS = [
  "GET",
  "POST",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "PUT",
  "DELETE",
  "PATCH",
  "CONNECT",
  "PROPFIND",
  "M-SEARCH",
  "FOO",
  "get",
  "G\xc9T",
] as const;

/** A route with one or two target tricks, sometimes under another method. */
export function pathRecipeArb(options: { own?: boolean } = {}): fc.Arbitrary<Recipe> {
  return routeArb(options).chain((route) =>
    fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...PATH_TRICK_NAMES), { minLength: 0, maxLength: 2 }),
        fc.nat(),
        fc.oneof(
          { arbitrary: fc.constant(route.method), weight: 3 },
          { arbitrary: fc.constantFrom(...METHODS), weight: 1 },
        ),
        bodyFor(route).filter((b) => b.byteLength < 16 * 1024),
        idempotencyKeyArb,
      )
      .map(([names, pick, method, body, key]): Recipe => {
        const tricks = names.map((n) => PATH_TRICKS.find((t) => t.name === n)!);
        // Half the time on routes with a path parameter, the parameter itself is hostile.
        const untricked =
          route.withParam && pick % 2 === 0
            ? route.withParam(HOSTILE_PARAMS[(pick >> 1) % HOSTILE_PARAMS.length]!)
            : route.target;
        let target = untricked;
        for (const t of tricks) target = t.apply(target, pick);
        const hasBody = method !== "GET" && method !== "HEAD" && method !== "CONNECT";
        return shown({
          label: `${method} ${target.length > 120 ? `${target.slice(0, 120)}…` : target} (${names.join(" + ") || "plain"})`,
          method,
          target,
          headers: cleanHeaders(route, key, hasBody),
          body: hasBody ? body : undefined,
          // Two tricks can cancel out ("//api" then "drop the leading slash" is "/api" again):
          // a plain target is forwarded, rightly.
          refused: tricks.some((t) => t.refuses) && target !== untricked,
        });
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// Multipart (the upload operations)
// ---------------------------------------------------------------------------------------------

const UPLOADS = OPERATIONS.filter((op) => op.bodyKind === "multipart");

interface Part {
  headers: string[];
  content: Uint8Array;
}
const filePart = (name: string, filename: string, content: string | Uint8Array, type = "text/csv"): Part => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    `Content-Type: ${type}`,
  ],
  content: typeof content === "string" ? utf8(content) : content,
});
const fieldPart = (name: string, value: string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  content: utf8(value),
});

function multipart(boundary: string, parts: Part[], close = true): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(latin1(`--${boundary}\r\n${part.headers.join("\r\n")}\r\n\r\n`), part.content, utf8("\r\n"));
  }
  if (close) chunks.push(latin1(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const CSV = "email\nalice@example.com\nbob@example.org\n";

const MULTIPART_CASES: readonly {
  name: string;
  type: (b: string) => string;
  body: (b: string) => Uint8Array;
}[] = [
  {
    name: "well-formed",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "list.csv", CSV)]),
  },
  {
    name: "no boundary parameter",
    type: () => "multipart/form-data",
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "boundary mismatch",
    type: (b) => `multipart/form-data; boundary=${b}x`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "quoted boundary",
    type: (b) => `multipart/form-data; boundary="${b}"`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "boundary too long",
    type: () => `multipart/form-data; boundary=${"b".repeat(200)}`,
    body: () => multipart("b".repeat(200), [filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "no closing delimiter",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)], false),
  },
  {
    name: "two files",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [filePart("requested_file", "a.csv", CSV), filePart("requested_file", "b.csv", CSV)]),
  },
  {
    name: "file as a plain field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [fieldPart("requested_file", CSV)]),
  },
  {
    name: "extra field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV), fieldPart("process_id", "1")]),
  },
  {
    name: "__proto__ field",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [fieldPart("__proto__", "{}"), filePart("requested_file", "a.csv", CSV)]),
  },
  {
    name: "traversal filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "../../../etc/passwd", CSV)]),
  },
  {
    name: "filename with CRLF",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv\r\nX-Key: stolen", CSV)]),
  },
  {
    name: "filename with NUL and quotes",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", 'a\x00".csv', CSV)]),
  },
  {
    name: "huge filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", `${"n".repeat(50_000)}.csv`, CSV)]),
  },
  {
    name: "RFC 5987 filename",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            `Content-Disposition: form-data; name="requested_file"; filename*=UTF-8''%E2%80%AEvsc.exe`,
            "Content-Type: text/csv",
          ],
          content: utf8(CSV),
        },
      ]),
  },
  {
    name: "empty file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "empty.csv", "")]),
  },
  {
    name: "binary file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        filePart(
          "requested_file",
          "x.bin",
          Uint8Array.from({ length: 2048 }, (_, i) => (i * 37) & 0xff),
          "application/octet-stream",
        ),
      ]),
  },
  {
    name: "HTML file",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [filePart("requested_file", "x.html", "<script>alert(1)</script>", "text/html")]),
  },
  {
    name: "base64 transfer encoding",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            'Content-Disposition: form-data; name="requested_file"; filename="a.csv"',
            "Content-Transfer-Encoding: base64",
          ],
          content: utf8(Buffer.from(CSV).toString("base64")),
        },
      ]),
  },
  {
    name: "no Content-Disposition",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [{ headers: ["Content-Type: text/csv"], content: utf8(CSV) }]),
  },
  {
    name: "nested multipart/mixed",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(b, [
        {
          headers: [
            'Content-Disposition: form-data; name="requested_file"',
            "Content-Type: multipart/mixed; boundary=inner",
          ],
          content: multipart("inner", [filePart("requested_file", "a.csv", CSV)]),
        },
      ]),
  },
  {
    name: "multipart/mixed type",
    type: (b) => `multipart/mixed; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "a.csv", CSV)]),
  },
  { name: "JSON instead", type: () => "application/json", body: () => utf8('{"requested_file":"a.csv"}') },
  {
    name: "garbage",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: () => Uint8Array.from({ length: 300 }, (_, i) => (i * 101) & 0xff),
  },
  {
    name: "many parts",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) =>
      multipart(
        b,
        Array.from({ length: 2000 }, (_, i) => fieldPart(`f${i}`, "v")),
      ),
  },
  {
    name: "over the body limit",
    type: (b) => `multipart/form-data; boundary=${b}`,
    body: (b) => multipart(b, [filePart("requested_file", "big.csv", "e@x.co\n".repeat(160_000))]),
  },
];

export function multipartRecipeArb(): fc.Arbitrary<Recipe> {
  return fc
    .tuple(
      fc.constantFrom(...UPLOADS),
      fc.constantFrom(...MULTIPART_CASES),
      fc.constantFrom(
        "----WebKitFormBoundaryAbCdEf123XyZ",
        "x",
        "a'b()+_,-./:=?",
        `----------------------------${"9".repeat(40)}`,
      ),
      idempotencyKeyArb,
      fc.boolean(),
    )
    .map(
      ([op, kase, boundary, key, withQuery]): Recipe =>
        shown({
          label: `${op.id}: multipart ${kase.name} (boundary ${boundary.slice(0, 20)})`,
          method: "POST",
          target: `/api${op.path}${withQuery && op.query ? "?metadata=true" : ""}`,
          headers: [
            ["x-csrf", "1"],
            ["Idempotency-Key", key],
            ["Content-Type", kase.type(boundary)],
          ],
          body: kase.body(boundary),
          refused: false,
        }),
    );
}

// ---------------------------------------------------------------------------------------------
// Everything at once
// ---------------------------------------------------------------------------------------------

export function anyRecipeArb(options: { own?: boolean } = {}): fc.Arbitrary<Recipe> {
  return fc.oneof(
    { arbitrary: bodyRecipeArb(options), weight: 3 },
    { arbitrary: headerRecipeArb(options), weight: 3 },
    { arbitrary: pathRecipeArb(options), weight: 3 },
    { arbitrary: multipartRecipeArb(), weight: 1 },
  );
}
