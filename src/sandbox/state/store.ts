import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import path from "node:path";
import type { GroupNode } from "../../contract/filter";
import type { ExportStatus, Plan, Reveal } from "../../contract/inferred";

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

  private constructor(
    readonly dir: string,
    state: State,
  ) {
    this.state = state;
  }

  static open(dir: string): StateStore {
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "state.json");
    let state: State;
    try {
      state = JSON.parse(readFileSync(file, "utf8")) as State;
    } catch {
      state = initialState();
    }
    return new StateStore(dir, state);
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
    this.writing = this.writing.then(async () => {
      this.pending = false;
      await writeAtomically(this.file, JSON.stringify(this.state));
    });
    return this.writing;
  }

  /** For counters that may lag a moment (View budget): saved within 200 ms. */
  saveSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.save();
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
  const handle = await open(temp, "w", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}
