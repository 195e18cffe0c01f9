import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { problem, toResponse } from "./answer";
import type { BffProxy } from "./app";
import { SECURITY_HEADERS } from "./browser-guard";

/**
 * Listens with Node's HTTP server. Requests the adapter itself refuses (a backslash in the path, a
 * malformed Host) still get the security headers and a `{ detail }` body.
 */
export async function serveProxy(
  proxy: BffProxy,
  options: { host: string; port: number },
): Promise<{ server: Server; port: number; url: string; close(): Promise<void> }> {
  const listener = getRequestListener(proxy.app.fetch, {
    errorHandler: () => {
      const response = toResponse(problem(400, "This address is not allowed."));
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
      response.headers.set("cache-control", "no-store");
      return response;
    },
  });
  const server = createServer(listener);
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  proxy.listening(port);
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  let closing: Promise<void> | null = null;
  return {
    server,
    port,
    url: `http://${shownHost}:${port}`,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await proxy.close();
      })();
      return closing;
    },
  };
}
