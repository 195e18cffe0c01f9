import type { Upstream } from "../../src/server/upstream/upstream";
import { type Browser, browser, fakeUpstream, json, type ProxyServer, startProxy } from "./proxy-server";

/** A filter the contract takes (one condition). */
export const FILTER = {
  type: "group",
  op: "AND",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "Germany" }],
};
export const FILTER2 = {
  type: "group",
  op: "OR",
  children: [{ type: "condition", column: "COUNTRY_NAME_PER", operator: "eq", value: "France" }],
};

export const PASSWORD = (name: string) => `${name}-password-1`;

export async function signIn(url: string, name: string, password = PASSWORD(name)): Promise<Browser> {
  const person = browser(url);
  const answer = await person.post("/auth/sign-in", { name, password });
  if (answer.status !== 200) throw new Error(`sign-in of ${name}: ${answer.status} ${answer.text}`);
  return person;
}

export interface Team {
  server: ProxyServer;
  upstream: Upstream & { seen: { method: string; path: string }[] };
  admin: Browser;
  buyer: Browser;
  analyst: Browser;
}

/**
 * A proxy in local mode whose local admin adds `ada` (admin); ada then adds `bo` (buyer) and `cy`
 * (analyst); all three signed in.
 */
export async function startTeam(
  options: {
    upstream?: Upstream & { seen: { method: string; path: string }[] };
    env?: Record<string, string>;
  } = {},
): Promise<Team> {
  const upstream = options.upstream ?? fakeUpstream(() => json({ credits: 10, plan: "PAYG" }));
  const server = await startProxy(upstream, { env: { SIGN_IN_DELAY_MS: "0", ...options.env } });
  const local = browser(server.url);
  const first = await local.post("/api/team/people", {
    name: "ada",
    role: "admin",
    password: PASSWORD("ada"),
  });
  if (first.status !== 201) throw new Error(`first admin: ${first.status} ${first.text}`);
  const admin = await signIn(server.url, "ada");
  for (const [name, role] of [
    ["bo", "buyer"],
    ["cy", "analyst"],
  ] as const) {
    const added = await admin.post("/api/team/people", { name, role, password: PASSWORD(name) });
    if (added.status !== 201) throw new Error(`adding ${name}: ${added.status} ${added.text}`);
  }
  return {
    server,
    upstream,
    admin,
    buyer: await signIn(server.url, "bo"),
    analyst: await signIn(server.url, "cy"),
  };
}
