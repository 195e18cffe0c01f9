/**
 * Backups of the team's store, and restores, while the proxy runs (README: "Backups").
 *
 * - Embedded database: a copy of its folder (PGlite's dumpDataDir, a gzipped tar), taken by the
 *   process that holds the database between two queries. When a proxy runs, `npm run backup` asks
 *   it on a socket in DATA_DIR (mode 0600, like the folder's other files); otherwise it opens the
 *   database itself.
 * - PostgreSQL server: `pg_dump` (custom format, one snapshot), `pg_restore` back.
 *
 * Either way the backup's moment is written into the store first (`store_backups`), so the copy
 * holds it. A restore writes `store_restores`: the spend journal then answers OUTCOME_UNKNOWN for a
 * key made before the restore that it does not hold, since that key may have been sent after the
 * backup was taken (and its record lost with the restore); it is never sent again by itself.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import path from "node:path";
import { Kysely, sql } from "kysely";
import { ConfigError } from "../config";
import { writeFileAtomic } from "./atomic-file";
import {
  type Database,
  DatabaseInUse,
  LOCK_FILE,
  lockFolder,
  lockHolder,
  markUsed,
  openDatabase,
  PROXY_APPLICATION_NAME,
  reason,
} from "./database";
import { openDurable } from "./durable-folder";
import { forgetInstances } from "./instances";
import { migrate } from "./migrations";
import { PGliteDialect } from "./pglite-dialect";
import type { Tables } from "./schema";

export const BACKUP_SOCKET = "backup.sock";

const GZIP = [0x1f, 0x8b];
const PG_DUMP = Buffer.from("PGDMP");

export interface StoreLocation {
  databaseUrl: string | null;
  dataDir: string;
}

export interface BackupTaken {
  file: string;
  takenAt: Date;
  bytes: number;
  /** How it was taken, for the operator. */
  how: string;
}

// ---- The running proxy's side ----

/**
 * Serves backups of the embedded database on DATA_DIR/backup.sock: each connection gets one line of
 * JSON (`{ takenAt, bytes }` or `{ error }`) and then the copy's bytes. Only for the embedded database
 * (a server's copy is pg_dump's). Resolves to null when the socket cannot be made (a path too long
 * for a socket): then `npm run backup` says to stop the proxy, and the proxy runs on.
 */
export async function serveBackups(
  dataDir: string,
  database: Database,
  log: (line: string) => void,
): Promise<{ close(): Promise<void> } | null> {
  if (!database.dump) return null;
  const socket = path.join(dataDir, BACKUP_SOCKET);
  // A socket left by a proxy that was killed; the lock says no other proxy runs on this folder.
  await rm(socket, { force: true });
  const server: Server = createServer((connection) => {
    connection.on("error", () => {});
    dumpWithMark(database).then(
      ({ takenAt, bytes }) => {
        connection.write(`${JSON.stringify({ takenAt: takenAt.toISOString(), bytes: bytes.length })}\n`);
        connection.end(bytes);
        log(`backup taken (${bytes.length} bytes, as of ${takenAt.toISOString()})`);
      },
      (error) => connection.end(`${JSON.stringify({ error: reason(error) })}\n`),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => resolve());
    });
    await chmod(socket, 0o600);
  } catch (error) {
    log(`backups while running are off: the socket ${socket} cannot be made (${reason(error)})`);
    return null;
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }).then(() => rm(socket, { force: true })),
  };
}

// ---- npm run backup ----

export async function takeBackup(store: StoreLocation, file: string): Promise<BackupTaken> {
  await mkdir(path.dirname(file), { recursive: true });
  if (store.databaseUrl) return backupServer(store.databaseUrl, file);
  const holder = await lockHolder(store.dataDir);
  if (holder !== null) {
    const { takenAt, bytes } = await askProxy(path.join(store.dataDir, BACKUP_SOCKET), holder);
    await writeFileAtomic(file, bytes);
    return { file, takenAt, bytes: bytes.length, how: `from the running proxy (process ${holder})` };
  }
  if (!existsSync(path.join(store.dataDir, "db", "PG_VERSION")))
    throw new ConfigError(`there is no embedded database in ${path.join(store.dataDir, "db")} to back up`);
  const database = await openDatabase({ databaseUrl: null, dataDir: store.dataDir });
  try {
    const { takenAt, bytes } = await dumpWithMark(database);
    await writeFileAtomic(file, bytes);
    return { file, takenAt, bytes: bytes.length, how: "with no proxy running" };
  } finally {
    await database.close();
  }
}

