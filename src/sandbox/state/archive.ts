import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";

/**
 * Records that will never change again (finished exports), kept on disk instead of in memory: one
 * JSON line each in an append-only file, and in memory only where each line starts. The history
 * then costs a few dozen bytes of memory a record, and the state file, which is rewritten whole on
 * every change, stays as small as the work in progress (with the history in it, a soak's thousand
 * exports made every save serialise megabytes and the sandbox's memory grow with each one).
 *
 * Appends are synchronous (a line, a few a second at most) and fsynced before `add` returns, so the
 * offsets in the index are exact and a record is never only in memory. A crash mid-append leaves a
 * partial last line: `open` drops it (its record is still in the state file, which removes a record
 * only after `add` returned).
 */
export class Archive<T> {
  private readonly index = new Map<string, { offset: number; length: number; owner: string }>();
  private size: number;

  private constructor(
    private readonly fd: number,
    private readonly describe: (record: T) => { id: string; owner: string },
  ) {
    this.size = fstatSync(fd).size;
  }

  static open<T>(file: string, describe: (record: T) => { id: string; owner: string }): Archive<T> {
    const archive = new Archive<T>(openSync(file, "a+", 0o600), describe);
    archive.load();
    return archive;
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
    const { id, owner } = this.describe(record);
    if (this.index.has(id)) return;
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    writeSync(this.fd, line);
    fsyncSync(this.fd);
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
   * and are cut off; a complete line that does not parse (a damaged disk) is skipped, not trusted.
   */
  private load() {
    const CHUNK = 1 << 20;
    const buffer = Buffer.alloc(CHUNK);
    let pending = Buffer.alloc(0);
    let position = 0;
    let lineStart = 0;
    for (;;) {
      const read = readSync(this.fd, buffer, 0, CHUNK, position);
      if (read === 0) break;
      position += read;
      pending = Buffer.concat([pending, buffer.subarray(0, read)]);
      for (let newline = pending.indexOf(10); newline >= 0; newline = pending.indexOf(10)) {
        const record = parseLine<T>(pending.subarray(0, newline).toString("utf8"));
        if (record !== undefined) {
          const { id, owner } = this.describe(record);
          if (!this.index.has(id)) this.index.set(id, { offset: lineStart, length: newline, owner });
        }
        lineStart += newline + 1;
        pending = pending.subarray(newline + 1);
      }
    }
    if (lineStart < this.size) {
      ftruncateSync(this.fd, lineStart);
      this.size = lineStart;
    }
  }
}

function parseLine<T>(text: string): T | undefined {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
