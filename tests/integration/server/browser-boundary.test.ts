/**
 * The browser boundary of the BFF over real HTTP, against a fake upstream that records what reaches
 * it: CSRF header, Host allowlist (DNS rebinding), Origin, no CORS, security headers, the operation
 * allowlist and path tricks, strict validation before anything leaves, body limits, and which
 * headers cross in each direction.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../../src/contract/routes";
import {
  browser,
  fakeUpstream,
  json,
  type ProxyServer,
  rawRequest,
  startProxy,
} from "../../support/proxy-server";

const KEY = "sbx_payg_demo";
const upstream = fakeUpstream((request) => {
  const url = new URL(request.url);
  if (url.pathname === "/v2/contact/export/exp_1/download")
    return new Response("a,b\r\n1,2\r\n", {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": 'attachment; filename="x.csv"',
        "set-cookie": "upstream=1",
      },
    });
  return json({ count: 7, mode: "exact" }, 200, {
    "x-ratelimit-limit": "60",
    "x-ratelimit-remaining": "59",
    "x-ratelimit-reset": "1700000000",
    "x-freepreview-remaining": "100",
    "set-cookie": "upstream_session=abc; Path=/",
    server: "uvicorn",
    "x-upstream-secret": "internal",
    "access-control-allow-origin": "*",
    via: "1.1 upstream",
  });
});

let server: ProxyServer;
let api: ReturnType<typeof browser>;
const group = (children: unknown[] = []) => ({ type: "group", op: "AND", children });
const country = { type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" };

beforeAll(async () => {
  server = await startProxy(upstream, { env: { SANDBOX_KEY: KEY, CACHE_TTL_MS: "0" } });
  api = browser(server.url);
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  upstream.seen.length = 0;
});

describe("CSRF header", () => {
  it("refuses /api without x-csrf: 1 (403), and the upstream is not called", async () => {
    const answer = await api.post("/api/v2/contact/count", { filter: null }, { noCsrf: true });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: expect.any(String) });
    const wrong = await api.post("/api/v2/contact/count", { filter: null }, { headers: { "x-csrf": "0" } });
    expect(wrong.status).toBe(403);
    expect(upstream.seen).toHaveLength(0);
  });

  it("serves the request with x-csrf: 1 and no Origin", async () => {
    const answer = await api.post("/api/v2/contact/count", { filter: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ count: 7, mode: "exact" });
    expect(upstream.seen).toHaveLength(1);
  });
});

describe("Host allowlist (DNS rebinding)", () => {
  it("answers loopback names with the proxy's port", async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) {
      const answer = await rawRequest(server.port, `GET /healthz HTTP/1.1\r\nHost: ${host}`);
      expect(answer.status, host).toBe(200);
    }
  });

  it("refuses any other Host, on /api and on the app alike", async () => {
    for (const host of [
      "evil.example",
      `evil.example:${server.port}`,
      "127.0.0.1:1",
      `localhost.evil.example:${server.port}`,
    ]) {
      const api = await rawRequest(
        server.port,
        `POST /api/v2/contact/count HTTP/1.1\r\nHost: ${host}\r\nx-csrf: 1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
      expect([421, 403], host).toContain(api.status);
      const page = await rawRequest(server.port, `GET / HTTP/1.1\r\nHost: ${host}`);
      expect([421, 403], host).toContain(page.status);
    }
    expect(upstream.seen).toHaveLength(0);
  });
});

describe("PUBLIC_HOSTS", () => {
  it("serves configured public names (and their same-origin requests) besides loopback", async () => {
    const pub = await startProxy(upstream, { env: { PUBLIC_HOSTS: "audiences.example.com" } });
    try {
      const health = await rawRequest(pub.port, "GET /healthz HTTP/1.1\r\nHost: audiences.example.com");
      expect(health.status).toBe(200);
      const call = await rawRequest(
        pub.port,
        "GET /api/v2/credits HTTP/1.1\r\nHost: audiences.example.com\r\nOrigin: https://audiences.example.com\r\nx-csrf: 1",
      );
      expect(call.status).toBe(200);
      const other = await rawRequest(pub.port, "GET /healthz HTTP/1.1\r\nHost: audiences.example.org");
      expect(other.status).toBe(421);
    } finally {
      await pub.close();
    }
  });
});

describe("Origin", () => {
  it("refuses another origin (403) and serves its own", async () => {
    const other = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      { headers: { origin: "https://evil.example" } },
    );
    expect(other.status).toBe(403);
    const otherPort = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      { headers: { origin: "http://127.0.0.1:1" } },
    );
    expect(otherPort.status).toBe(403);
    const nullOrigin = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      { headers: { origin: "null" } },
    );
    expect(nullOrigin.status).toBe(403);
    const crossSite = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      { headers: { "sec-fetch-site": "cross-site" } },
    );
    expect(crossSite.status).toBe(403);
    expect(upstream.seen).toHaveLength(0);

    const same = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      { headers: { origin: server.url } },
    );
    expect(same.status).toBe(200);
  });
});

describe("no CORS, security headers", () => {
  it("refuses preflights and never sends Access-Control-* headers", async () => {
    const preflight = await fetch(`${server.url}/api/v2/contact/count`, {
      method: "OPTIONS",
      headers: {
        origin: "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-csrf, content-type",
      },
    });
    expect([403, 404]).toContain(preflight.status);
    const ok = await api.post("/api/v2/contact/count", { filter: null }, { headers: { origin: server.url } });
    for (const response of [preflight, ok])
      for (const name of response.headers.keys())
        expect(name.startsWith("access-control-"), name).toBe(false);
  });

  it("sends CSP, nosniff, no-referrer, DENY on every answer, and no-store on /api", async () => {
    const answers = [
      await api.post("/api/v2/contact/count", { filter: null }),
      await api.get("/api/nothing-here"),
      await api.post("/api/v2/contact/count", {}, { noCsrf: true }),
      await api.get("/"),
      await api.get("/healthz"),
    ];
    for (const answer of answers) {
      const csp = answer.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toMatch(/^(no-referrer|strict-origin)$/);
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
    }
    for (const answer of answers.slice(0, 3)) expect(answer.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the operation allowlist", () => {
  it("serves exactly the operations of the contract's table", async () => {
    // Every GET operation without params answers through the proxy (the fake upstream says 200).
    for (const op of OPERATIONS.filter((o) => o.method === "GET" && !o.params && !o.query && !o.spends)) {
      const answer = await api.get(`/api${op.path}`);
      expect(answer.status, op.id).toBe(200);
    }
  });

  it("answers 404 { detail } for unknown paths and wrong methods, and never calls the upstream", async () => {
    const tries: [string, string][] = [
      ["GET", "/api/v2/contact/unknown"],
      ["GET", "/api/v3/contact/count"],
      ["GET", "/api/v2/contact/count"],
      ["POST", "/api/v2/credits"],
      ["PUT", "/api/v2/contact/count"],
      ["DELETE", "/api/v2/contact/export/exp_1"],
      ["POST", "/api/v2/contact/count/"],
      ["GET", "/api"],
      ["GET", "/api/"],
      ["GET", "/api/V2/credits"],
      ["GET", "/api/internal/admin"],
    ];
    for (const [method, path] of tries) {
      const answer = await api.call(method, path, method === "POST" ? { filter: null } : undefined);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body, `${method} ${path}`).toEqual({ detail: expect.any(String) });
    }
    const head = await fetch(`${server.url}/api/v2/credits`, { method: "HEAD", headers: { "x-csrf": "1" } });
    expect(head.status).toBe(404);
    expect(upstream.seen).toHaveLength(0);
  });

  it("refuses encoded slashes, dots, backslashes, dot segments and empty segments before matching", async () => {
    const targets = [
      "/api/v2/contact/export/..%2f..%2fcredits",
      "/api/v2/contact/export/exp_1%2Fdownload",
      "/api/v2/contact/export/%2e%2e/download",
      "/api/v2/contact/export/%2E%2E/download",
      "/api/v2/jobs/1/..%5c..%5cjobs",
      "/api/v2/contact/export/../export/exp_1",
      "/api/v2/./credits",
      "/api//v2/credits",
      "/api/v2//credits",
      "/api/v2/credits/.",
      "/api\\v2\\credits",
      "/api/v2/jobs/1\\..\\2",
      "/%2e%2e/etc/passwd",
      "/assets/..%2f..%2fpackage.json",
    ];
    for (const target of targets) {
      const answer = await rawRequest(
        server.port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-csrf: 1`,
      );
      expect([400, 404], target).toContain(answer.status);
      expect(answer.text.toLowerCase(), target).toContain("content-security-policy");
    }
    expect(upstream.seen).toHaveLength(0);
  });

  it("fills path parameters only with validated values", async () => {
    const bad = await api.get("/api/v2/contact/export/exp%20x%3F/download");
    expect(bad.status).toBe(422);
    const good = await api.get("/api/v2/contact/export/exp_1/download");
    expect(good.status).toBe(200);
    expect(upstream.seen.map((s) => s.path)).toEqual(["/v2/contact/export/exp_1/download"]);
  });
});

describe("strict validation before anything leaves", () => {
  it("answers 422 with the contract's record for unknown fields, and the upstream is never called", async () => {
    const unknown = await api.post("/api/v2/contact/count", { filter: null, limit: 1 });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      detail: [expect.objectContaining({ loc: ["body", "limit"], type: "extra_forbidden" })],
    });
    const deep = await api.post("/api/v2/contact/count", {
      filter: group([{ ...country, colour: "red" }]),
    });
    expect(deep.status).toBe(422);
    expect(JSON.stringify(deep.body)).toContain("colour");
    const wrongType = await api.post("/api/v2/contact/count", { filter: group([{ ...country, value: 5 }]) });
    expect(wrongType.status).toBe(422);
    const notJson = await api.post("/api/v2/contact/count", undefined, {
      raw: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(422);
    expect(JSON.stringify(notJson.body)).toContain("json_invalid");
    const extraQuery = await api.post("/api/v2/contact/count?debug=1", { filter: null });
    expect(extraQuery.status).toBe(422);
    const badQuery = await api.post(
      "/api/v2/email/verify?metadata=yes",
      { email: "a@b.co" },
      { idempotencyKey: "k-12345678" },
    );
    expect(badQuery.status).toBe(422);
    expect(upstream.seen).toHaveLength(0);
  });

  it("refuses a filter nested 33 deep with 422 (32 passes), and absurd depths without falling over", async () => {
    // `levels` objects deep along `children`, the condition leaf included (as filterDepth counts).
    const nest = (levels: number) => {
      let node: Record<string, unknown> = group([country]);
      for (let i = 2; i < levels; i++) node = group([node]);
      return node;
    };
    const ok = await api.post("/api/v2/contact/count", { filter: nest(32) });
    expect(ok.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    const tooDeep = await api.post("/api/v2/contact/count", { filter: nest(33) });
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.text).toContain("at most 32");
    // 20,000 levels of raw JSON: refused by the iterative depth check, no stack overflow.
    const hostile = `{"filter":${'{"type":"group","children":['.repeat(20_000)}${"]}".repeat(20_000)}}`;
    const huge = await api.post("/api/v2/contact/count", undefined, {
      raw: hostile,
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(422);
    const arrays = await api.post("/api/v2/contact/count", undefined, {
      raw: `{"filter":null,"mode":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(arrays.status).toBe(422);
    expect(upstream.seen).toHaveLength(1);
  });

  it("answers 413 for bodies over 1 MiB, by Content-Length and by counting streamed bytes", async () => {
    const big = JSON.stringify({ filter: null, mode: "x".repeat(1024 * 1024) });
    const declared = await api.post("/api/v2/contact/count", undefined, {
      raw: big,
      headers: { "content-type": "application/json" },
    });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ detail: expect.any(String) });

    // Chunked, no Content-Length: the bytes are counted as they arrive.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode("x".repeat(64 * 1024));
        for (let i = 0; i < 20; i++) controller.enqueue(piece);
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/api/v2/contact/count`, {
      method: "POST",
      headers: { "x-csrf": "1", "content-type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(upstream.seen).toHaveLength(0);
  });

  it("checks multipart uploads for requested_file and passes the file on", async () => {
    const missing = new FormData();
    missing.append("other", "x");
    const noFile = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: missing,
      idempotencyKey: "upload-0001",
    });
    expect(noFile.status).toBe(422);
    const notMultipart = await api.post(
      "/api/v2/email/verify/batch",
      { requested_file: "x" },
      { idempotencyKey: "upload-0002" },
    );
    expect(notMultipart.status).toBe(422);
    expect(upstream.seen).toHaveLength(0);

    const form = new FormData();
    form.append("requested_file", new Blob(["email\na@b.co\n"], { type: "text/csv" }), "list.csv");
    const sent = await api.post("/api/v2/email/verify/batch", undefined, {
      raw: form,
      idempotencyKey: "upload-0003",
    });
    expect(sent.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(upstream.seen[0]!.body).toContain('name="requested_file"; filename="list.csv"');
    expect(upstream.seen[0]!.body).toContain("a@b.co");

    // A browser's boundary is mixed-case; it must survive intact.
    const boundary = "----WebKitFormBoundaryAbCdEf123XyZ";
    const raw = `--${boundary}\r\nContent-Disposition: form-data; name="requested_file"; filename="b.csv"\r\nContent-Type: text/csv\r\n\r\nx@y.co\r\n--${boundary}--\r\n`;
    const webkit = await api.post("/api/v2/email/verify/batch", undefined, {
      raw,
      idempotencyKey: "upload-0004",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(webkit.status).toBe(200);
    expect(upstream.seen[1]!.body).toContain("x@y.co");
  });
});

describe("headers across the boundary", () => {
  it("never forwards the browser's cookies, Authorization, keys or other headers; sends only the proxy's key", async () => {
    const answer = await api.post(
      "/api/v2/contact/count",
      { filter: null },
      {
        headers: {
          cookie: "ab_session=stolen; other=1",
          authorization: "Bearer browser-token",
          "x-key": "sbx_browser_key",
          "x-api-key": "sbx_browser_key2",
          "x-forwarded-for": "10.0.0.1",
          "x-custom": "hello",
          "user-agent": "browser/1.0",
          "idempotency-key": "never-forwarded-1",
        },
      },
    );
    expect(answer.status).toBe(200);
    const seen = upstream.seen[0]!;
    expect(seen.headers["x-key"]).toBe(KEY);
    for (const name of [
      "cookie",
      "authorization",
      "x-api-key",
      "x-forwarded-for",
      "x-custom",
      "x-csrf",
      "idempotency-key",
    ])
      expect(seen.headers[name], name).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain("browser");
    for (const name of Object.keys(seen.headers)) expect(["accept", "content-type", "x-key"]).toContain(name);
    expect(JSON.parse(seen.body)).toEqual({ filter: null });
  });

  it("passes back only allowlisted upstream headers", async () => {
    const answer = await api.post("/api/v2/contact/count", { filter: null });
    expect(answer.headers.get("x-ratelimit-limit")).toBe("60");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("59");
    expect(answer.headers.get("x-ratelimit-reset")).toBe("1700000000");
    expect(answer.headers.get("x-freepreview-remaining")).toBe("100");
    for (const name of ["set-cookie", "server", "x-upstream-secret", "access-control-allow-origin", "via"])
      expect(answer.headers.get(name), name).toBeNull();

    const file = await api.get("/api/v2/contact/export/exp_1/download");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="x.csv"');
    expect(file.headers.get("set-cookie")).toBeNull();
    expect(file.text).toBe("a,b\r\n1,2\r\n");
  });
});