/** The embedded database's copy, its moment written into it first (so the copy holds it). */
async function dumpWithMark(database: Database): Promise<{ takenAt: Date; bytes: Uint8Array }> {
  const { first, bytes } = await database.dump!(markBackup);
  return { takenAt: first, bytes };
}

async function markBackup(db: Database["db"]): Promise<Date> {
  const mark = await db
    .insertInto("store_backups")
    .defaultValues()
    .returning("taken_at")
    .executeTakeFirstOrThrow();
  return mark.taken_at;
}

async function askProxy(socket: string, holder: number): Promise<{ takenAt: Date; bytes: Uint8Array }> {
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const connection = createConnection(socket);
    connection.on("data", (chunk: Buffer) => chunks.push(chunk));
    connection.on("end", () => resolve());
    connection.on("error", (error) =>
      reject(
        new ConfigError(
          `the proxy (process ${holder}) holds the embedded database, and its backup socket ${socket} does not answer (${reason(error)}): stop the proxy and run the backup again`,
        ),
      ),
    );
  });
  const whole = Buffer.concat(chunks);
  const newline = whole.indexOf(0x0a);
  const head = JSON.parse(whole.subarray(0, newline).toString("utf8")) as
    | { takenAt: string; bytes: number }
    | { error: string };
  if ("error" in head) throw new ConfigError(`the proxy could not take the backup: ${head.error}`);
  const bytes = whole.subarray(newline + 1);
  if (bytes.length !== head.bytes)
    throw new ConfigError(
      `the backup from the proxy was cut short (${bytes.length} of ${head.bytes} bytes): nothing was written`,
    );
  return { takenAt: new Date(head.takenAt), bytes };
}

async function backupServer(url: string, file: string): Promise<BackupTaken> {
  const database = await openDatabase({ databaseUrl: url, dataDir: "" });
  let takenAt: Date;
  try {
    takenAt = await markBackup(database.db);
  } finally {
    await database.close();
  }
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await pgTool("pg_dump", url, ["--format=custom", `--file=${temp}`]);
    await flush(temp);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return { file, takenAt, bytes: (await stat(file)).size, how: "with pg_dump" };
}

// ---- npm run restore ----

export interface Restored {
  backupTakenAt: Date | null;
  /** Where the store that was replaced was moved (embedded), never deleted. */
  setAside: string | null;
}

export async function restoreBackup(store: StoreLocation, file: string): Promise<Restored> {
  const head = await readHead(file);
  const isPgDump = head.subarray(0, PG_DUMP.length).equals(PG_DUMP);
  const isTar = head[0] === GZIP[0] && head[1] === GZIP[1];
  if (store.databaseUrl) {
    if (!isPgDump)
      throw new ConfigError(
        `${file} is not a backup of a PostgreSQL server (pg_dump's custom format)${isTar ? ": it is an embedded database's; restore it without DATABASE_URL" : ""}`,
      );
    return restoreServer(store.databaseUrl, file);
  }
  if (!isTar)
    throw new ConfigError(
      `${file} is not a backup of the embedded database (a gzipped tar)${isPgDump ? ": it is a PostgreSQL server's; restore it with DATABASE_URL set" : ""}`,
    );
  return restoreEmbedded(store.dataDir, file);
}

