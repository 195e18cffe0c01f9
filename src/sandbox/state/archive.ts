import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import type { z } from "zod";
import { DamagedFileError, keepCopy, parseKept, reason } from "./damage";

/**
 * Records that will never change again (finished exports), kept on disk instead of in memory: one
 * JSON line each in an append-only file, and in memory only where each line starts. The history
 * then costs a few dozen bytes of memory a record, and the state file, which is rewritten whole on
 * every change, stays as small as the work in progress (with the history in it, a soak's thousand
 * exports made every save serialise megabytes and the sandbox's memory grow with each one).
 *
 * Appends are synchronous (a line, a few a second at most) and fsynced before `add` returns, so the
 * offsets in the index are exact and a record is never only in memory. A crash mid-append leaves a
 * partial last line: `open` cuts it (keeping a copy of the file, and saying so): its record is still
 * in the state file, which removes a record only after `add` returned.
 *
 * Anything else that is wrong is damage, and `open` throws DamagedFileError rather than drop a
 * record: a complete line that is not a record, or a file shorter than `expectBytes` (the size of
 * its complete records that the state file last recorded: the file only grows, so shorter means
 * whole records were lost, which no line-by-line reading can see).
 */
export class Archive<T> {
  private readonly index = new Map<string, { offset: number; length: number; owner: string }>();
  private size: number;
  /** An append failed and its partial bytes could not be cut yet: the next append cuts them first. */
  private torn = false;

  private constructor(
    private readonly fd: number,
    private readonly file: string,
    private readonly options: ArchiveOptions<T>,
  ) {
    this.size = fstatSync(fd).size;
  }

  static open<T>(file: string, options: ArchiveOptions<T>): Archive<T> {
    let fd: number;
    try {
      fd = openSync(file, "a+", 0o600);
    } catch (error) {
      throw new DamagedFileError(file, `unreadable: ${reason(error)}`);
    }
    const archive = new Archive<T>(fd, file, options);
    try {
      archive.load();
    } catch (error) {
      archive.close();
      throw error;
    }
    return archive;
  }

  /** Bytes of complete records: what the state file records as `expectBytes` for the next open. */
  get bytes(): number {
    return this.size;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  get(id: string): T | undefined {
    const at = this.index.get(id);
    return at ? this.read(at.offset, at.length) : undefined;
  }

  /** Every record of an owner, in the order they were archived. */
  ownedBy(owner: string): T[] {
    const out: T[] = [];
    for (const at of this.index.values()) if (at.owner === owner) out.push(this.read(at.offset, at.length));
    return out;
  }

  /** Adds a record for good; a second add of the same id is ignored (the first one stands). */
  add(record: T): void {
    const { id, owner } = this.options.describe(record);
    if (this.index.has(id)) return;
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    if (this.torn) {
      ftruncateSync(this.fd, this.size);
      this.torn = false;
    }
    try {
      for (let written = 0; written < line.length; )
        written += writeSync(this.fd, line, written, line.length - written);
      fsyncSync(this.fd);
    } catch (error) {
      // A failed append (a full disk) may leave part of a line: cut it now or before the next
      // append, which would otherwise be glued to it into one damaged line.
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        this.torn = true;
      }
      throw error;
    }
    this.index.set(id, { offset: this.size, length: line.length - 1, owner });
    this.size += line.length;
  }

  close(): void {
    closeSync(this.fd);
  }

  private read(offset: number, length: number): T {
    const buffer = Buffer.alloc(length);
    readSync(this.fd, buffer, 0, length, offset);
    return JSON.parse(buffer.toString("utf8")) as T;
  }

  /**
   * Indexes every complete line. Bytes after the last newline are a torn append (a crash mid-write)
   * and are cut off, a copy kept; a complete line that is not a record, or a file shorter than
   * recorded, is damage (DamagedFileError naming the line).
   */
  private load() {
    const CHUNK = 1 << 20;
    const buffer = Buffer.alloc(CHUNK);
    let pending = Buffer.alloc(0);
    let position = 0;
    let lineStart = 0;
    let lineNumber = 0;
    for (;;) {
      const read = readSync(this.fd, buffer, 0, CHUNK, position);
      if (read === 0) break;
      position += read;
      pending = Buffer.concat([pending, buffer.subarray(0, read)]);
      for (let newline = pending.indexOf(10); newline >= 0; newline = pending.indexOf(10)) {
        lineNumber++;
        const parsed = parseKept(pending.subarray(0, newline).toString("utf8"), this.options.schema);
        if ("problem" in parsed) throw new DamagedFileError(this.file, parsed.problem, lineNumber);
        const { id, owner } = this.options.describe(parsed.value);
        if (!this.index.has(id)) this.index.set(id, { offset: lineStart, length: newline, owner });
        lineStart += newline + 1;
        pending = pending.subarray(newline + 1);
      }
    }
    const expected = this.options.expectBytes ?? 0;
    if (lineStart < expected)
      throw new DamagedFileError(
        this.file,
        `truncated: ${lineStart} bytes of whole records where the state file recorded ${expected}`,
      );
    if (lineStart < this.size) {
      const kept = keepCopy(this.file);
      ftruncateSync(this.fd, lineStart);
      this.options.log?.(
        `${this.file}: cut ${this.size - lineStart} bytes of a torn last record (a stop mid-append; the record is still in the state file); ${kept}`,
      );
      this.size = lineStart;
    }
  }
}

export interface ArchiveOptions<T> {
  describe: (record: T) => { id: string; owner: string };
  /** What a line must hold; a complete line that does not is damage. */
  schema: z.ZodType<T>;
  /** Bytes of complete records the file held when last recorded: fewer means records were lost. */
  expectBytes?: number;
  log?: (message: string) => void;
}
