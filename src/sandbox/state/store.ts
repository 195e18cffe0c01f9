import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { GroupNode } from "../../contract/filter";
import {
  EXPORT_STATUSES,
  type ExportStatus,
  PLANS,
  type Plan,
  REVEALS,
  type Reveal,
} from "../../contract/inferred";
import { DamagedFileError, parseKept, reason, refuseDamaged } from "./damage";

/**
 * What must survive a restart (credits, View budgets, keys, jobs, exports), kept apart from the
 * read-only dataset: one small JSON document, replaced atomically (temp file, fsync, rename) so a
 * crash leaves either the old or the new state, never half of one.
 */

export interface Account {
  id: string;
  plan: Plan;
  credits: number;
}

export interface KeyRecord {
  /** sha256 of the key: the state file never holds a usable key. */
  hash: string;
  accountId: string;
  access: "full" | "viewonly";
  revoked: boolean;
  /** UTC day (YYYY-MM-DD) the View budget count belongs to. */
  viewDay: string;
  viewUsed: number;
}

export interface ExportRecord {
  exportId: string;
  accountId: string;
  name: string | null;
  status: ExportStatus;
  filter: GroupNode | null;
  maxRows: number;
  reveal: Reveal;
  columns: string[];
  rows: number;
  rowsWritten: number;
  credits: number;
  createdAt: string;
  completedAt: string | null;
  error: string | null;
  charged: boolean;
  /** Size and sha256 of the finished CSV, so a damaged file is refused at download, not served. */
  fileBytes?: number;
  fileSha256?: string;
}

export type JobStatus = "QUEUED" | "PROCESSING" | "COMPLETED" | "ERROR" | "CANCELLING" | "CANCELLED";

export interface VerifyJobRecord {
  processId: number;
  accountId: string;
  filename: string;
  status: JobStatus;
  message: string;
  total: number;
  /** Addresses verified so far; their results are the first `processed` lines of the results file. */
  processed: number;
  creditsCharged: number;
  metadata: boolean;
  createdAt: string;
  lastUpdated: string;
}

export interface State {
  version: 1;
  accounts: Record<string, Account>;
  keys: Record<string, KeyRecord>;
  /** Exports under way, and ended ones for the moment before they move to the history archive. */
  exports: Record<string, ExportRecord>;
  jobs: Record<string, VerifyJobRecord>;
  nextProcessId: number;
  /**
   * Bytes of complete records in each history archive when this state was written: an archive only
   * grows, so one found shorter has lost records (./archive.ts).
   */
  archived?: Partial<Record<"exports" | "jobs", number>>;
}