async function restoreEmbedded(dataDir: string, file: string): Promise<Restored> {
  const folder = path.join(dataDir, "db");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const unlock = await lockFolder(path.join(dataDir, LOCK_FILE), folder).catch((error) => {
    throw error instanceof DatabaseInUse
      ? new ConfigError(
          `a proxy (process ${error.holder}) is running on ${dataDir}: stop it, then restore (nothing was changed)`,
        )
      : error;
  });
  let setAside: string | null = null;
  try {
    if (existsSync(folder) && readdirSync(folder).length > 0) {
      setAside = `${folder}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      await rename(folder, setAside);
    }
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const tar = new Blob([await readFile(file)]);
    let pglite: Awaited<ReturnType<typeof openDurable>>;
    try {
      pglite = await openDurable(folder, { loadDataDir: tar });
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      if (setAside) await rename(setAside, folder);
      throw new ConfigError(`${file} could not be restored (${reason(error)}): the store was left as it was`);
    }
    try {
      const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
      await migrate(db as Kysely<unknown>);
      const backupTakenAt = await recordRestore(db);
      await db.destroy();
      await markUsed(dataDir, "restored");
      return { backupTakenAt, setAside };
    } finally {
      if (!pglite.closed) await pglite.close();
    }
  } finally {
    await unlock();
  }
}

async function restoreServer(url: string, file: string): Promise<Restored> {
  const database = await openDatabase({ databaseUrl: url, dataDir: "" }).catch(() => null);
  if (database) {
    try {
      // A running proxy keeps connections open (its journal beats every 2 s), named as such.
      const running = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and application_name = ${PROXY_APPLICATION_NAME}`.execute(
        database.db,
      );
      const proxies = Number(running.rows[0]?.n ?? 0);
      if (proxies > 0)
        throw new ConfigError(
          `a proxy is running on ${database.where} (${proxies} of its connections are open): stop every proxy on it, then restore`,
        );
    } finally {
      await database.close();
    }
  }
  await pgTool("pg_restore", url, [
    "--clean",
    "--if-exists",
    "--no-owner",
    "--no-privileges",
    "--single-transaction",
    "--exit-on-error",
    file,
  ]);
  const restored = await openDatabase({ databaseUrl: url, dataDir: "" });
  try {
    return { backupTakenAt: await recordRestore(restored.db), setAside: null };
  } finally {
    await restored.close();
  }
}

/** When the store was last restored from a backup, if ever. */
export async function lastRestore(db: Database["db"]): Promise<Date | null> {
  const row = await db
    .selectFrom("store_restores")
    .select((eb) => eb.fn.max("restored_at").as("at"))
    .executeTakeFirst();
  return row?.at ?? null;
}

/**
 * The restore, in the restored store: the moment of the backup it came from is its last mark. The
 * proxies the copy names as running ran on the source store, not on this one (a restore is refused
 * while one runs here): struck off, so that the first proxy started on the copy takes their spends
 * under way at once as cut off (outcome unknown), instead of as still being carried out.
 */
async function recordRestore(db: Database["db"]): Promise<Date | null> {
  return db.transaction().execute(async (trx) => {
    const last = await trx
      .selectFrom("store_backups")
      .select((eb) => eb.fn.max("taken_at").as("taken_at"))
      .executeTakeFirst();
    const backupTakenAt = last?.taken_at ?? null;
    await trx.insertInto("store_restores").values({ backup_taken_at: backupTakenAt }).execute();
    await forgetInstances(trx);
    return backupTakenAt;
  });
}

// ---- Helpers ----

/** PostgreSQL's own tool on a server; the password goes by environment, never on the command line. */
function pgTool(tool: "pg_dump" | "pg_restore", url: string, args: string[]): Promise<void> {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [`--dbname=${parsed.toString()}`, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
    });
    let errors = "";
    child.stderr.on("data", (d: Buffer) => {
      errors += d;
    });
    child.on("error", (error) =>
      reject(
        new ConfigError(`${tool} could not be run (${reason(error)}): install PostgreSQL's client tools`),
      ),
    );
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(
            new ConfigError(
              `${tool} failed (exit ${code}): ${errors.trim().split("\n").slice(-3).join(" ")}`,
            ),
          ),
    );
  });
}

async function flush(file: string) {
  const handle = await open(file, "r+");
  try {
    await chmod(file, 0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r").catch((error) => {
    throw new ConfigError(`the backup ${file} cannot be read (${reason(error)})`);
  });
  try {
    const head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    return head;
  } finally {
    await handle.close();
  }
}
