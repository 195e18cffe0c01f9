import { randomBytes } from "node:crypto";
import { constants, existsSync, readdirSync } from "node:fs";
import { access, chmod, link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { inspect } from "node:util";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import { ConfigError } from "../config";
import { writeFileAtomic } from "./atomic-file";
import { EmbeddedDatabase } from "./embedded-database";
import { checkIntegrity } from "./integrity";
import { migrate } from "./migrations";
import { PGliteDialect } from "./pglite-dialect";
import type { Tables } from "./schema";

export type { Tables } from "./schema";

/**
 * The proxy's store: PostgreSQL, embedded (PGlite, in this process, under DATA_DIR/db) unless
 * DATABASE_URL names a server. One schema and one set of migrations serve both; Kysely writes
 * the SQL, typed against `Tables`.
 */
export interface Database {
  db: Kysely<Tables>;
  kind: "embedded" | "server";
  /** Where it is, for messages: a folder, or the server's address without its password. */
  where: string;
  /**
   * The embedded database on its folder: `first` run on its one connection, then a copy of the
   * folder as a gzipped tar taken before any other query (backup.ts). A server's copy is pg_dump's.
   */
  dump?<T>(first: (connection: Kysely<Tables>) => Promise<T>): Promise<{ first: T; bytes: Uint8Array }>;
  /** The embedded database opened again in a fresh worker, leaving the memory its creation and migrations grew (embedded-database.ts). */
  renew?(): Promise<void>;
  close(): Promise<void>;
}

/** The embedded database is held by another process (a running proxy): `holder` is its pid. */
export class DatabaseInUse extends ConfigError {
  constructor(
    message: string,
    readonly folder: string,
    readonly holder: number,
  ) {
    super(message);
  }
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /**
   * Tests: an embedded database already open in memory (started from an image of a migrated one),
   * lent by the caller, who closes it or lends it again.
   */
  inMemory?: PGlite;
  /** On a server: the name its connections carry (a restore looks for the proxy's: backup.ts). */
  applicationName?: string;
  /** One line for the operator when the embedded database breaks or comes back (embedded-database.ts). */
  onTrouble?: (line: string) => void;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl
    ? await openServer(options.databaseUrl, options.applicationName ?? TOOL_APPLICATION_NAME)
    : options.inMemory
      ? lent(options.inMemory)
      : await openEmbedded(options.dataDir, options.onTrouble);
  try {
    const applied = await migrate(database.db as Kysely<unknown>);
    if (applied > 0) await database.renew?.();
  } catch (error) {
    await database.close();
    throw new ConfigError(`${(error as Error).message} (${database.where})`);
  }
  try {
    await checkIntegrity(database.db, database.where);
  } catch (error) {
    await database.close();
    throw error instanceof ConfigError
      ? error
      : new ConfigError(`the team's store at ${database.where} could not be checked: ${reason(error)}`);
  }
  return database;
}

/** What a running proxy's connections to a server are called, and a command's (`npm run users`, …). */
export const PROXY_APPLICATION_NAME = "audience-builder proxy";
const TOOL_APPLICATION_NAME = "audience-builder tool";

async function openServer(url: string, applicationName: string): Promise<Database> {
  const { default: pg } = await import("pg");
  const where = redacted(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    application_name: applicationName,
  });
  // A server that goes away later makes queries fail (and spending refuse); it must not end the process.
  // An idle client's error reaches the pool; one checked out (inside a transaction, between two of
  // its statements) emits it on itself, where no listener would make it an uncaught exception.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  try {
    await pool.query("select 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ConfigError(`cannot use the database at ${where}: ${reason(error)}`);
  }
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: "server", where, close: () => db.destroy() };
}

/** Written beside the embedded database once it has been opened: the folder has been used. */
const USED_MARKER = "store-used";
/** Held by the process that has the embedded database open (its pid inside). */
export const LOCK_FILE = "db.lock";

function lent(pglite: PGlite): Database {
  const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
  // Not destroyed: Kysely's destroy would close the lender's PGlite.
  return { db, kind: "embedded", where: "memory", close: async () => {} };
}

