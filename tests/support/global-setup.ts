import { mkdirSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ensureDataset } from "../../src/sandbox/dataset/index";

/** Small enough for CI, large enough that every column and synonym shows up. */
export const TEST_DATASET = { rows: 50_000, seed: 7 } as const;

/**
 * Generates the test dataset once per run (reused across runs: it is keyed by size, seed and
 * format version) and hands its folder to the tests.
 */
export default async function setup(project: TestProject) {
  const dir = path.resolve(".data/test-dataset");
  mkdirSync(dir, { recursive: true });
  const file = await ensureDataset(dir, TEST_DATASET);
  project.provide("datasetFile", file);
}

declare module "vitest" {
  export interface ProvidedContext {
    datasetFile: string;
    /** Set in the `postgres` project: a PostgreSQL server for this run (postgres-setup.ts). */
    postgresUrl?: string;
  }
}
