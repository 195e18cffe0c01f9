// Loaded with `node --import` into a proxy started by a test: while the file named by
// FAIL_WRITES_FILE exists, every file write of the embedded database's worker thread fails with
// the error code the file holds (EIO, ENOSPC), as a failing or full disk would answer PostgreSQL's
// writes; removing the file clears the fault. The proxy's own thread is left alone.
import fs from "node:fs";
import { isMainThread } from "node:worker_threads";

const trigger = process.env.FAIL_WRITES_FILE;
const ERRNO = { EIO: -5, ENOSPC: -28 };

if (trigger && !isMainThread) {
  // Only writes: PGlite never calls fsync (its fdatasync is a no-op), so a failing flush is not a
  // fault it can meet.
  for (const name of ["writeSync"]) {
    const original = fs[name];
    fs[name] = (...args) => {
      if (fs.existsSync(trigger)) {
        const code = fs.readFileSync(trigger, "utf8").trim() || "EIO";
        const error = new Error(`${code}: injected by the test, ${name}`);
        error.code = code;
        error.errno = ERRNO[code] ?? -5;
        error.syscall = "write";
        throw error;
      }
      return original.apply(fs, args);
    };
  }
}
