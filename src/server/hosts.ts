import { isIP } from "node:net";

/** Addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (h.startsWith("::ffff:")) return h.slice(7).startsWith("127.");
  return false;
}

/**
 * The `Host` values the proxy serves: loopback names with the proxy's own port (the defence
 * against DNS rebinding: a hostile name resolving to 127.0.0.1 arrives with its own Host), plus
 * configured public names.
 */
export class HostAllowlist {
  constructor(
    private readonly publicHosts: readonly string[],
    private port = 0,
  ) {}

  /** The port actually listened on (it is only known after `listen`, e.g. with port 0). */
  listening(port: number) {
    this.port = port;
  }

  allows(hostHeader: string | undefined): boolean {
    if (!hostHeader) return false;
    const host = hostHeader.trim().toLowerCase();
    if (this.publicHosts.includes(host)) return true;
    const loopback = ["127.0.0.1", "localhost", "[::1]"];
    if (this.port !== 0) {
      if (loopback.some((name) => host === `${name}:${this.port}`)) return true;
      if (this.port === 80 && loopback.includes(host)) return true;
    }
    return false;
  }
}
