// Loaded with `node --import` into a proxy started by a test: while the file named by
// FAIL_WRITES_FILE exists, the embedded database's worker thread meets a failing disk. The file
// holds the error code (EIO, ENOSPC), then optionally "fsync": without it every file write fails,
// as a failing or full disk would answer PostgreSQL's writes; with it only the flushes to disk
// fail (the writes reach the cache, the disk then refuses them). Removing the file clears the
// fault. The proxy's own thread is left alone.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { isMainThread } from "node:worker_threads";

const trigger = process.env.FAIL_WRITES_FILE;
const ERRNO = { EIO: -5, ENOSPC: -28 };

function fault() {
  if (!fs.existsSync(trigger)) return null;
  const [code = "EIO", what = "write"] = fs.readFileSync(trigger, "utf8").trim().split(/\s+/);
  return { code, what };
}

if (trigger && !isMainThread) {
  for (const [name, what] of [
    ["writeSync", "write"],
    ["fsyncSync", "fsync"],
    ["fdatasyncSync", "fsync"],
  ]) {
    const original = fs[name];
    fs[name] = (...args) => {
      const now = fault();
      if (now && now.what === what) {
        const error = new Error(`${now.code}: injected by the test, ${name}`);
        error.code = now.code;
        error.errno = ERRNO[now.code] ?? -5;
        error.syscall = what;
        throw error;
      }
      return original.apply(fs, args);
    };
  }
  syncBuiltinESMExports();
}
