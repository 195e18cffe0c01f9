import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { BufferedAnswer } from "./answer";
import { writeFileAtomic } from "./atomic-file";

/** Stripe's rule, narrowed: 8 to 128 characters a header can carry without escaping. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;

export type JournalResult =
  | { kind: "fresh"; answer: BufferedAnswer }
  | { kind: "replay"; answer: BufferedAnswer }
  | { kind: "conflict" };

interface Entry extends BufferedAnswer {
  v: 1;
  fingerprint: string;
  createdAt: number;
}

/**
 * Spends happen once per Idempotency-Key. The first call's answer (status, passed-on headers, body)
 * is written to `DATA_DIR/idempotency/<hash>.json` atomically before it is sent, and every repeat
 * (same caller, operation and key) within the TTL gets that answer without reaching the upstream;
 * repeats arriving while the first is in flight wait for it. A repeat with different parameters is
 * a conflict. One file per key keeps writes small and lets expiry be a file sweep.
 *
 * What is stored: every answer the upstream gave, whatever its status (a 2xx whose body was cut off
 * included), except the refusals made before any work (401, 403, 422, any 429, 503; see
 * `answerOf` in faults.ts). When the outcome is unknown
 * (timeout, refused or reset connection) nothing is stored and the browser gets 502/504, so it can
 * retry with the SAME key. Known limit: if the upstream charged and then the connection dropped
 * before its answer arrived, that retry charges again; the sandbox commits before it answers, so
 * only a failure in that window can do it.
 */
export class IdempotencyJournal {
  private readonly inFlight = new Map<string, Promise<{ fingerprint: string; answer: BufferedAnswer }>>();
  /** Answers the disk refused (full, read-only): still never spent twice while this process lives. */
  private readonly unsaved = new Map<string, Entry>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly onWriteError: (error: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), Math.min(this.ttlMs, 3600_000));
    this.sweeper.unref();
  }

  close() {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /**
   * Runs `work` at most once per scope. `work` returns the answer and whether it is final (an
   * upstream answer) or may be retried under the same key (nothing is known to have happened).
   */
  async run(
    scope: { caller: string; operation: string; key: string },
    fingerprint: string,
    work: () => Promise<{ answer: BufferedAnswer; final: boolean }>,
  ): Promise<JournalResult> {
    const id = createHash("sha256").update(`${scope.caller}\n${scope.operation}\n${scope.key}`).digest("hex");
    const pending = this.inFlight.get(id);
    if (pending) {
      const first = await pending;
      return first.fingerprint === fingerprint
        ? { kind: "replay", answer: first.answer }
        : { kind: "conflict" };
    }

    let fresh = false;
    // Registered before the first await, so a concurrent repeat always finds it.
    const promise = (async () => {
      const stored = await this.read(id);
      if (stored) return { fingerprint: stored.fingerprint, answer: answerOf(stored) };
      fresh = true;
      const { answer, final } = await work();
      if (final) {
        const entry: Entry = { v: 1, fingerprint, createdAt: this.now(), ...answer };
        try {
          await writeFileAtomic(this.file(id), JSON.stringify(entry));
        } catch (error) {
          this.unsaved.set(id, entry);
          this.onWriteError(error);
        }
      }
      return { fingerprint, answer };
    })();
    this.inFlight.set(id, promise);
    try {
      const result = await promise;
      if (result.fingerprint !== fingerprint) return { kind: "conflict" };
      return { kind: fresh ? "fresh" : "replay", answer: result.answer };
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** Deletes expired entries (and stray temp files). */
  async sweep(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const oldest = this.now() - this.ttlMs;
    for (const name of names) {
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => null);
      if (info && info.mtimeMs < oldest) await unlink(file).catch(() => {});
    }
  }

  private file(id: string) {
    return path.join(this.dir, `${id}.json`);
  }

  private async read(id: string): Promise<Entry | null> {
    const kept = this.unsaved.get(id);
    if (kept && kept.createdAt + this.ttlMs > this.now()) return kept;
    let text: string;
    try {
      text = await readFile(this.file(id), "utf8");
    } catch {
      return null;
    }
    try {
      const entry = JSON.parse(text) as Entry;
      if (entry.v !== 1 || typeof entry.fingerprint !== "string") return null;
      if (entry.createdAt + this.ttlMs <= this.now()) {
        await unlink(this.file(id)).catch(() => {});
        return null;
      }
      return entry;
    } catch {
      // A torn file cannot happen with atomic writes; anything unreadable is treated as absent.
      return null;
    }
  }
}

function answerOf(entry: Entry): BufferedAnswer {
  return { status: entry.status, headers: entry.headers, body: entry.body };
}
