import path from "node:path";
import { z } from "zod";
import { RATE_LIMIT_DEFAULTS, VIEW_BUDGET_DEFAULT } from "../contract/inferred";

/** The sandbox's environment (src/sandbox/README.md, "The sandbox's own interface"), validated at start. */
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

const envSchema = z.object({
  SANDBOX_PORT: int(8787, 0),
  SANDBOX_HOST: z.string().default("127.0.0.1"),
  SANDBOX_DATA_DIR: z.string().default(".data/sandbox"),
  SANDBOX_ROWS: int(1_000_000, 100),
  SANDBOX_SEED: int(42),
  SANDBOX_VIEW_BUDGET: int(VIEW_BUDGET_DEFAULT),
  SANDBOX_RATE_PER_MIN: int(RATE_LIMIT_DEFAULTS.perMinute, 1),
  SANDBOX_RATE_PER_DAY: int(RATE_LIMIT_DEFAULTS.perDay, 1),
  SANDBOX_VERIFY_RATE: z.coerce.number().positive().default(50),
  SANDBOX_V1_RETIRED: z
    .string()
    .optional()
    .transform((v) => v === "1" || v === "true"),
});

export interface SandboxOptions {
  dataDir: string;
  rows: number;
  seed: number;
  viewBudget: number;
  ratePerMinute: number;
  ratePerDay: number;
  /** Addresses a batch verification job checks per second. */
  verifyRate: number;
  v1Retired: boolean;
  /** Tests may share one generated dataset file between sandboxes with separate state. */
  datasetFile?: string;
  /** Hears what the start is doing when it takes a while (the dataset's first generation). */
  onProgress?: (line: string) => void;
}

export function sandboxOptionsFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid sandbox configuration: ${problems}`);
  }
  const e = parsed.data;
  const options: SandboxOptions = {
    dataDir: path.resolve(e.SANDBOX_DATA_DIR),
    rows: e.SANDBOX_ROWS,
    seed: e.SANDBOX_SEED,
    viewBudget: e.SANDBOX_VIEW_BUDGET,
    ratePerMinute: e.SANDBOX_RATE_PER_MIN,
    ratePerDay: e.SANDBOX_RATE_PER_DAY,
    verifyRate: e.SANDBOX_VERIFY_RATE,
    v1Retired: e.SANDBOX_V1_RETIRED,
  };
  return { options, port: e.SANDBOX_PORT, host: e.SANDBOX_HOST };
}
