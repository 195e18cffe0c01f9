import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PRICE } from "../../contract/inferred";
import { HttpError } from "../http/pipeline";
import { History } from "../state/history";
import type { Account, JobStatus, StateStore, VerifyJobRecord } from "../state/store";
import { type AddressBook, isDefinite, toV1Result, type V1Result, verifyEmail } from "../verify/verify-email";

const TICK_MS = 200;
const ACTIVE: readonly JobStatus[] = ["QUEUED", "PROCESSING", "CANCELLING"];

/**
 * Batch verification jobs that really run: addresses are checked at `rate` per second (so progress
 * and cancellation can be watched), results appended to `<dir>/<id>.results.jsonl`, and progress,
 * credits and status saved together after every step. A restart resumes where the last saved step
 * ended: lines past it are dropped and verified again, and were never charged.
 *
 * A job that has ended (COMPLETED, ERROR, CANCELLED) never changes again: once that end is in the
 * state file, the record moves to the history archive (`<dir>/history.jsonl`), as ended exports
 * do, so the state file (rewritten whole on every step) and each tick's scan hold only live jobs.
 */
export class VerifyJobs {
  private timer: NodeJS.Timeout | null = null;
  private allowance = 0;
  private busy = false;
  private readonly history: History<"jobs">;

  constructor(
    private readonly store: StateStore,
    private readonly book: AddressBook,
    private readonly dir: string,
    private readonly rate: number,
  ) {
    this.history = new History(store, "jobs", (j) => ({ id: String(j.processId), owner: j.accountId }));
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
      const lines = await this.readResults(job);
      await writeFile(this.resultsFile(job), lines.map((r) => `${JSON.stringify(r)}\n`).join(""));
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
    await this.store.save();
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
    return this.readResults(job);
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

  private async readResults(job: VerifyJobRecord): Promise<V1Result[]> {
    const text = await readFile(this.resultsFile(job), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .slice(0, job.processed)
      .map((line) => JSON.parse(line) as V1Result);
  }

  /** One step: spends this tick's allowance of addresses on the oldest active job. */
  private async tick() {
    if (this.busy) return;
    this.busy = true;
    try {
      this.allowance = Math.min(this.allowance + (this.rate * TICK_MS) / 1000, this.rate);
      for (const job of this.jobs()) {
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
    } catch {
      // A failed step leaves its progress unsaved and is tried again next tick.
    } finally {
      this.busy = false;
    }
  }

  private async step(job: VerifyJobRecord) {
    const account = this.store.state.accounts[job.accountId];
    const emails = JSON.parse(await readFile(this.inputFile(job), "utf8")) as string[];
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
    await appendFile(this.resultsFile(job), results.map((r) => `${JSON.stringify(r)}\n`).join(""));
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
