import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./processes";

/**
 * A throwaway PostgreSQL server from Debian's `postgresql` package: a new cluster in a temporary
 * folder, on a free loopback port, trust authentication on loopback only, fsync off unless asked
 * (nothing here outlives the run). PostgreSQL refuses to run as root: as root it runs as the `postgres` user
 * the package creates.
 */
export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** Stops the server (`fast`: like a crash of the connections, not of the data). */
  stop(): void;
  /** Starts it again on the same port and folder after `stop`. */
  start(): void;
  remove(): void;
}

export function postgresBinaries(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0]!, "bin") : null;
}

/** `durable`: fsync and synchronous commits on, as a production server runs (benchmarks). */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("PostgreSQL is not installed: `apt-get install postgresql` (.ci/run does)");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), "ab-postgres-"));
  const data = path.join(dir, "data");
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (tool: string, args: string[]) => {
    try {
      execFileSync(
        asRoot ? "runuser" : path.join(bin, tool),
        asRoot ? ["-u", "postgres", "--", path.join(bin, tool), ...args] : args,
        // The C locale exists everywhere (the test processes pin one that may not be installed).
        { stdio: ["ignore", "pipe", "pipe"], cwd: dir, env: { ...process.env, LC_ALL: "C", LANG: "C" } },
      );
    } catch (error) {
      const stderr = String((error as { stderr?: Buffer }).stderr ?? "");
      throw new Error(`${tool} failed: ${stderr.trim() || (error as Error).message}`);
    }
  };
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const fast = options.durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off";
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}`;
  const start = () => run("pg_ctl", ["-D", data, "-o", settings, "-l", path.join(dir, "log"), "-w", "start"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    start,
    remove() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new empty database on the server, for one test's proxy (or the instances that share it). */
export async function createDatabase(serverUrl: string): Promise<string> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
