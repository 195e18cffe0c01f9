import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { z } from "zod";

/**
 * Why the sandbox will not start, in one line for a person (main.ts and the launcher print it as
 * `refusing to start: <message>`): a data folder it cannot use, or a file it keeps that it cannot
 * read. Starting anyway would reset credits, keys or history without a word.
 */
export class SandboxStartError extends Error {
  override name = "SandboxStartError";
}

/** A file that was read back and is not what the sandbox wrote; `line` is 1-based, when known. */
export class DamagedFileError extends Error {
  override name = "DamagedFileError";
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly line?: number,
  ) {
    super(`${file}${line === undefined ? "" : `, line ${line},`} is damaged (${problem})`);
  }
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

/**
 * Puts a copy of a file the sandbox could not read beside it (`<file>.damaged-<time>`), so that
 * whatever the recovery, the bytes are still there to look at. Says where, or why it could not.
 */
export function keepCopy(file: string, move = false): string {
  // Never over an earlier copy: two refusals within one millisecond get two copies.
  let copy = `${file}.damaged-${stamp()}`;
  for (let n = 2; existsSync(copy); n++) copy = `${file}.damaged-${stamp()}-${n}`;
  try {
    if (move) renameSync(file, copy);
    else copyFileSync(file, copy);
    return `${move ? "it was moved to" : "a copy is kept at"} ${copy}`;
  } catch (error) {
    return `no copy could be kept (${reason(error)})`;
  }
}

/** The refusal for a damaged file: names it, says where its copy is and how to recover. */
export function refuseDamaged(damage: DamagedFileError, recovery: string, move = false): SandboxStartError {
  return new SandboxStartError(`${damage.message}; ${keepCopy(damage.file, move)}; ${recovery}`);
}

/** An fs error as `CODE: message` without the stack. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes sure a folder exists and can be written (a probe file, so a read-only mount or a full disk
 * shows here too, for root as well), or refuses to start with one line saying what to do.
 */
export function usableFolder(dir: string, what: string): void {
  const elsewhere = "or set SANDBOX_DATA_DIR to a folder that is";
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new SandboxStartError(`the ${what} ${dir} is not a folder; move that file away, ${elsewhere}`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new SandboxStartError(
      `the ${what} ${dir} is missing and cannot be created (${reason(error)}); create it, ${elsewhere}`,
    );
  }
  const probe = path.join(dir, `.write-probe-${process.pid}`);
  try {
    accessSync(dir, constants.W_OK);
    writeFileSync(probe, "");
  } catch (error) {
    throw new SandboxStartError(
      `the ${what} ${dir} is read-only (${reason(error)}); make it writable, ${elsewhere}`,
    );
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Parses one JSON value of a kept file, or says what is wrong with it (for DamagedFileError). */
export function parseKept<T>(text: string, schema: z.ZodType<T>): { value: T } | { problem: string } {
  if (text.trim() === "") return { problem: "empty" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `truncated or not JSON: ${reason(error)}` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0];
  return { problem: `not what the sandbox writes: ${issue?.path.join(".") || "(top)"}: ${issue?.message}` };
}
