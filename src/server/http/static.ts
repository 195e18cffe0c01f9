import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import type { Context } from "hono";
import type { ProxyEnv } from "../context";
import { problem, toResponse } from "./answer";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

/**
 * The built SPA on the same origin. Hashed files under /assets never change (cache for a year);
 * index.html is revalidated every time so a deploy shows at once; any other unknown path gets
 * index.html for client-side routing.
 */
export function staticSite(root: string) {
  const resolvedRoot = path.resolve(root);
  return async (c: Context<ProxyEnv>): Promise<Response> => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return toResponse(problem(404, "Not Found"));
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return toResponse(problem(400, "Bad address."));
    }
    const isAsset = pathname.startsWith("/assets/");
    const hidden = pathname.split("/").some((segment) => segment.startsWith("."));
    const wanted = path.resolve(resolvedRoot, `.${pathname}`);
    const inside = wanted.startsWith(resolvedRoot + path.sep);
    if (inside && !hidden && pathname !== "/") {
      const file = await serveFile(c, wanted, isAsset ? "public, max-age=31536000, immutable" : "no-cache");
      if (file) return file;
    }
    if (isAsset) return toResponse(problem(404, "Not Found"));
    const index = await serveFile(c, path.join(resolvedRoot, "index.html"), "no-cache");
    return (
      index ??
      new Response("The app is not built yet. Run `npx vite build`, then reload.\n", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
      })
    );
  };
}

async function serveFile(c: Context<ProxyEnv>, file: string, cacheControl: string): Promise<Response | null> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return null;
  const headers = {
    "content-type": TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": String(info.size),
    "cache-control": cacheControl,
    "last-modified": info.mtime.toUTCString(),
  };
  if (c.req.method === "HEAD") return new Response(null, { status: 200, headers });
  return new Response(Readable.toWeb(createReadStream(file)) as ReadableStream, { status: 200, headers });
}
