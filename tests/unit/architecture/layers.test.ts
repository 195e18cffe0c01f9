import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The shape of src/ (src/README.md), enforced: a test that fails names the file and the import.
 * - `contract` imports only zod (and itself);
 * - `app`, `server`, `sandbox` import `contract` and never each other (only src/launcher.ts
 *   composes server and sandbox);
 * - in the app, the core (`lib`, `api`, `ui`) imports no feature, page or layout; a feature imports
 *   no other feature; pages and the shell compose features.
 * Every relative import and every package import is read; a dynamic `import("...")` counts too.
 * - the proxy, the sandbox and the contract have no import cycles (type-only imports aside: they
 *   vanish when compiled), so each module can be read, and loaded, before what uses it.
 */

const SRC = fileURLToPath(new URL("../../../src", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;

interface Import {
  /** The importing file, relative to src/. */
  from: string;
  /** What it names: a package, or a file relative to src/ (without extension). */
  target: string;
  isPackage: boolean;
  /** `import type …`: no module is loaded for it. */
  typeOnly: boolean;
}

function importsOf(file: string, text: string): Import[] {
  const from = path.relative(SRC, file);
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const typeOnly = /^(import|export)\s+type\s/.test(m[0]);
    if (!spec.startsWith(".")) return { from, target: spec, isPackage: true, typeOnly };
    return {
      from,
      target: path.relative(SRC, path.resolve(path.dirname(file), spec)),
      isPackage: false,
      typeOnly,
    };
  });
}

/** The part of src/ a path lies in: contract, server, sandbox, launcher, or app/<zone>. */
function partOf(relative: string): string {
  const [top, second, third] = relative.split(path.sep);
  if (top !== "app") return top === "launcher.ts" ? "launcher" : top!;
  if (second === "features") return `app/features/${third}`;
  if (second === "lib" || second === "api" || second === "ui" || second === "pages" || second === "layout")
    return `app/${second}`;
  return "app/root";
}

/** Why `imp` breaks a layer rule, or null when it is allowed. */
function violation(imp: Import): string | null {
  const from = partOf(imp.from);
  if (imp.isPackage) {
    if (from === "contract" && imp.target !== "zod") return "contract imports only zod";
    return null;
  }
  const to = partOf(imp.target);
  if (from === to) return null;
  if (to === "contract") return null;
  if (from === "contract") return "contract imports only zod";
  const topFrom = from.split("/")[0];
  const topTo = to.split("/")[0];
  if (topFrom !== topTo) {
    if (from === "launcher" && (to === "server" || to === "sandbox")) return null;
    return `${topFrom} must not import ${topTo}`;
  }
  // Inside the app.
  const core = ["app/lib", "app/api", "app/ui"];
  if (core.includes(from) && !core.includes(to)) return `the core (${from}) must not import ${to}`;
  if (from.startsWith("app/features/") && to.startsWith("app/features/"))
    return `a feature must not import another feature (${to})`;
  if (from.startsWith("app/features/") && (to === "app/pages" || to === "app/layout" || to === "app/root"))
    return `a feature must not import ${to}`;
  return null;
}

