import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import type { Context } from "hono";
import type { GroupNode } from "../../contract/filter";
import type { Reveal } from "../../contract/inferred";
import { contactCost, fullRowColumns, insufficient } from "../billing";
import { csvLine } from "../csv";
import { HttpError } from "../http/pipeline";
import type { Audience } from "../query/audience";
import { reason } from "../state/damage";
import { History } from "../state/history";
import { type Account, type ExportRecord, exportRecordSchema, type StateStore } from "../state/store";

/**
 * Export jobs: started at once, written in the background as fast as the database streams, one at
 * a time, to `<dataDir>/exports/<id>.csv`. Charged once, on completion, exactly the estimate; an
 * export that ends in ERROR or CANCELLED costs nothing. A restart re-runs unfinished exports from
 * the start: the file is rewritten and the charge, recorded with the COMPLETED status in one
 * atomic state write, is never taken twice.
 *
 * An export that has ended (COMPLETED, ERROR, CANCELLED) never changes again: once that end is in
 * the state file, the record moves to the history archive on disk (`<dir>/history.jsonl`), so the
 * state file and memory hold only the exports under way, however long the history grows.
 *
 * Each finished file's size and sha256 are recorded with its completion, and checked at download:
 * a damaged file is refused with a 500 record (and logged), never served as if it were whole.
 */
export class ExportJobs {
  private readonly queue: string[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly history: History<"exports">;

  constructor(
    private readonly audience: Audience,
    private readonly store: StateStore,
    private readonly dir: string,
    private readonly log: (message: unknown) => void = () => {},
  ) {
    this.history = new History(
      store,
      "exports",
      (e) => ({ id: e.exportId, owner: e.accountId }),
      exportRecordSchema,
      log,
    );
  }

  /**
   * Opens the history, moves ended exports the state file still holds into it (a state file from
   * before the archive, or a stop between archiving and the next state write), and picks up
   * exports a previous run left unfinished.
   */
  async resume() {
    await mkdir(this.dir, { recursive: true });
    await this.history.open(path.join(this.dir, "history.jsonl"), (e) => !isUnderWay(e));
    const records = Object.values(this.store.state.exports).sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt),
    );
    for (const record of records) this.enqueue(record.exportId);
  }

  async start(
    account: Account,
    body: {
      filter?: GroupNode | null;
      maxRows: number;
      reveal: Reveal;
      columns?: string[] | null;
      name?: string | null;
    },
  ) {
    const figures = await this.audience.exportFigures(body.filter, body.maxRows);
    const credits = contactCost(account.plan, body.reveal, figures);
    if (credits > account.credits) throw insufficient(credits, account.credits);
    const record: ExportRecord = {
      exportId: `exp_${randomBytes(8).toString("hex")}`,
      accountId: account.id,
      name: body.name ?? null,
      status: "QUEUED",
      filter: body.filter ?? null,
      maxRows: body.maxRows,
      reveal: body.reveal,
      columns: fullRowColumns(body.columns, body.reveal),
      rows: figures.rows,
      rowsWritten: 0,
      credits,
      createdAt: new Date().toISOString(),
      completedAt: null,
      error: null,
      charged: false,
    };
    this.store.state.exports[record.exportId] = record;
    // Not saved, not started: the caller gets a 500, and no export appears later from nowhere.
    await this.store.commit(() => delete this.store.state.exports[record.exportId]);
    this.enqueue(record.exportId);
    return record;
  }

  get(exportId: string, account: Account): ExportRecord {
    const record = this.store.state.exports[exportId] ?? this.history.get(exportId);
    if (!record || record.accountId !== account.id) throw new HttpError(404, { detail: "Export not found" });
    return record;
  }

  list(account: Account): ExportRecord[] {
    return [
      ...Object.values(this.store.state.exports).filter((e) => e.accountId === account.id),
      ...this.history.ownedBy(account.id),
    ].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async cancel(exportId: string, account: Account): Promise<ExportRecord> {
    const record = this.get(exportId, account);
    if (record.status === "COMPLETED")
      throw new HttpError(400, { detail: "The export has completed and cannot be cancelled" });
    if (record.status === "ERROR")
      throw new HttpError(400, { detail: "The export ended in an error and cannot be cancelled" });
    if (record.status === "CANCELLED") return record;
    record.status = "CANCELLED";
    record.completedAt = new Date().toISOString();
    await this.history.end(record);
    return record;
  }

  /** Streams the finished file; 409 until it is COMPLETED. Re-downloading costs nothing. */
  async download(c: Context, exportId: string, account: Account): Promise<Response> {
    const record = this.get(exportId, account);
    if (record.status !== "COMPLETED")
      throw new HttpError(409, {
        detail: `The export is ${record.status}; it can be downloaded once COMPLETED`,
      });
    const file = this.fileOf(exportId);
    const problem = await damageOf(file, record);
    if (problem) {
      this.log(
        `export ${exportId}: its file ${file} is damaged (${problem}); refused at download, left in place`,
      );
      throw new HttpError(500, {
        detail: `The file of export ${exportId} is damaged (${problem}), so it is not served. Nothing was charged for this download; start a new export to get these rows again.`,
      });
    }
    const { size } = await stat(file);
    const filename = `${(record.name ?? record.exportId).replace(/[^\w.-]+/g, "_")}.csv`;
    c.header("Content-Type", "text/csv; charset=utf-8");
    c.header("Content-Disposition", `attachment; filename="${filename}"`);
    c.header("Content-Length", String(size));
    return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream);
  }

  async close() {
    this.closed = true;
    this.queue.length = 0;
    await this.running;
    this.history.close();
  }

  private fileOf(exportId: string) {
    return path.join(this.dir, `${exportId}.csv`);
  }

  private enqueue(exportId: string) {
    this.queue.push(exportId);
    if (!this.running)
      this.running = this.drain()
        .catch((error) => this.log(error))
        .finally(() => (this.running = null));
  }

  private async drain() {
    while (!this.closed && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const record = this.store.state.exports[id];
      if (record && (record.status === "QUEUED" || record.status === "PROCESSING")) await this.run(record);
    }
  }

  private async run(record: ExportRecord) {
    const part = `${this.fileOf(record.exportId)}.part`;
    let out: WriteStream | null = null;
    const digest = createHash("sha256");
    let bytes = 0;
    const put = (text: string) => {
      const data = Buffer.from(text);
      digest.update(data);
      bytes += data.length;
      return write(out!, data);
    };
    try {
      record.status = "PROCESSING";
      record.rowsWritten = 0;
      await this.store.save();
      out = createWriteStream(part);
      await put(csvLine(record.columns));
      for await (const chunk of this.audience.streamRows(record.filter, record.columns, record.rows)) {
        if (cancelled(record) || this.closed) break;
        await put(chunk.rows.map((r) => csvLine(r.map(plain))).join(""));
        record.rowsWritten += chunk.rows.length;
        this.store.saveSoon();
      }
      await new Promise<void>((resolve, reject) =>
        out!.end((e?: Error | null) => (e ? reject(e) : resolve())),
      );
      if (cancelled(record)) {
        await rm(part, { force: true });
        return;
      }
      if (this.closed) return; // resumed from the start on the next run
      await rename(part, this.fileOf(record.exportId));
      // A cancel that arrived while the file was being moved into place wins: nothing is charged.
      if (cancelled(record)) {
        await rm(this.fileOf(record.exportId), { force: true });
        return;
      }
      record.fileBytes = bytes;
      record.fileSha256 = digest.digest("hex");
      const refund = this.finish(record);
      try {
        await this.history.end(record);
      } catch (error) {
        // A completion that is not on disk is no completion: the charge is given back (below, ERROR).
        refund();
        throw error;
      }
    } catch (error) {
      out?.destroy();
      await rm(part, { force: true });
      // A cancelled export stays cancelled (and is in the history already) whatever failed after.
      if (cancelled(record)) return;
      await rm(this.fileOf(record.exportId), { force: true });
      record.status = "ERROR";
      record.error = `The export failed: ${reason(error)}. Nothing was charged.`;
      record.completedAt = new Date().toISOString();
      // If this cannot be saved either, the record stays ERROR in the state for the next save.
      await this.history.end(record).catch((e) => this.log(e));
    }
  }

  /**
   * Completes and charges in one state change, so the charge happens exactly once; returns how to
   * give the charge back if that change cannot be saved.
   */
  private finish(record: ExportRecord): () => void {
    const account = this.store.state.accounts[record.accountId];
    record.completedAt = new Date().toISOString();
    if (!account || account.credits < record.credits) {
      record.status = "ERROR";
      record.error = `Not enough credits at completion: needs ${record.credits}, balance ${account?.credits ?? 0}. Nothing was charged.`;
      return () => {};
    }
    const chargesNow = !record.charged;
    if (chargesNow) {
      account.credits -= record.credits;
      record.charged = true;
    }
    record.status = "COMPLETED";
    return () => {
      if (!chargesNow) return;
      account.credits += record.credits;
      record.charged = false;
    };
  }
}

