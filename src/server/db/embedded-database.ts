import { Worker } from "node:worker_threads";
import { type ErrorRecord, errorFrom, type FromWorker, type ToWorker } from "./embedded-messages";
import type { EmbeddedQueries, QueryAnswer } from "./pglite-dialect";

/**
 * The embedded database (PGlite) run in a worker thread, and brought back when it breaks.
 *
 * PostgreSQL treats a failed write of its log (EIO, ENOSPC) as a PANIC: a server's process would
 * end and restart. PGlite is that server inside this process, and after a PANIC its next query
 * spins forever: in the proxy's own thread, that froze every request, free ones included. In a
 * worker, the failed write is an error the proxy answers (503, nothing sent), the proxy's thread
 * goes on serving what needs no writing, and the broken instance is ended and the database opened
 * again from its folder (PostgreSQL's own recovery from its log), retried with a growing pause
 * until writes succeed again.
 *
 * A transaction never spans two instances: a connection is pinned to the instance it began on,
 * and its queries fail once that instance has gone, instead of running on the next one one by
 * one (each committed on its own).
 */

/** SQLSTATE classes after which the instance is not trusted: system (I/O) errors, out of resources (disk full), internal. */
const BROKEN_CLASSES = ["58", "53", "XX"];
/** Errors of the WebAssembly runtime or its file system, below PostgreSQL's own. */
const RUNTIME_ERRORS = ["ErrnoError", "RuntimeError", "ExitStatus"];

export function breaksInstance(error: ErrorRecord): boolean {
  const code = typeof error.code === "string" ? error.code : "";
  return (
    BROKEN_CLASSES.some((prefix) => code.startsWith(prefix)) ||
    error.severity === "PANIC" ||
    error.severity === "FATAL" ||
    RUNTIME_ERRORS.includes(String(error.name))
  );
}

/** A query refused because the embedded database is being opened again. */
export class EmbeddedDatabaseDown extends Error {
  override name = "EmbeddedDatabaseDown";
}

export interface EmbeddedOptions {
  /** One line for the operator: the database broke (and why), or is back. */
  onTrouble?: (line: string) => void;
  /** Pauses between attempts to open it again (the last one repeats). */
  retryDelaysMs?: number[];
}

const RETRY_DELAYS_MS = [200, 500, 1_000, 2_000, 5_000, 10_000];

/**
 * The worker, in the form this module runs in: a bundle's .mjs beside it, or the TypeScript source
 * through embedded-worker-tsx.mjs (a worker does not inherit the loader this thread was given).
 */
function newWorker(folder: string): Worker {
  const own = new URL(import.meta.url).pathname;
  const bundled = own.endsWith(".mjs");
  const url = new URL(bundled ? "./embedded-worker.mjs" : "./embedded-worker-tsx.mjs", import.meta.url);
  return new Worker(url, { workerData: { folder } });
}

interface Instance {
  worker: Worker;
  generation: number;
  pending: Map<number, { resolve(answer: QueryAnswer | Uint8Array): void; reject(error: Error): void }>;
}

export class EmbeddedDatabase implements EmbeddedQueries {
  private instance: Instance | null = null;
  private generation = 0;
  private nextId = 1;
  private reviving: Promise<void> | null = null;
  private ended = false;
  private lastBreak = "";
  private breakCause = "";
  /** Ends the pause before the next reopen (close() does not wait it out). */
  private wake: (() => void) | null = null;
  /** Reopens in a row without an instance that lasted a minute: a flapping disk keeps the pauses long. */
  private streak = 0;
  private openedAt = Date.now();

  private constructor(
    private readonly folder: string,
    private readonly options: EmbeddedOptions,
  ) {}

  /** Opens the database in a worker; rejects with PGlite's own error when it cannot be opened. */
  static async open(folder: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
    const database = new EmbeddedDatabase(folder, options);
    database.instance = await database.start();
    return database;
  }

  get closed(): boolean {
    return this.ended;
  }

  query<R>(sql: string, params: unknown[] = []): Promise<QueryAnswer<R>> {
    return this.send<R>(sql, params, null);
  }

  /** Queries that run on the current instance only (a transaction's connection). */
  pinned(): EmbeddedQueries {
    const generation = this.instance?.generation ?? -1;
    return {
      query: <R>(sql: string, params: unknown[] = []) => this.send<R>(sql, params, generation),
      close: async () => {},
      closed: false,
    };
  }