/** The import cycles among these files (value imports only), each as the files it passes through. */
function cyclesOf(imports: Import[]): string[][] {
  const strip = (p: string) => p.replace(/\.(ts|tsx)$/, "").replace(/[\\/]index$/, "");
  const edges = new Map<string, string[]>();
  for (const imp of imports) {
    if (imp.isPackage || imp.typeOnly) continue;
    const from = strip(imp.from);
    edges.set(from, [...(edges.get(from) ?? []), strip(imp.target)]);
  }
  // Tarjan's strongly connected components: any with more than one file is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe("the layers of src/", () => {
  const files = sourceFiles(SRC);

  it("reads every source file and finds its imports", () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((f) => f.endsWith(path.join("app", "lib", "filter", "tree.ts")))).toBe(true);
  });

  it("no import crosses a layer the wrong way", () => {
    const broken = files.flatMap((file) =>
      importsOf(file, readFileSync(file, "utf8")).flatMap((imp) => {
        const why = violation(imp);
        return why ? [`${imp.from} imports ${imp.target}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("the proxy, the sandbox and the contract have no import cycles", () => {
    const inScope = files.filter((f) => /^(server|sandbox|contract)[\\/]/.test(path.relative(SRC, f)));
    const imports = inScope.flatMap((file) => importsOf(file, readFileSync(file, "utf8")));
    expect(cyclesOf(imports)).toEqual([]);
  });

  it("finds a cycle, and not one made of type-only imports (the rule itself)", () => {
    const imp = (from: string, target: string, typeOnly = false): Import => ({
      from,
      target,
      isPackage: false,
      typeOnly,
    });
    expect(
      cyclesOf([
        imp("server/a.ts", "server/b"),
        imp("server/b.ts", "server/c"),
        imp("server/c.ts", "server/a"),
      ]),
    ).toEqual([["server/a", "server/b", "server/c"]]);
    expect(cyclesOf([imp("server/a.ts", "server/b"), imp("server/b.ts", "server/a", true)])).toEqual([]);
  });

  it("refuses each kind of bad import (the rule itself)", () => {
    const bad = (from: string, target: string, isPackage = false) =>
      violation({
        from: from.split("/").join(path.sep),
        target: target.split("/").join(path.sep),
        isPackage,
        typeOnly: false,
      });
    expect(bad("contract/filter.ts", "react", true)).toMatch(/only zod/);
    expect(bad("contract/filter.ts", "server/config")).toMatch(/only zod/);
    expect(bad("app/api/client.ts", "server/config")).toMatch(/app must not import server/);
    expect(bad("server/app.ts", "sandbox/app")).toMatch(/server must not import sandbox/);
    expect(bad("sandbox/app.ts", "app/lib/store")).toMatch(/sandbox must not import app/);
    expect(bad("app/features/checkout/x.tsx", "app/features/builder/editor/y")).toMatch(/another feature/);
    expect(bad("app/lib/store.ts", "app/features/checkout/x")).toMatch(/core/);
    expect(bad("app/ui/page.tsx", "app/pages/builder-page")).toMatch(/core/);
    expect(bad("app/features/verify/x.tsx", "app/pages/verify-page")).toMatch(/feature must not/);
    // Allowed.
    expect(bad("launcher.ts", "server/serve")).toBeNull();
    expect(bad("app/features/checkout/x.tsx", "app/lib/spend")).toBeNull();
    expect(bad("app/pages/builder-page.tsx", "app/features/builder/editor/filter-editor")).toBeNull();
    expect(bad("server/app.ts", "contract/routes")).toBeNull();
    expect(bad("contract/filter.ts", "zod", true)).toBeNull();
  });
});

/**
 * One owner per table: each table's SQL (Kysely's builders naming it, or a `sql` template reading
 * or writing it) lives in one module of the proxy, its repository; a module that registers routes
 * holds no SQL at all (it calls its repository); tables are made only by the migrations.
 */
const TABLE_OWNERS: Readonly<Record<string, string>> = {
  ledger: "server/spend/ledger-store.ts",
  spend_journal: "server/spend/spend-journal.ts",
  proxy_instances: "server/db/instances.ts",
  contact_reservations: "server/spend/holds-store.ts",
  spend_holds: "server/spend/holds-store.ts",
  owned_contacts: "server/spend/owned-store.ts",
  export_purchases: "server/spend/export-purchases.ts",
  verify_purchases: "server/spend/tool-purchases.ts",
  approvals: "server/spend/approvals.ts",
  team_caps: "server/spend/spending-policy.ts",
  person_caps: "server/spend/spending-policy.ts",
  suppression_lists: "server/spend/suppression.ts",
  suppression_entries: "server/spend/suppression.ts",
  users: "server/team/people-store.ts",
  sessions: "server/team/people-store.ts",
  proxy_settings: "server/team/people-store.ts",
  audiences: "server/team/audiences.ts",
  audience_versions: "server/team/audiences.ts",
  open_audiences: "server/team/audiences.ts",
  audit_log: "server/team/audit.ts",
  team_jobs: "server/team/jobs.ts",
  row_marks: "server/db/integrity.ts",
  store_backups: "server/db/backup.ts",
  store_restores: "server/db/backup.ts",
};

/** The tables a file's SQL names: in Kysely's builders, and in `sql` templates. */
function tablesIn(text: string, tables: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(
    /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto)\(\s*["'`]([a-z_]+)/g,
  ))
    found.add(m[1]!);
  for (const m of text.matchAll(/\bsql(?:<[^`]*?>)?`([^`]*)`/g))
    for (const table of tables)
      if (new RegExp(`\\b(?:from|join|update|into|table|references)\\s+${table}\\b`, "i").test(m[1]!))
        found.add(table);
  return found;
}

const hasSql = (text: string) =>
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(?:<[^`]*?>)?`/.test(text);
const registersRoutes = (text: string) => /\bapp\.(?:get|post|put|patch|delete|use)\(/.test(text);

describe("the proxy's tables", () => {
  const schema = readFileSync(path.join(SRC, "server/db/schema.ts"), "utf8");
  const tables = [
    ...(schema.match(/export interface Tables \{([^}]*)\}/)?.[1] ?? "").matchAll(/^\s+([a-z_]+):/gm),
  ].map((m) => m[1]!);
  const server = sourceFiles(path.join(SRC, "server"))
    .map((file) => ({
      file: path.relative(SRC, file).split(path.sep).join("/"),
      text: readFileSync(file, "utf8"),
    }))
    .filter(({ file }) => !file.startsWith("server/db/migrations/"));

  it("every table has one owner, and the owners are files of the proxy", () => {
    expect(tables.length).toBeGreaterThan(15);
    expect([...tables].sort()).toEqual(Object.keys(TABLE_OWNERS).sort());
    for (const owner of new Set(Object.values(TABLE_OWNERS)))
      expect(
        server.some(({ file }) => file === owner),
        owner,
      ).toBe(true);
  });

  it("each table's SQL lives in its owner alone", () => {
    const strays = server.flatMap(({ file, text }) =>
      [...tablesIn(text, tables)]
        .filter((t) => TABLE_OWNERS[t] !== file)
        .map((t) => `${file} has SQL for ${t} (owned by ${TABLE_OWNERS[t] ?? "nobody"})`),
    );
    expect(strays).toEqual([]);
  });

  it("routes call their repository: a module that registers routes has no SQL", () => {
    const mixed = server.filter(({ text }) => registersRoutes(text) && hasSql(text)).map(({ file }) => file);
    expect(mixed).toEqual([]);
  });

  it("only the migrations make or change tables", () => {
    expect(
      server.filter(({ text }) => /\.schema\s*\.\s*(?:create|alter|drop)/.test(text)).map(({ file }) => file),
    ).toEqual([]);
  });

  it("finds a table in a builder and in a template, and nothing in plain words (the rule itself)", () => {
    expect(
      [
        ...tablesIn('db.selectFrom("ledger").innerJoin("approvals", "a", "b")', ["ledger", "approvals"]),
      ].sort(),
    ).toEqual(["approvals", "ledger"]);
    expect([...tablesIn("sql`select 1 from spend_holds where x`", ["spend_holds"])]).toEqual(["spend_holds"]);
    expect([...tablesIn("// the ledger of spends, from ledger rows", ["ledger"])]).toEqual([]);
  });
});
