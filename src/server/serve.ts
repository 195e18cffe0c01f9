import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import type { BffProxy } from "./app";
import { ConfigError } from "./config";
import { problem, toResponse } from "./http/answer";
import { securityHeaderPairs } from "./http/browser-guard";

/**
 * Listens with Node's HTTP server. Requests the adapter itself refuses (a backslash in the path, a
 * malformed Host) still get the security headers and a `{ detail }` body; so do requests Node's
 * parser refuses before any handler runs (broken chunks, lying lengths, oversized headers, unknown
 * methods, CONNECT, an Expect it does not know), which Node would otherwise answer with a bare
 * status line.
 */
export async function serveProxy(
  proxy: BffProxy,
  options: { host: string; port: number },
): Promise<{ server: Server; port: number; url: string; close(): Promise<void> }> {
  const SECURITY_HEADERS = await securityHeaderPairs();
  const listener = getRequestListener(proxy.app.fetch, {
    errorHandler: () => {
      const response = toResponse(problem(400, "This address is not allowed."));
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
      response.headers.set("cache-control", "no-store");
      return response;
    },
  });
  // No Host at all: the adapter's error handler answers (with { detail }) instead of Node's bare 400.
  const server = createServer({ requireHostHeader: false }, listener);
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own handler: answer only if no other answer has started on this socket.
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const refuse = (status: number, reason: string, detail: string) =>
      refuseRaw(socket, SECURITY_HEADERS, status, reason, detail);
    if (error.code === "HPE_HEADER_OVERFLOW")
      refuse(431, "Request Header Fields Too Large", "The address or the headers are too large.");
    else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
      refuse(408, "Request Timeout", "The request took too long to arrive.");
    else refuse(400, "Bad Request", "This is not an HTTP request the proxy can read.");
  });
  server.on("checkExpectation", (_request, response: ServerResponse) => {
    const answer = problem(417, "The proxy only understands Expect: 100-continue.");
    response.writeHead(417, {
      ...SECURITY_HEADERS,
      "cache-control": "no-store",
      "content-type": "application/json; charset=utf-8",
      connection: "close",
    });
    response.end(answer.body);
  });
  server.on("connect", (_request, socket: Duplex) => {
    refuseRaw(socket, SECURITY_HEADERS, 405, "Method Not Allowed", "This proxy does not tunnel connections.");
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(listenRefusal(error, options));
    server.once("error", refused);
    server.listen(options.port, options.host, () => {
      server.off("error", refused);
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

/**
 * Writes a whole HTTP/1.1 answer straight to the socket (`{ detail }`, security headers) and closes
 * it; a client that keeps its side open is dropped a second later.
 */
function refuseRaw(
  socket: Duplex,
  SECURITY_HEADERS: Record<string, string>,
  status: number,
  reason: string,
  detail: string,
) {
  const body = JSON.stringify({ detail });
  const headers = {
    ...SECURITY_HEADERS,
    "cache-control": "no-store",
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${lines.join("\r\n")}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** Why the proxy cannot listen, in one line with what to change (a ConfigError the launcher prints). */
function listenRefusal(error: NodeJS.ErrnoException, at: { host: string; port: number }): Error {
  const where = `${at.host.includes(":") ? `[${at.host}]` : at.host}:${at.port}`;
  switch (error.code) {
    case "EADDRINUSE":
      return new ConfigError(
        `${where} is already in use (another proxy, or another program, listens there): stop it, or choose another PORT`,
      );
    case "EACCES":
      return new ConfigError(`${where} needs privileges this user lacks: choose a PORT above 1023`);
    case "EADDRNOTAVAIL":
      return new ConfigError(
        `HOST=${at.host} is not an address of this machine: use one of its own, or 127.0.0.1`,
      );
    default:
      return new ConfigError(`cannot listen on ${where} (${error.code ?? error.message})`);
  }
}
