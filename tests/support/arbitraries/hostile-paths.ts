import fc from "fast-check";
import { bodyFor, cleanHeaders, idempotencyKeyArb } from "./hostile-bodies";
import { HOSTILE_PARAMS, routeArb } from "./hostile-targets";
import { type Recipe, shown } from "./raw-request";

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
export const path = (name: string, refuses: boolean, apply: PathTrick["apply"]): PathTrick => ({
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
  // The proxy's own parameter (a download's header row): read there, refused elsewhere, never sent on.
  path("the proxy's own query", false, (t) => `${t}${t.includes("?") ? "&" : "?"}headers=labels`),
  path("the proxy's own query, odd", false, (t) => `${t}${t.includes("?") ? "&" : "?"}headers=LABELS%00`),
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
