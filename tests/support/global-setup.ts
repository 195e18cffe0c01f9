import { mkdirSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ensureDataset } from "../../src/sandbox/dataset/index";
import { ensureDatabaseImage } from "./database-image";

/** Small enough for CI, large enough that every column and synonym shows up. */
export const TEST_DATASET = { rows: 50_000, seed: 7 } as const;

/**
 * Once per run, and reused across runs while their inputs are the same: the test dataset (keyed by
 * size, seed and format version) and the image of a migrated empty proxy database (keyed by the
 * migrations and PGlite's version), both handed to the tests by their file names.
 */
export default async function setup(project: TestProject) {
  const dir = path.resolve(".data/test-dataset");
  mkdirSync(dir, { recursive: true });
  const [file, image] = await Promise.all([ensureDataset(dir, TEST_DATASET), ensureDatabaseImage()]);
  project.provide("datasetFile", file);
  project.provide("databaseImage", image);
}

declare module "vitest" {
  export interface ProvidedContext {
    datasetFile: string;
    /** A migrated empty embedded database, as a tar of PGlite's folder (database-image.ts). */
    databaseImage: string;
    /** Set where the product runs as a process: its bundled entries (product-build.ts). */
    productBuild?: string;
    /** Set in the `e2e` project: the run's Chromium, to connect to (e2e-setup.ts). */
    browserEndpoint?: string;
    /** Set in the `postgres` project: a PostgreSQL server for this run (postgres-setup.ts). */
    postgresUrl?: string;
  }
}
