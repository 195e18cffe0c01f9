import { Hono, type MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { ProxyEnv } from "../context";
import type { HostAllowlist } from "../hosts";
import { fail } from "./answer";

/**
 * Sent on every answer, through Hono's secure-headers middleware: no inline script, no framing, no
 * sniffing, no referrer (and its other defaults: Origin-Agent-Cluster, X-DNS-Prefetch-Control...).
 */
const SECURE_HEADERS: Parameters<typeof secureHeaders>[0] = {
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  },
  xFrameOptions: "DENY",
  // TLS and HSTS belong to the reverse proxy in front (src/server/README.md, the threat model, API8): a default here
  // would bind every sibling subdomain of a deployment for half a year.
  strictTransportSecurity: false,
  referrerPolicy: "no-referrer",
  crossOriginOpenerPolicy: "same-origin",
  crossOriginResourcePolicy: "same-origin",
};

/**
 * The same headers as plain pairs, for the answers Node writes before Hono runs (serve.ts): read
 * off the middleware itself, so the two can never differ.
 */
export async function securityHeaderPairs(): Promise<Record<string, string>> {
  const probe = new Hono().use(secureHeaders(SECURE_HEADERS)).get("/", (c) => c.body(null));
  return Object.fromEntries((await probe.request("/")).headers);
}

export function securityHeaders(): MiddlewareHandler<ProxyEnv> {
  const secure = secureHeaders(SECURE_HEADERS);
  return async (c, next) =>
    secure(c, async () => {
      await next();
      try {
        c.res.headers.set("x-content-type-options", "nosniff");
      } catch {
        // Immutable headers (a Response from elsewhere): copy it once, so headers can be set.
        c.res = new Response(c.res.body, c.res);
      }
      const headers = c.res.headers;
      // The proxy grants no CORS, whatever a handler might have set.
      for (const name of [...headers.keys()]) if (name.startsWith("access-control-")) headers.delete(name);
      const path = new URL(c.req.url).pathname;
      if (path.startsWith("/api/") || path.startsWith("/auth/") || path === "/api" || path === "/healthz")
        headers.set("cache-control", "no-store");
    });
}

/**
 * DNS rebinding: a hostile page whose name resolves to 127.0.0.1 reaches us with its own name in
 * `Host`. Only names the proxy serves are answered (checked on every path, the SPA included).
 */
export function hostGuard(hosts: HostAllowlist): MiddlewareHandler<ProxyEnv> {
  return async (c, next) => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    if (!hosts.allows(host) || !hosts.allows(new URL(c.req.url).host))
      throw fail(421, "This server does not answer to that host name.");
    await next();
  };
}

/**
 * The BFF's browser boundary for `/api` and `/auth`: same origin only, and the `x-csrf: 1` header a
 * cross-site form or a simple request cannot carry (setting it forces a preflight, which we refuse).
 */
export function browserGuard(publicOrigin: string | null): MiddlewareHandler<ProxyEnv> {
  return async (c, next) => {
    if (c.req.method === "OPTIONS") throw fail(403, "Cross-origin requests are not allowed.");
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      const host = (c.req.header("host") ?? "").toLowerCase();
      let sameOrigin = false;
      try {
        const url = new URL(origin);
        sameOrigin = origin !== "null" && (url.host === host || url.origin === publicOrigin);
      } catch {}
      if (!sameOrigin) throw fail(403, "Requests from other sites are not allowed.");
    }
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin" && site !== "none")
      throw fail(403, "Requests from other sites are not allowed.");
    if (c.req.header("x-csrf") !== "1")
      throw fail(403, "Missing the x-csrf: 1 header. Use the app, or send it with your request.");
    await next();
  };
}