async function openEmbedded(dataDir: string, onTrouble?: (line: string) => void): Promise<Database> {
  const folder = path.join(dataDir, "db");
  await usableFolder(dataDir);
  const unlock = await lockFolder(path.join(dataDir, LOCK_FILE), folder);
  const marker = path.join(dataDir, USED_MARKER);
  const marked = existsSync(marker);
  const rotated = existsSync(path.join(dataDir, "api-key"));
  const missing = !existsSync(folder);
  const empty = !missing && readdirSync(folder).length === 0;
  // Beside the marker, a db/ missing or empty (a new volume mounted there, its files deleted) is
  // refused, and removing the marker is the deliberate way out. A folder from before the marker
  // shows use by a rotated key: there a missing db/ is refused, and an empty one is the way out.
  if ((marked && (missing || empty)) || (!marked && rotated && missing)) {
    await unlock();
    const signs = [marked && USED_MARKER, rotated && "api-key"].filter(Boolean).join(", ");
    throw new ConfigError(
      `the embedded database ${folder} is ${missing ? "missing" : "empty"}, but this data folder was used (${signs}): an empty store would forget the team's people and which purchases were made, and send their keys to the service again. ` +
        `Restore ${folder} from a backup; to begin again with an empty store on purpose, ${marked ? `remove ${marker}` : `create the empty folder ${folder}`} and start again.`,
    );
  }
  let pglite: EmbeddedDatabase;
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await chmod(folder, 0o700);
    pglite = await EmbeddedDatabase.open(folder, { onTrouble });
  } catch (error) {
    await unlock();
    const why = reason(error);
    throw new ConfigError(
      why.startsWith("ENOSPC") || why.startsWith("EDQUOT")
        ? `the embedded database in ${folder} cannot be opened (${why}). It is left as it is: free space on its disk (or raise the quota), then start again.`
        : `the embedded database in ${folder} cannot be opened (${why}). It is left as it is: ` +
            "restore the folder from a backup, or move it aside to start with an empty one " +
            "(that forgets sessions, users and the record of spends in progress).",
    );
  }
  const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
  // The database opened: a folder that takes no file is said by the next write.
  if (!marked) await markUsed(dataDir, "opened").catch(() => {});
  return {
    db,
    kind: "embedded",
    where: folder,
    // On the one connection, held throughout: no transaction is open while the folder is copied.
    dump: (first) =>
      db
        .connection()
        .execute(async (connection) => ({ first: await first(connection), bytes: await pglite.dump() })),
    renew: () => pglite.renew(),
    async close() {
      await db.destroy();
      await unlock();
    },
  };
}

/** Writes DATA_DIR/store-used: from now on a missing db/ beside it stops the start (see openEmbedded). */
export function markUsed(dataDir: string, how: "opened" | "restored"): Promise<void> {
  return writeFileAtomic(
    path.join(dataDir, USED_MARKER),
    `The team's store was ${how} in this folder (${new Date().toISOString()}). While this file is here, a missing db/ stops the proxy's start instead of beginning an empty store.\n`,
  );
}

/** DATA_DIR must exist (it is made) and be writable: said in one line, before anything else. */
async function usableFolder(dataDir: string) {
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await access(dataDir, constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `the data folder ${dataDir} cannot be used (${reason(error)}): make it writable by this user, or set DATA_DIR`,
    );
  }
}

/**
 * PGlite is one process's database: a second process on the same folder would corrupt it. A lock
 * file holding the owner's pid keeps it out. It is born whole (a file of ours, linked into place),
 * so nobody reads it empty; one left by a process that is gone is replaced atomically, and whoever
 * finds their own pid in it a moment later holds it (two taking over at once cannot both win).
 */
export async function lockFolder(lockFile: string, folder: string): Promise<() => Promise<void>> {
  const mine = `${lockFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const release = () => unlink(lockFile).catch(() => {});
  const holder = () => lockPid(lockFile);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      await writeFile(mine, String(process.pid), { mode: 0o600 });
      try {
        await link(mine, lockFile);
        return release;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = await holder();
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner))
        throw new DatabaseInUse(
          `the embedded database in ${folder} is in use by ${owner === process.pid ? "another proxy in this process" : `another proxy (process ${owner})`}. ` +
            "Stop it first; to run several proxies, give them one PostgreSQL server with DATABASE_URL.",
          folder,
          owner,
        );
      await rename(mine, lockFile);
      await new Promise((r) => setTimeout(r, 50));
      if ((await holder()) === process.pid) return release;
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `the data folder ${path.dirname(lockFile)} cannot be written (${(error as NodeJS.ErrnoException).code})`,
    );
  } finally {
    await unlink(mine).catch(() => {});
  }
  throw new ConfigError(`the lock ${lockFile} could not be taken`);
}

/** The live process holding DATA_DIR's embedded database (the pid in its lock), if any. */
export async function lockHolder(dataDir: string): Promise<number | null> {
  const owner = await lockPid(path.join(dataDir, LOCK_FILE));
  return Number.isInteger(owner) && owner > 0 && isAlive(owner) ? owner : null;
}

async function lockPid(lockFile: string): Promise<number> {
  return Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "DATABASE_URL (not a valid address)";
  }
}

/**
 * The file-system errors of PGlite's WebAssembly carry only Emscripten's errno number (an
 * `ErrnoError` without a message): the ones a disk or a folder gives, named.
 */
const WASM_ERRNO: Readonly<Record<number, string>> = {
  2: "EACCES: permission denied",
  19: "EDQUOT: disk quota exceeded",
  29: "EIO: input/output error",
  44: "ENOENT: no such file or directory",
  51: "ENOSPC: no space left on device",
  63: "EPERM: operation not permitted",
  69: "EROFS: read-only file system",
};

/** An error in words: Node's code and message, PGlite's errno named, never "[object Object]". */
export function reason(error: unknown): string {
  const e = error as (NodeJS.ErrnoException & { name?: unknown }) | null | undefined;
  if (e?.code) return `${e.code}${e.message ? `: ${e.message}` : ""}`;
  if (e?.name === "ErrnoError" && typeof e.errno === "number")
    return WASM_ERRNO[e.errno] ?? `file system error ${e.errno}`;
  if (typeof e?.message === "string" && e.message !== "") return e.message;
  return typeof e === "object" && e !== null ? inspect(e, { depth: 1, breakLength: Infinity }) : String(e);
}
