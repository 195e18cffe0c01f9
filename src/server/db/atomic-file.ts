import { randomBytes } from "node:crypto";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import path from "node:path";

/**
 * Writes a whole file so that a crash leaves either the old content or the new, never a mix: a
 * temp file beside it (created 0600), fsync, rename over the target, fsync the folder.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", mode);
  try {
    try {
      await handle.writeFile(content);
      await handle.chmod(mode); // the umask cannot widen it, but an inherited ACL might
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    // A half-written temp file is never read; left behind it would only fill a full disk further.
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDir(dir);
}

async function syncDir(dir: string) {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic there.
  }
}
