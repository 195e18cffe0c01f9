import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { bundle, SERVER_ENTRIES } from "../../src/bundle.mjs";
import { nodeArgsOf, type ProductScript } from "./processes";

/**
 * The product's entry points bundled to plain JavaScript once per run (global set-up), for the
 * suites that start it as a process many times (the crash suite kills and restarts the proxy
 * dozens of times): node starts it without tsx compiling the sources again at every start. The
 * bundle is the same code: packages stay imports of node_modules, as `npm start` has them.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The npm scripts bundled, each as `<script>.mjs`: `start` is the launcher `npm start` bundles (src/bundle.mjs), the others' entries are read from package.json. */
const SCRIPTS: ProductScript[] = ["start", "sandbox", "users"];

/** Bundles the entries into a new folder under .data/test-build (inside the project, so that
 * node_modules resolves from it), with `npm start`'s own options; returns the folder and its removal. */
export async function buildProduct(): Promise<{ dir: string; remove(): void }> {
  const parent = path.join(ROOT, ".data/test-build");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, "run-"));
  await bundle(dir, {
    ...Object.fromEntries(
      SCRIPTS.map((script) => [
        script,
        script === "start" ? SERVER_ENTRIES.launcher : nodeArgsOf(script).at(-1)!,
      ]),
    ),
    "embedded-worker": SERVER_ENTRIES["embedded-worker"],
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The environment of a sandbox process (`npm run sandbox`, or the one `npm start` embeds) over the
 * run's test dataset, linked where the sandbox looks for it (<SANDBOX_DATA_DIR>/dataset): never a
 * dataset generated at its start. `dir` is its state folder (a new temporary one by default).
 */
export function sandboxOnTestDataset(
  dir = mkdtempSync(path.join(os.tmpdir(), "ab-sandbox-")),
): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  symlinkSync(path.dirname(inject("datasetFile")), path.join(dir, "dataset"));
  return { SANDBOX_DATA_DIR: dir, SANDBOX_ROWS: "50000", SANDBOX_SEED: "7" };
}

/** The run's bundles (set by the global set-up of the projects that start the product). */
export function builtProduct(): string {
  const dir = inject("productBuild");
  if (!dir) throw new Error("no product build in this project: add tests/support/global-setup.ts");
  return dir;
}
