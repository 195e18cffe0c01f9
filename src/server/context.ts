import type { HttpBindings } from "@hono/node-server";
import type { RequestIdVariables } from "hono/request-id";
import type { Role } from "../contract/team";

/** What each request carries through the proxy's middleware (for logs and handlers). */
export interface ProxyEnv {
  // Absent when the app is called in-process (app.fetch) instead of through the Node server.
  Bindings: Partial<HttpBindings>;
  Variables: RequestIdVariables & {
    clientIp: string;
    /** The signed-in user; "local" when sign-in is off. */
    caller: string;
    /** The caller's role as of the session check (local mode: admin). */
    role: Role;
    op?: string;
    cache?: string;
    upstreamMs?: number;
    replayed?: boolean;
  };
}
