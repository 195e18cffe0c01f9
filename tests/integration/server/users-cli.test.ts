/**
 * `npm run users`: the team's people from a shell, on the proxy's own database (DATA_DIR, or
 * DATABASE_URL in the `postgres` project), with the Team page's rules and exit codes 0 / 1 / 2.
 */
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeArgsOf } from "../../support/processes";
import { builtProduct } from "../../support/product-build";
import { browser, fakeUpstream, json, startProxy, testDatabaseFor } from "../../support/proxy-server";

function users(args: string[], env: Record<string, string>, stdin = "") {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...nodeArgsOf("users", builtProduct()), ...args], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "silent", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("npm run users", () => {
  it("adds (password on stdin or USER_PASSWORD), lists, changes roles, removes; the proxy signs them in", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "users-cli-"));
    const { url } = await testDatabaseFor(dataDir, true);
    const env = { DATA_DIR: dataDir, ...(url ? { DATABASE_URL: url } : {}) };

    const first = await users(["add", "bo", "--role", "buyer"], env, "bo-password-1\n");
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("first person of the team must be an admin");
    const ada = await users(["add", "ada", "--role", "admin"], env, "ada-password-1\n");
    expect(ada.code, ada.stderr).toBe(0);
    expect(ada.stdout.trim()).toBe("added ada as admin");
    const bo = await users(["add", "bo", "--role", "buyer"], { ...env, USER_PASSWORD: "bo-password-1" });
    expect(bo.code, bo.stderr).toBe(0);
    const again = await users(["add", "BO", "--role", "buyer"], { ...env, USER_PASSWORD: "bo-password-1" });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/on the team already/);

    expect((await users(["set-role", "bo", "analyst"], env)).code).toBe(0);
    const list = await users(["list"], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ada\s+admin\s+team\s+\d{4}-\d\d-\d\d by cli$/m);
    expect(list.stdout).toMatch(/^bo\s+analyst\s+team\s+/m);

    const lastAdmin = await users(["remove", "ada"], env);
    expect(lastAdmin.code).toBe(1);
    expect(lastAdmin.stderr.trim().split("\n")).toHaveLength(1);
    expect(lastAdmin.stderr).toContain("last admin");

    // Usage mistakes: exit 2 with the usage, before the database is touched.
    for (const args of [
      ["add", "cy"],
      ["add", "cy", "--role", "boss"],
      ["set-role", "bo"],
      ["frobnicate"],
      [],
    ]) {
      const wrong = await users(args, env, "cy-password-1\n");
      expect(wrong.code, args.join(" ")).toBe(2);
      expect(wrong.stderr, args.join(" ")).toContain("usage: npm run users");
    }
    // Refusals of what was given: exit 1, the one-line reason, no usage.
    for (const [args, stdin, reason] of [
      [["add", "local", "--role", "admin"], "cy-password-1\n", /the proxy's own/],
      [["add", "Cli", "--role", "buyer"], "cy-password-1\n", /the proxy's own/],
      [["add", "no way", "--role", "buyer"], "cy-password-1\n", /is not a name/],
      [["add", "cy", "--role", "buyer"], "short\n", /at least 8 characters/],
      [
        ["add", "cy", "--role", "buyer"],
        "",
        /^No password given: pipe it on standard input or set USER_PASSWORD\.$/,
      ],
      [["reset-password", "bo"], "", /^No password given/],
      [["add", "Bo", "--role", "buyer"], "cy-password-1\n", /on the team already/],
    ] as const) {
      const refused = await users([...args], env, stdin);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr.trim().split("\n"), refused.stderr).toHaveLength(1);
      expect(refused.stderr.trim()).toMatch(reason);
    }

    // The proxy, on the same store, signs them in with their roles; the audit names the CLI.
    const server = await startProxy(
      fakeUpstream(() => json({ credits: 1 })),
      { env },
    );
    try {
      const person = browser(server.url);
      expect((await person.post("/auth/sign-in", { name: "ada", password: "ada-password-1" })).status).toBe(
        200,
      );
      const audit = await person.get<{ entries: { actor: string; action: string }[] }>("/api/team/audit");
      expect(audit.body.entries.map((e) => `${e.actor} ${e.action}`)).toEqual([
        "cli person.role",
        "cli person.add",
        "cli person.add",
      ]);
      const bob = browser(server.url);
      expect((await bob.post("/auth/sign-in", { name: "bo", password: "bo-password-1" })).status).toBe(200);
      expect((await bob.get("/api/session")).body).toMatchObject({ role: "analyst" });
      if (!url) {
        // The embedded database belongs to the running proxy: said in one line, exit 1.
        const refused = await users(["list"], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr.trim().split("\n")).toHaveLength(1);
        expect(refused.stderr).toMatch(
          /holds the embedded database .*: use the Team page, or stop the proxy first, or give both a PostgreSQL server with DATABASE_URL/,
        );
      }
    } finally {
      await server.close();
    }
    const removed = await users(["remove", "bo"], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await users(["list"], env)).stdout).not.toMatch(/^bo\s/m);
  }, 120_000);

  it("hash prints a USERS_FILE line, with a role when asked", async () => {
    const line = await users(["hash", "fay", "--role", "analyst"], {}, "fay-password-1\n");
    expect(line.code, line.stderr).toBe(0);
    expect(line.stdout.trim()).toMatch(/^fay:analyst:scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/);
  });
});