  /**
   * The database folder as a gzipped tar (PGlite's dumpDataDir), taken between two queries: the
   * caller holds the one connection (no transaction is open), so the copy is what a crash at that
   * moment would leave, which PostgreSQL opens by replaying its log.
   */
  dump(): Promise<Uint8Array> {
    const instance = this.instance;
    if (this.ended) return Promise.reject(new Error("the embedded database is closed"));
    if (!instance)
      return Promise.reject(
        new EmbeddedDatabaseDown(`the embedded database is being opened again after ${this.lastBreak}`),
      );
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      instance.pending.set(id, { resolve: resolve as (answer: QueryAnswer | Uint8Array) => void, reject });
      instance.worker.postMessage({ type: "dump", id } satisfies ToWorker);
    });
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.wake?.();
    await this.reviving?.catch(() => {});
    const instance = this.instance;
    this.instance = null;
    if (instance) await this.end(instance);
  }

  /**
   * Opens the database again in a fresh worker. A WebAssembly instance's memory only grows: after
   * a one-off job that grew it (a new store's initdb, which also leaves a second instance behind,
   * and its migrations: hundreds of MB), the proxy would keep that memory for its whole life.
   * Only while nothing else queries it (at start).
   */
  async renew(): Promise<void> {
    const instance = this.instance;
    if (this.ended || !instance) return;
    this.instance = null;
    this.lastBreak = "its renewal at start";
    await this.end(instance);
    this.instance = await this.start();
    this.openedAt = Date.now();
  }

  /** Closes an instance's database (its last writes flushed), then ends its worker. */
  private async end(instance: Instance): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      instance.worker.on("message", (message: FromWorker) => message.type === "closed" && resolve()),
    );
    instance.worker.postMessage({ type: "close" } satisfies ToWorker);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    await instance.worker.terminate();
  }

  private send<R>(sql: string, params: unknown[], generation: number | null): Promise<QueryAnswer<R>> {
    const instance = this.instance;
    if (this.ended) return Promise.reject(new Error("the embedded database is closed"));
    if (!instance)
      return Promise.reject(
        new EmbeddedDatabaseDown(`the embedded database is being opened again after ${this.lastBreak}`),
      );
    if (generation !== null && generation !== instance.generation)
      return Promise.reject(
        new EmbeddedDatabaseDown(
          "the embedded database was opened again during this transaction: it was not committed",
        ),
      );
    const id = this.nextId++;
    return new Promise<QueryAnswer<R>>((resolve, reject) => {
      instance.pending.set(id, { resolve: resolve as (answer: QueryAnswer | Uint8Array) => void, reject });
      instance.worker.postMessage({ type: "query", id, sql, params } satisfies ToWorker);
    });
  }

  private start(): Promise<Instance> {
    const worker = newWorker(this.folder);
    const instance: Instance = { worker, generation: ++this.generation, pending: new Map() };
    return new Promise<Instance>((resolve, reject) => {
      worker.on("message", (message: FromWorker) => {
        switch (message.type) {
          case "ready":
            resolve(instance);
            return;
          case "failed":
            void worker.terminate();
            reject(errorFrom(message.error));
            return;
          case "result":
            instance.pending
              .get(message.id)
              ?.resolve({ rows: message.rows, affectedRows: message.affectedRows });
            instance.pending.delete(message.id);
            return;
          case "dumped":
            instance.pending.get(message.id)?.resolve(new Uint8Array(message.bytes));
            instance.pending.delete(message.id);
            return;
          case "error": {
            const error = errorFrom(message.error);
            instance.pending.get(message.id)?.reject(error);
            instance.pending.delete(message.id);
            if (breaksInstance(message.error)) this.broke(instance, error.message);
            return;
          }
        }
      });
      worker.on("error", (error) => {
        reject(error);
        this.broke(instance, error.message);
      });
      worker.on("exit", () => {
        reject(new Error("the embedded database's worker ended before it was ready"));
        if (!this.ended) this.broke(instance, "its worker ended");
      });
    });
  }

  /** Ends a broken instance (its queries fail now) and opens the database again, until it opens. */
  private broke(instance: Instance, why: string) {
    if (this.instance !== instance || this.ended) return;
    this.instance = null;
    this.lastBreak = why;
    this.breakCause = why;
    if (Date.now() - this.openedAt > 60_000) this.streak = 0;
    for (const { reject } of instance.pending.values())
      reject(new EmbeddedDatabaseDown(`the embedded database failed: ${why}`));
    instance.pending.clear();
    void instance.worker.terminate();
    this.options.onTrouble?.(
      `the embedded database failed (${why}): spending is refused until it is opened again, which is tried now and then until it writes`,
    );
    this.reviving = this.revive();
  }

  private async revive() {
    const delays = this.options.retryDelaysMs ?? RETRY_DELAYS_MS;
    while (!this.ended) {
      const pause = delays[Math.min(this.streak++, delays.length - 1)];
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, pause);
      });
      if (this.ended) return;
      try {
        const instance = await this.start();
        if (this.ended) {
          await instance.worker.terminate();
          return;
        }
        this.instance = instance;
        this.openedAt = Date.now();
        this.reviving = null;
        this.options.onTrouble?.("the embedded database was opened again: spending goes on");
        return;
      } catch (error) {
        this.lastBreak = `${this.breakCause}; opening it again failed: ${(error as Error).message}`;
      }
    }
  }
}
