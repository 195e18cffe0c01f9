// @ts-check
/**
 * The proxy as plain JavaScript: esbuild bundles the launcher (and the embedded database's worker,
 * which it finds beside itself) into dist/server, made again only when a source changed. `npm start`
 * runs the bundle (start.mjs); the test suite bundles its product processes with the same options.
 *
 * Why not tsx at run time: its loader runs in a thread of its own in every thread that loads
 * TypeScript (the proxy's and its database worker's), which with the compiled sources cost the
 * proxy about 90 MB of its resident memory (src/server/README.md, "Memory").
 *
 * Plain JavaScript because it runs before anything can compile TypeScript.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The bundle's entries, each written as `<name>.mjs`. */
export const SERVER_ENTRIES = {
  launcher: "src/launcher.ts",
  "embedded-worker": "src/server/db/embedded-worker.ts",
};

const OUT = path.join(ROOT, "dist/server");
/** Builds older than this, other than the current one, are removed (a proxy started from one reads its worker file again when it reopens its database). */
const KEEP_OLD_MS = 24 * 3600_000;

/**
 * Bundles `entries` (name to source, from the project root) into `outdir`: ESM for Node 20,
 * packages left as imports of node_modules, a lazily imported module (the sandbox) in a chunk of
 * its own so that it is loaded only when used. Resolves to the project files it read.
 * @param {string} outdir
 * @param {Record<string, string>} entries
 * @returns {Promise<string[]>}
 */
export async function bundle(outdir, entries) {
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    metafile: true,
    logLevel: "warning",
  });
  return Object.keys(result.metafile.inputs).map((input) => path.join(ROOT, input));
}

/**
 * The folder of a bundle of the current sources, built first when there is none or a source it
 * was made from changed since (a changed file changes its imports too, so new files are seen).
 * Several processes starting at once may each build: each writes a folder of its own, and the
 * last to finish is current.
 * @param {string} out the folder of the builds (dist/server; tests give another)
 * @returns {Promise<string>}
 */
export async function ensureServerBuilt(out = OUT) {
  // Which build is current, and what it was made from (written whole, by rename).
  const pointer = path.join(out, "current.json");
  const current = readCurrent(pointer);
  if (current && isFresh(out, current)) return path.join(out, current.dir);
  const builtAt = Date.now();
  const dir = `build-${builtAt}-${process.pid}`;
  const inputs = await bundle(path.join(out, dir), SERVER_ENTRIES);
  const temp = `${pointer}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ dir, builtAt, inputs }));
  renameSync(temp, pointer);
  removeOldBuilds(out, dir);
  return path.join(out, dir);
}

/**
 * @param {string} pointer
 * @returns {{ dir: string, builtAt: number, inputs: string[] } | null}
 */
function readCurrent(pointer) {
  try {
    return JSON.parse(readFileSync(pointer, "utf8"));
  } catch {
    return null;
  }
}

/**
 * @param {string} out
 * @param {{ dir: string, builtAt: number, inputs: string[] }} current
 */
function isFresh(out, current) {
  if (!existsSync(path.join(out, current.dir, "launcher.mjs"))) return false;
  return current.inputs.every((input) => {
    const stat = statSync(input, { throwIfNoEntry: false });
    return stat !== undefined && stat.mtimeMs <= current.builtAt;
  });
}

/**
 * @param {string} out
 * @param {string} keep
 */
function removeOldBuilds(out, keep) {
  for (const entry of readdirSync(out, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep || !entry.name.startsWith("build-")) continue;
    const full = path.join(out, entry.name);
    if (Date.now() - statSync(full).mtimeMs > KEEP_OLD_MS) rmSync(full, { recursive: true, force: true });
  }
}
