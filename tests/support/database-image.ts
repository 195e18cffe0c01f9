import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A migrated, empty embedded database (PGlite's data folder as a tar), made once and reused by
 * every test proxy: PGlite's initdb takes seconds (tens on a busy machine), loading this image a
 * fraction of that. Keyed by the migrations' source and PGlite's version, so a new migration or a
 * new PGlite makes a new image; older ones are removed.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const IMAGES_DIR = path.join(ROOT, ".data/test-database-image");

function imageKey(): string {
  const hash = createHash("sha256");
  const migrations = path.join(ROOT, "src/server/db/migrations");
  for (const file of readdirSync(migrations).sort()) hash.update(readFileSync(path.join(migrations, file)));
  hash.update(readFileSync(path.join(ROOT, "node_modules/@electric-sql/pglite/package.json")));
  return hash.digest("hex").slice(0, 16);
}

let making: Promise<string> | null = null;
/** The image's file, made when missing (global set-up: once per run, in the main process). */
export function ensureDatabaseImage(): Promise<string> {
  making ??= makeImage();
  return making;
}

async function makeImage(): Promise<string> {
  const file = path.join(IMAGES_DIR, `${imageKey()}.tar`);
  if (existsSync(file)) return file;
  mkdirSync(IMAGES_DIR, { recursive: true });
  const { PGlite } = await import("@electric-sql/pglite");
  const { Kysely } = await import("kysely");
  const { PGliteDialect } = await import("../../src/server/db/pglite-dialect");
  const { migrate } = await import("../../src/server/db/migrations");
  const pglite = await PGlite.create();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  await migrate(db);
  const image = await pglite.dumpDataDir("none");
  await db.destroy();
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  writeFileSync(temp, Buffer.from(await image.arrayBuffer()));
  renameSync(temp, file);
  for (const old of readdirSync(IMAGES_DIR))
    if (old !== path.basename(file)) rmSync(path.join(IMAGES_DIR, old), { force: true });
  return file;
}

let loaded: Blob | null = null;
/** The image as PGlite's `loadDataDir` takes it (read once per test process). */
export function databaseImageBlob(file: string): Blob {
  loaded ??= new Blob([readFileSync(file)]);
  return loaded;
}

/**
 * Lays the image out as DATA_DIR/db, where a proxy started on DATA_DIR finds an embedded database
 * already made and migrated, as a restarted proxy would. Only a folder the proxy has not made yet
 * is seeded; where the folder cannot be written, nothing is done and the proxy says so itself.
 */
export function seedDatabaseFolder(dataDir: string, file: string): void {
  const folder = path.join(dataDir, "db");
  if (existsSync(folder)) return;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    execFileSync("tar", ["-xf", file, "-C", folder], { stdio: "ignore" });
  } catch {
    rmSync(folder, { recursive: true, force: true });
  }
}
