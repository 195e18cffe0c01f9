import fc from "fast-check";
import { ENUMERABLE_COMPANY_COLUMNS } from "../../../src/contract/columns";
import { OPERATIONS, type OperationSpec } from "../../../src/contract/routes";

// ---------------------------------------------------------------------------------------------
// Targets: every operation, and the proxy's own routes
// ---------------------------------------------------------------------------------------------

export interface Route {
  /** Operation id, or the own route's name. */
  name: string;
  method: string;
  /** A plain target the proxy serves (params filled with well-formed values). */
  target: string;
  op?: OperationSpec;
  /** The target with its (first) path parameter set to `value`, raw. */
  withParam?: (value: string) => string;
}

const GOOD_PARAMS: Record<string, readonly string[]> = {
  exportId: ["exp_1", "exp_nope", "0123456789"],
  process_id: ["12", "999999999999999"],
  column: ENUMERABLE_COMPANY_COLUMNS.slice(0, 3),
};

/** Values a path parameter must never smuggle anything with. */
export const HOSTILE_PARAMS = [
  "..",
  "%2e%2e",
  ".",
  "%2F",
  "exp_1%2Fdownload",
  "a".repeat(65),
  "%00",
  "__proto__",
  "constructor",
  "99999999999999999999",
  "-1",
  "1e3",
  "%D9%A3", // Arabic-Indic digit three
  "%EF%BC%91%EF%BC%92", // full-width 12
  "12%0A",
  "12%0D%0AX-Key:%20stolen",
  "%E2%80%AE",
  "exp%20x%3F",
  "*",
  "%25",
] as const;

const OWN_ROUTES: Route[] = [
  { name: "healthz", method: "GET", target: "/healthz" },
  { name: "session", method: "GET", target: "/api/session" },
  { name: "limits", method: "GET", target: "/api/limits" },
  { name: "health", method: "GET", target: "/api/health" },
  { name: "sign-in", method: "POST", target: "/auth/sign-in" },
  { name: "sign-out", method: "POST", target: "/auth/sign-out" },
  // The team's own (people are left out: a valid body would end local mode mid-run).
  { name: "audiences", method: "GET", target: "/api/audiences" },
  { name: "audience save", method: "POST", target: "/api/audiences" },
  { name: "audience restore", method: "POST", target: "/api/audiences/abcdefghij/restore" },
  { name: "team jobs", method: "GET", target: "/api/team/jobs" },
  { name: "team audit", method: "GET", target: "/api/team/audit" },
  { name: "ledger", method: "GET", target: "/api/ledger" },
  { name: "ledger csv", method: "GET", target: "/api/ledger.csv" },
  // Caps and approvals (changing the caps is left out: a cap set mid-run prices exports upstream).
  { name: "spending caps", method: "GET", target: "/api/spending/caps" },
  { name: "spending summary", method: "GET", target: "/api/spending/summary" },
  { name: "approvals", method: "GET", target: "/api/approvals" },
  { name: "approve", method: "POST", target: "/api/approvals/no-such-request/approve" },
  { name: "deny", method: "POST", target: "/api/approvals/no-such-request/deny" },
  { name: "index", method: "GET", target: "/" },
  { name: "index.html", method: "GET", target: "/index.html" },
  { name: "asset", method: "GET", target: "/assets/app-1a2b3c.js" },
  { name: "client route", method: "GET", target: "/checkout/export" },
  { name: "dotfile", method: "GET", target: "/.env" },
  { name: "missing asset", method: "GET", target: "/assets/nope.js" },
];

export function routeArb(options: { own?: boolean; only?: readonly string[] } = {}): fc.Arbitrary<Route> {
  if (options.only) return fc.constantFrom(...OWN_ROUTES.filter((r) => options.only?.includes(r.name)));
  const ops = fc.constantFrom(...OPERATIONS).chain((op) => {
    const names = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const values = names.map((name) => fc.constantFrom(...(GOOD_PARAMS[name] ?? ["1"])));
    return fc.tuple(...values).map((filled): Route => {
      const fillIn = (first?: string) => {
        let target: string = op.path;
        names.forEach((name, i) => {
          target = target.replace(`:${name}`, i === 0 && first !== undefined ? first : filled[i]!);
        });
        const query = op.query === "processIdV1Query" ? "?process_id=123" : "";
        return `/api${target}${query}`;
      };
      return {
        name: op.id,
        method: op.method,
        target: fillIn(),
        op,
        withParam: names.length > 0 ? (value) => fillIn(value) : undefined,
      };
    });
  });
  if (options.own === false) return ops;
  return fc.oneof({ arbitrary: ops, weight: 3 }, { arbitrary: fc.constantFrom(...OWN_ROUTES), weight: 1 });
}
