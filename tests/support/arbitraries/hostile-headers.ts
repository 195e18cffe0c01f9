/**
 * Header tricks against the browser boundary (CSRF header, Host, Origin, encodings, smuggling).
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { bodyFor, cleanHeaders, idempotencyKeyArb } from "./hostile-bodies";
import { routeArb } from "./hostile-targets";
import { latin1, type Recipe, shown } from "./raw-request";

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