const isUnderWay = (e: ExportRecord) => e.status === "QUEUED" || e.status === "PROCESSING";
/** Read afresh at each use: `cancel` changes the record while `run` awaits. */
const cancelled = (e: ExportRecord) => e.status === "CANCELLED";

function plain(value: unknown) {
  return typeof value === "bigint" ? Number(value) : value;
}

function write(out: WriteStream, text: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(text)) resolve();
    else {
      // Each wait removes both of its listeners, so a long export does not pile them up.
      const onDrain = () => {
        out.off("error", onError);
        resolve();
      };
      const onError = (error: Error) => {
        out.off("drain", onDrain);
        reject(error);
      };
      out.once("drain", onDrain);
      out.once("error", onError);
    }
  });
}

/**
 * What is wrong with a finished export's file, or null: missing, or not the size and sha256
 * recorded at completion (a record from before they were recorded: only an empty file is caught).
 */
async function damageOf(file: string, record: ExportRecord): Promise<string | null> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    return `unreadable: ${reason(error)}`;
  }
  if (size === 0) return "empty";
  if (record.fileBytes === undefined || record.fileSha256 === undefined) return null;
  if (size !== record.fileBytes) return `${size} bytes where ${record.fileBytes} were written`;
  const digest = createHash("sha256");
  for await (const chunk of createReadStream(file)) digest.update(chunk as Buffer);
  return digest.digest("hex") === record.fileSha256 ? null : "its content is not what was written";
}

/** The public status record (internal fields left out). */
export function exportStatusBody(record: ExportRecord) {
  const {
    accountId: _a,
    filter: _f,
    maxRows: _m,
    charged: _c,
    fileBytes: _b,
    fileSha256: _s,
    ...rest
  } = record;
  return rest;
}