/* What a state file must hold to be used; anything else is refused at start, never reset. */
const accountSchema = z.object({ id: z.string(), plan: z.enum(PLANS), credits: z.number() });
const keySchema = z.object({
  hash: z.string(),
  accountId: z.string(),
  access: z.enum(["full", "viewonly"]),
  revoked: z.boolean(),
  viewDay: z.string(),
  viewUsed: z.number(),
});
export const exportRecordSchema: z.ZodType<ExportRecord> = z.object({
  exportId: z.string(),
  accountId: z.string(),
  name: z.string().nullable(),
  status: z.enum(EXPORT_STATUSES),
  // Validated when the export was asked for; here only its place is checked.
  filter: z.custom<GroupNode | null>((v) => v === null || (typeof v === "object" && !Array.isArray(v))),
  maxRows: z.number(),
  reveal: z.enum(REVEALS),
  columns: z.array(z.string()),
  rows: z.number(),
  rowsWritten: z.number(),
  credits: z.number(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  error: z.string().nullable(),
  charged: z.boolean(),
  fileBytes: z.number().optional(),
  fileSha256: z.string().optional(),
});
export const jobRecordSchema: z.ZodType<VerifyJobRecord> = z.object({
  processId: z.number().int(),
  accountId: z.string(),
  filename: z.string(),
  status: z.enum(["QUEUED", "PROCESSING", "COMPLETED", "ERROR", "CANCELLING", "CANCELLED"]),
  message: z.string(),
  total: z.number(),
  processed: z.number(),
  creditsCharged: z.number(),
  metadata: z.boolean(),
  createdAt: z.string(),
  lastUpdated: z.string(),
});
const stateSchema: z.ZodType<State> = z.object({
  version: z.literal(1),
  accounts: z.record(z.string(), accountSchema),
  keys: z.record(z.string(), keySchema),
  exports: z.record(z.string(), exportRecordSchema),
  jobs: z.record(z.string(), jobRecordSchema),
  nextProcessId: z.number().int(),
  archived: z.object({ exports: z.number().optional(), jobs: z.number().optional() }).optional(),
});

/** A state write that failed; the change it carried is still only in memory. */
export class StateSaveError extends Error {
  override name = "StateSaveError";
  constructor(
    readonly file: string,
    override readonly cause: unknown,
  ) {
    super(`the sandbox could not save its state to ${file} (${reason(cause)})`);
  }
}

export const DEMO_KEYS = {
  sbx_payg_demo: { accountId: "acct_payg", access: "full", revoked: false },
  sbx_ayce_demo: { accountId: "acct_ayce", access: "full", revoked: false },
  sbx_viewonly_demo: { accountId: "acct_viewonly", access: "viewonly", revoked: false },
  sbx_revoked_demo: { accountId: "acct_revoked", access: "full", revoked: true },
} as const;

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

function initialState(): State {
  const accounts: Record<string, Account> = {
    acct_payg: { id: "acct_payg", plan: "PAYG", credits: 10_000 },
    acct_ayce: { id: "acct_ayce", plan: "AYCE", credits: 10_000 },
    acct_viewonly: { id: "acct_viewonly", plan: "PAYG", credits: 0 },
    acct_revoked: { id: "acct_revoked", plan: "PAYG", credits: 0 },
  };
  const keys: Record<string, KeyRecord> = {};
  for (const [key, record] of Object.entries(DEMO_KEYS)) {
    const hash = hashKey(key);
    keys[hash] = { hash, ...record, viewDay: "", viewUsed: 0 };
  }
  return { version: 1, accounts, keys, exports: {}, jobs: {}, nextProcessId: 1001 };
}

export class StateStore {
  readonly state: State;
  private writing: Promise<void> = Promise.resolve();
  private pending = false;
  private soon: NodeJS.Timeout | null = null;
  /** Writes failed since the last one that succeeded (logged once, and once more on recovery). */
  private failures = 0;

  private constructor(
    readonly dir: string,
    state: State,
    private readonly log: (message: unknown) => void,
  ) {
    this.state = state;
  }

  /**
   * The state in `dir` (a folder the caller made sure exists); only a missing file is a fresh
   * start. A file that cannot be read or is not a whole state refuses the start (SandboxStartError)
   * with a copy kept beside it: using the initial state instead would reset credits and keys.
   */
  static open(dir: string, log: (message: unknown) => void = () => {}): StateStore {
    const file = path.join(dir, "state.json");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new StateStore(dir, initialState(), log);
      throw refuseDamaged(new DamagedFileError(file, `unreadable: ${reason(error)}`), STATE_RECOVERY);
    }
    const parsed = parseKept(text, stateSchema);
    if ("problem" in parsed) throw refuseDamaged(new DamagedFileError(file, parsed.problem), STATE_RECOVERY);
    return new StateStore(dir, parsed.value, log);
  }

  get file() {
    return path.join(this.dir, "state.json");
  }

  /**
   * Makes the current state durable; resolves once it is on disk. Concurrent calls share writes:
   * while one write runs, later callers wait for the next one, which carries all their changes.
   */
  save(): Promise<void> {
    if (this.pending) return this.writing;
    this.pending = true;
    const write = async () => {
      this.pending = false;
      try {
        await writeAtomically(this.file, JSON.stringify(this.state));
      } catch (error) {
        const failure = new StateSaveError(this.file, error);
        if (this.failures++ === 0) this.log(failure);
        throw failure;
      }
      if (this.failures > 0)
        this.log(`the sandbox saved its state again after ${this.failures} failed writes`);
      this.failures = 0;
    };
    // Runs after the previous write whether it failed or not: one failure must not wedge every
    // later save (each write carries the whole current state, so the next success catches up).
    this.writing = this.writing.then(write, write);
    return this.writing;
  }

  /**
   * Saves a change a request is about to answer as done; when it cannot be saved, `undo` takes it
   * back out of memory first, so a charge that is not on disk is neither answered nor kept.
   */
  async commit(undo: () => void): Promise<void> {
    try {
      await this.save();
    } catch (error) {
      undo();
      throw error;
    }
  }

  /** For counters that may lag a moment (View budget): saved within 200 ms. */
  saveSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      // A failure is logged by save(), and the next save carries the change.
      this.save().catch(() => {});
    }, 200);
    this.soon.unref();
  }

  async close(): Promise<void> {
    if (this.soon) {
      clearTimeout(this.soon);
      this.soon = null;
    }
    await this.save();
  }
}

/** Temp file, fsync, rename: readers see the old file or the new one. */
export async function writeAtomically(file: string, data: string, mode = 0o600): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const handle = await open(temp, "w", mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    // A half-written temp file is never read; leaving it would only fill a full disk further.
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

const STATE_RECOVERY =
  "restore it from a backup (or repair it by hand) and start again; deleting it starts afresh with the initial credits and demo keys, losing the balances, rotated keys and the exports and jobs under way";
