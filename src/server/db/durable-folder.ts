/**
 * PGlite on a folder, made durable. As shipped, PGlite starts PostgreSQL with `-F` (fsync off) and
 * its Emscripten file system answers fdatasync without flushing and has no fsync at all: a commit
 * is answered once it is in the operating system's cache, and a machine crash or power cut can
 * lose it, a spend journalled before its send included. Here PostgreSQL runs with fsync on and
 * `wal_sync_method=fsync` (the one call that reaches the file system), and that call flushes the
 * real file (`fs.fdatasyncSync`), so a commit is answered once its log is on disk. A failed flush is
 * PostgreSQL's PANIC, which embedded-database.ts treats as a broken instance.
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";

/**
 * The start parameters: PGlite's own, with fsync on and the log flushed by fsync, and a buffer
 * cache of 16 MB instead of PostgreSQL's 128: the team's store is small, its pages beyond the cache
 * are read from the operating system's, and PostgreSQL's default cost the proxy 120 MB of resident
 * memory (see "Memory" in src/server/README.md).
 */
export const DURABLE_START_PARAMS = [
  ...PGlite.defaultStartParams.filter((param) => param !== "-F"),
  "-c",
  "fsync=on",
  "-c",
  "wal_sync_method=fsync",
  "-c",
  "shared_buffers=16MB",
];

interface NodeStream {
  nfd?: number;
  node?: { mode: number };
}
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
interface EmscriptenNodeFs {
  stream_ops: { fsync?: (stream: NodeStream) => number };
  tryFSOperation<T>(operation: () => T): T;
}

/** PGlite's folder file system, whose fsync reaches the disk. */
export class DurableFolder extends NodeFS {
  override async init(pg: PGlite, options: Parameters<NodeFS["init"]>[1]) {
    const { emscriptenOpts } = await super.init(pg, options);
    const mountFirst = emscriptenOpts.preRun ?? [];
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [
          ...mountFirst,
          (mod: { NODEFS: unknown }) => {
            const nodefs = mod.NODEFS as EmscriptenNodeFs;
            nodefs.stream_ops.fsync = (stream) => {
              const fd = stream.nfd;
              if (fd === undefined) return 0;
              // A file's data and the size that reads it (fdatasync, as PostgreSQL's own default for
              // its log): the times a full fsync adds cost a second disk write per commit. A folder
              // (a file made or renamed in it) needs fsync. An error becomes the file system's own
              // (EIO to PostgreSQL), as a failed write does.
              const isFolder = ((stream.node?.mode ?? 0) & S_IFMT) === S_IFDIR;
              nodefs.tryFSOperation(() => (isFolder ? fs.fsyncSync(fd) : fs.fdatasyncSync(fd)));
              return 0;
            };
          },
        ],
      },
    };
  }
}

/**
 * Opens (or creates) the embedded database in `folder`, every commit flushed to disk. A new
 * database is flushed whole once made: PGlite's initdb writes its files without flushing them, and
 * PostgreSQL's checkpoints only flush what it wrote itself.
 */
export async function openDurable(folder: string, options: PGliteOptions = {}): Promise<PGlite> {
  const isNew = !fs.existsSync(path.join(folder, "PG_VERSION"));
  const pglite = await PGlite.create({
    ...options,
    fs: new DurableFolder(folder),
    startParams: DURABLE_START_PARAMS,
  });
  if (isNew) flushTree(folder);
  return pglite;
}

/** Flushes every file and folder under `folder` to disk, the folders after what they hold. */
function flushTree(folder: string): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) flushTree(full);
    else if (entry.isFile()) flushFile(full);
  }
  flushFile(folder);
}

function flushFile(file: string): void {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
