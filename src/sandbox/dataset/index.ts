/**
 * The sandbox's synthetic contact dataset: a DuckDB file generated once per (rows, seed, format
 * version) and then opened read-only by the sandbox.
 *
 * Tables: `contacts` (denormalised, physically ordered by RBID_PAO), `companies` (with `vec`),
 * `titles` (distinct titles with `vec`), `meta` (key/value). See generate.ts for the details.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

export { VECTOR_DIMS } from "./embed";

/** Bump whenever the file's content or layout changes: it is part of the file name. */
export const DATASET_VERSION = 9;

export interface DatasetSpec {
  rows: number;
  seed: number;
}

/**
 * Text columns stored as DuckDB ENUMs (fast equality filters and small files). Compare them with
 * string literals as usual; for case-insensitive matching cast to VARCHAR first.
 */
export const ENUM_COLUMNS: readonly string[] = [
  "JOB_TITLE_PER",
  "JOB_LEVEL_PER",
  "JOB_FUNCTION_PER",
  "CITY_PER",
  "STATE_NAME_PER",
  "COUNTRY_NAME_PER",
  "CONTINENT_PER",
  "INDUSTRY_LINKEDIN_ORG",
  "EMPLOYEE_COUNT_RANGE_ORG",
  "REVENUE_RANGE_ORG",
  "HEADQUARTERS_CITY_ORG",
  "HEADQUARTERS_COUNTRY_NAME_ORG",
];

/** Companies per contacts: 6% of rows (60,000 for 1,000,000), at least 50. */
export function companyCountFor(rows: number): number {
  return Math.max(50, Math.round(rows * 0.06));
}

/** Path of the dataset file for a spec inside dir. */
export function datasetPath(dir: string, spec: DatasetSpec): string {
  return path.join(dir, `dataset-r${spec.rows}-s${spec.seed}-v${DATASET_VERSION}.duckdb`);
}

const inFlight = new Map<string, Promise<string>>();

/**
 * Generates the file if missing and returns its path. Generation runs in a child process (so its
 * memory goes back to the OS once done) into a temporary name that is renamed at the end, so a
 * file under the final name is always complete. Concurrent calls in one process share one run.
 * `report` hears what a generation is doing, stage by stage (a first start says it).
 */
export async function ensureDataset(
  dir: string,
  spec: DatasetSpec,
  report?: (line: string) => void,
): Promise<string> {
  validateSpec(spec);
  const file = path.resolve(datasetPath(dir, spec));
  if (existsSync(file)) return file;
  const running = inFlight.get(file);
  if (running) return running;
  const job = generateInChild(file, spec, report).finally(() => inFlight.delete(file));
  inFlight.set(file, job);
  return job;
}

export function validateSpec(spec: DatasetSpec): void {
  if (!Number.isInteger(spec.rows) || spec.rows < 1 || spec.rows > 50_000_000)
    throw new Error(`dataset rows must be an integer in 1..50,000,000, got ${spec.rows}`);
  if (!Number.isInteger(spec.seed) || spec.seed < 0 || spec.seed > 2_147_483_647)
    throw new Error(`dataset seed must be an integer in 0..2,147,483,647, got ${spec.seed}`);
}

function projectRootAbove(folder: string): string {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${folder}`);
  }
}

async function generateInChild(
  file: string,
  spec: DatasetSpec,
  report: (line: string) => void = () => {},
): Promise<string> {
  const started = performance.now();
  report(
    `generating the sandbox's dataset of ${spec.rows.toLocaleString("en")} contacts into ${path.dirname(file)} (once: later starts open it)…`,
  );
  mkdirSync(path.dirname(file), { recursive: true });
  removeAbandonedTemps(file);
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  // Node resolves `--import tsx` from the working directory: run from the project root, found
  // upwards from this module (its source here, or a bundle of `npm start` under dist/).
  const projectRoot = projectRootAbove(path.dirname(fileURLToPath(import.meta.url)));
  const script = path.join(projectRoot, "src/sandbox/dataset/generate.ts");
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", script, temp, String(spec.rows), String(spec.seed)],
        {
          cwd: projectRoot,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      readline.createInterface({ input: child.stdout }).on("line", (line) => {
        const stage = parseStage(line);
        if (stage) report(`  ${stage.stage}: ${(stage.ms / 1000).toFixed(1)} s`);
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      child.on("error", reject);
      child.on("exit", (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`dataset generation failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
      });
    });
    if (!existsSync(file)) renameSync(temp, file);
    report(`dataset generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return file;
  } finally {
    for (const leftover of [temp, `${temp}.wal`]) rmSync(leftover, { force: true });
    rmSync(`${temp}.tmp`, { recursive: true, force: true });
  }
}

/** A stage line of the generator (`{"stage", "ms"}`), or null for its other output. */
function parseStage(line: string): { stage: string; ms: number } | null {
  try {
    const parsed = JSON.parse(line) as { stage?: unknown; ms?: unknown };
    return typeof parsed.stage === "string" && typeof parsed.ms === "number"
      ? { stage: parsed.stage, ms: parsed.ms }
      : null;
  } catch {
    return null;
  }
}

/** Deletes temporary files of generations whose process died (killed mid-way, power loss...). */
function removeAbandonedTemps(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.tmp-`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) {
      rmSync(path.join(dir, name), { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
