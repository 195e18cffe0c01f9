import { appendFile, mkdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { PRICE } from "../../contract/inferred";
import { HttpError } from "../http/pipeline";
import { DamagedFileError, parseKept, reason, refuseDamaged } from "../state/damage";
import { History } from "../state/history";
import {
  type Account,
  type JobStatus,
  jobRecordSchema,
  type StateStore,
  type VerifyJobRecord,
  writeAtomically,
} from "../state/store";
import {
  type AddressBook,
  DELIVERABILITIES,
  isDefinite,
  RISKS,
  toV1Result,
  type V1Result,
  verifyEmail,
} from "../verify/verify-email";

const TICK_MS = 200;
const ACTIVE: readonly JobStatus[] = ["QUEUED", "PROCESSING", "CANCELLING"];
const resultSchema: z.ZodType<V1Result> = z.object({
  email: z.string(),
  deliverability: z.enum(DELIVERABILITIES),
  role: z.boolean(),
  risk: z.enum(RISKS),
});
const inputSchema = z.array(z.string());

/**
 * Batch verification jobs that really run: addresses are checked at `rate` per second (so progress
 * and cancellation can be watched), results appended to `<dir>/<id>.results.jsonl`, and progress,
 * credits and status saved together after every step. A restart resumes where the last saved step
 * ended: lines past it are dropped and verified again, and were never charged.
 *
 * A job that has ended (COMPLETED, ERROR, CANCELLED) never changes again: once that end is in the
 * state file, the record moves to the history archive (`<dir>/history.jsonl`), as ended exports
 * do, so the state file (rewritten whole on every step) and each tick's scan hold only live jobs.
 *
 * The input and results files are read back, and never trusted blindly: a live job's damaged file
 * refuses the start (a copy kept), an ended job's damaged results refuse its download (500), and a
 * results file with fewer whole lines than the saved progress is damage, not fewer results.
 */
export class VerifyJobs {
  private timer: NodeJS.Timeout | null = null;
  private allowance = 0;
  private busy = false;
  /** Jobs whose creation is not saved yet: not worked on (nor charged) until it is. */
  private readonly unsaved = new Set<number>();
  private readonly history: History<"jobs">;
  /** The last step failure logged, so a failure repeated every tick is logged once. */
  private lastFailure = "";

  constructor(
    private readonly store: StateStore,
    private readonly book: AddressBook,
    private readonly dir: string,
    private readonly rate: number,
    private readonly log: (message: unknown) => void = () => {},
  ) {
    this.history = new History(
      store,
      "jobs",
      (j) => ({ id: String(j.processId), owner: j.accountId }),
      jobRecordSchema,
      log,
    );
  }

  /**
   * Opens the history, moves ended jobs the state file still holds into it (a state file from
   * before the archive, or a stop between archiving and the next state write), and trims the
   * results of live jobs to their saved progress.
   */
  async resume() {
    await mkdir(this.dir, { recursive: true });
    await this.history.open(path.join(this.dir, "history.jsonl"), (j) => !ACTIVE.includes(j.status));
    for (const job of this.jobs()) {
      // Keep exactly the saved progress: a crash may have appended lines it never recorded.
      let lines: V1Result[];
      try {
        await this.readInput(job);
        lines = await this.readResults(job);
      } catch (error) {
        if (!(error instanceof DamagedFileError)) throw error;
        throw refuseDamaged(
          error,
          `restore it from a backup and start again (deleting job ${job.processId} from state.json gives the job up; what it charged stays charged)`,
        );
      }
      // Replaced atomically: a stop mid-rewrite must not leave fewer results than were charged.
      await writeAtomically(
        this.resultsFile(job),
        lines.map((r) => `${JSON.stringify(r)}\n`).join(""),
        0o644,
      );
    }
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  async close() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    this.history.close();
  }

  async create(account: Account, emails: string[], filename: string, metadata: boolean) {
    const processId = this.store.state.nextProcessId++;
    const now = new Date().toISOString();
    const job: VerifyJobRecord = {
      processId,
      accountId: account.id,
      filename,
      status: "QUEUED",
      message: `Queued: ${emails.length} addresses`,
      total: emails.length,
      processed: 0,
      creditsCharged: 0,
      metadata,
      createdAt: now,
      lastUpdated: now,
    };
    await writeFile(this.inputFile(job), JSON.stringify(emails));
    await writeFile(this.resultsFile(job), "");
    this.store.state.jobs[String(processId)] = job;
    // Not saved, not created: the caller gets a 500 and no job runs that it was never told of (a
    // tick during the save would otherwise work on it, and charge, before the save's failure is known).
    this.unsaved.add(processId);
    try {
      await this.store.commit(() => delete this.store.state.jobs[String(processId)]);
    } finally {
      this.unsaved.delete(processId);
    }
    return job;
  }

  /** A job of this account; the public docs answer 400 for another account's or an unknown id. */
  get(processId: string | number, account: Account): VerifyJobRecord {
    const job = this.store.state.jobs[String(processId)] ?? this.history.get(String(processId));
    if (!job || job.accountId !== account.id)
      throw new HttpError(400, { detail: "Invalid process_id or the job does not belong to this account" });
    return job;
  }

  active(account: Account): VerifyJobRecord[] {
    return this.jobs().filter(
      (j) => j.accountId === account.id && (j.status === "QUEUED" || j.status === "PROCESSING"),
    );
  }

  async cancel(processId: string | number, account: Account): Promise<VerifyJobRecord> {
    const job = this.get(processId, account);
    if (job.status === "CANCELLED" || job.status === "CANCELLING")
      throw new HttpError(400, { detail: "already_cancelled: the job is already cancelled" });
    if (job.status === "COMPLETED" || job.status === "ERROR")
      throw new HttpError(400, { detail: `not_cancellable: the job is ${job.status}` });
    // CANCELLING until the runner has stopped touching it; the next tick makes it CANCELLED.
    job.status = "CANCELLING";
    job.message = `Cancelling after ${job.processed} of ${job.total} addresses`;
    job.lastUpdated = new Date().toISOString();
    await this.store.save();
    return job;
  }

  /** Results so far, for COMPLETED or CANCELLED jobs only (public docs: 400 otherwise). */
  async results(processId: string | number, account: Account): Promise<V1Result[]> {
    const job = this.get(processId, account);
    if (job.status === "ERROR")
      throw new HttpError(400, { detail: "process_error: the job ended with an error" });
    if (job.status !== "COMPLETED" && job.status !== "CANCELLED")
      throw new HttpError(400, { detail: `not_completed: the job is ${job.status}` });
    try {
      return await this.readResults(job);
    } catch (error) {
      if (!(error instanceof DamagedFileError)) throw error;
      this.log(`verification job ${job.processId}: ${error.message}; refused at download, left in place`);
      throw new HttpError(500, {
        detail: `The results of job ${job.processId} are damaged (${error.problem}), so they are not served. Nothing was charged for this download.`,
      });
    }
  }

  /** The jobs in the state file: live ones, and ended ones for the moment before they move. */
  private jobs(): VerifyJobRecord[] {
    return Object.values(this.store.state.jobs).sort((a, b) => a.processId - b.processId);
  }

  private inputFile(job: VerifyJobRecord) {
    return path.join(this.dir, `${job.processId}.input.json`);
  }

  private resultsFile(job: VerifyJobRecord) {
    return path.join(this.dir, `${job.processId}.results.jsonl`);
  }

  /** The addresses of a job; DamagedFileError when the file is not the list it was given. */
  private async readInput(job: VerifyJobRecord): Promise<string[]> {
    const file = this.inputFile(job);
    const text = await readFile(file, "utf8").catch((error) => {
      throw new DamagedFileError(file, `unreadable: ${reason(error)}`);
    });
    const parsed = parseKept(text, inputSchema);
    if ("problem" in parsed) throw new DamagedFileError(file, parsed.problem);
    if (parsed.value.length !== job.total)
      throw new DamagedFileError(file, `${parsed.value.length} addresses where the job has ${job.total}`);
    return parsed.value;
  }

  /**
   * The first `processed` results (lines past them are a crash's unrecorded appends, ignored);
   * DamagedFileError when any of those is missing or not a whole result.
   */
  private async readResults(job: VerifyJobRecord): Promise<V1Result[]> {
    const file = this.resultsFile(job);
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" && job.processed === 0) return "";
      throw new DamagedFileError(file, `unreadable: ${reason(error)}`);
    });
    // The piece after the last newline is not a whole line.
    const lines = text.split("\n").slice(0, -1);
    if (lines.length < job.processed)
      throw new DamagedFileError(
        file,
        `truncated: ${lines.length} whole results where ${job.processed} were saved`,
      );
    return lines.slice(0, job.processed).map((line, i) => {
      const parsed = parseKept(line, resultSchema);
      if ("problem" in parsed) throw new DamagedFileError(file, parsed.problem, i + 1);
      return parsed.value;
    });
  }

  /** One step: spends this tick's allowance of addresses on the oldest active job. */
  private async tick() {
    if (this.busy) return;
    this.busy = true;
    try {
      this.allowance = Math.min(this.allowance + (this.rate * TICK_MS) / 1000, this.rate);
      for (const job of this.jobs()) {
        if (this.unsaved.has(job.processId)) continue;
        // An end whose save failed is still in the state: it moves once a save succeeds.
        if (!ACTIVE.includes(job.status)) {
          await this.history.end(job);
          continue;
        }
        if (job.status === "CANCELLING") {
          job.status = "CANCELLED";
          job.message = `Cancelled after ${job.processed} of ${job.total} addresses`;
          job.lastUpdated = new Date().toISOString();
          await this.history.end(job);
          continue;
        }
        if (job.status !== "QUEUED" && job.status !== "PROCESSING") continue;
        if (this.allowance < 1) break;
        await this.step(job);
        break;
      }
      this.lastFailure = "";
    } catch (error) {
      // A failed step is tried again next tick (its progress stays in memory for the next save);
      // said once, not five times a second.
      if (reason(error) !== this.lastFailure) this.log(error);
      this.lastFailure = reason(error);
    } finally {
      this.busy = false;
    }
  }

  private async step(job: VerifyJobRecord) {
    const account = this.store.state.accounts[job.accountId];
    const emails = await this.readInput(job);
    const take = Math.min(Math.floor(this.allowance), job.total - job.processed);
    const batch = emails.slice(job.processed, job.processed + take);
    const results: V1Result[] = [];
    let cost = 0;
    let outOfCredits = false;
    for (const email of batch) {
      const outcome = await verifyEmail(email, this.book);
      const price = isDefinite(outcome.deliverability) ? PRICE.perDefiniteVerification : 0;
      if (account && account.credits - cost < price) {
        outOfCredits = true;
        break;
      }
      cost += price;
      results.push(toV1Result(outcome));
    }
    // A cancel that arrived while this step ran wins: nothing of the step is kept or charged.
    if (job.status !== "QUEUED" && job.status !== "PROCESSING") return;
    const file = this.resultsFile(job);
    const whole = (await stat(file).catch(() => null))?.size ?? 0;
    try {
      await appendFile(file, results.map((r) => `${JSON.stringify(r)}\n`).join(""), { mode: 0o600 });
    } catch (error) {
      // A failed append (a full disk) may leave part of a line: cut it, or the next step's lines
      // would be glued to it and the whole job read back as damaged.
      await truncate(file, whole).catch(() => {});
      throw error;
    }
    this.allowance -= results.length;
    job.processed += results.length;
    job.creditsCharged += cost;
    if (account) account.credits -= cost;
    job.lastUpdated = new Date().toISOString();
    if (outOfCredits) {
      job.status = "ERROR";
      job.message = `Stopped: not enough credits after ${job.processed} of ${job.total} addresses`;
    } else if (job.processed >= job.total) {
      job.status = "COMPLETED";
      job.message = `Completed: ${job.total} addresses verified`;
    } else {
      job.status = "PROCESSING";
      job.message = `Processing: ${job.processed} of ${job.total} addresses verified`;
    }
    if (ACTIVE.includes(job.status)) await this.store.save();
    else await this.history.end(job);
  }
}
