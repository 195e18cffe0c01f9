import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import path from "node:path";
import { SPEND_CODES } from "../../contract/errors";
import type { ProxyConfig } from "../config";
import { ConfigError } from "../config";
import { writeFileAtomic } from "../db/atomic-file";
import { fail } from "../http/answer";

/**
 * Holds the upstream key. Only this module and the upstream request builder ever see it; the
 * browser gets its last four characters. A rotated key is stored (atomically, 0600) before anyone
 * is told it changed, so a crash cannot lose the only working key.
 *
 * Where it lives: API_KEY_FILE when given (read at start, rewritten on rotation); otherwise
 * `DATA_DIR/api-key`, a small JSON record naming the upstream it belongs to, which wins over the
 * environment on start (so a rotated sandbox or env key survives restarts) but never crosses to
 * another upstream.
 */
export class KeyStore {
  private key: string;
  /** Every key this process has held: logs are scrubbed of all of them. */
  private readonly seen = new Set<string>();
  private readonly target: { file: string; format: "plain" | "record" };
  /** When a rotation was cut off by a crash before its answer was stored (see app.ts), else null. */
  interruptedRotation: Date | null = null;

  constructor(
    private readonly config: Pick<ProxyConfig, "apiKey" | "apiKeyFile" | "dataDir" | "upstreamLabel">,
  ) {
    const stored = path.join(config.dataDir, "api-key");
    if (config.apiKeyFile) {
      this.target = { file: config.apiKeyFile, format: "plain" };
      this.key = readPlainKey(config.apiKeyFile, "API_KEY_FILE");
    } else {
      this.target = { file: stored, format: "record" };
      const fromFile = existsSync(stored) ? readRecord(stored, config.upstreamLabel) : null;
      const key = fromFile ?? config.apiKey;
      if (!key) throw new ConfigError("no API key: set API_KEY, API_KEY_FILE or SANDBOX_KEY");
      this.key = key;
    }
    checkKey(this.key, this.target.file);
    this.seen.add(this.key);
  }

  /** The file a rotated key is written to (API_KEY_FILE, or DATA_DIR/api-key). */
  get storedIn(): string {
    return this.target.file;
  }

  current(): string {
    return this.key;
  }

  last4(): string {
    return this.key.slice(-4);
  }

  secrets(): string[] {
    return [...this.seen];
  }

  /**
   * Before a rotation is sent: the new key must be storable the moment it arrives, since the old
   * one dies upstream at once. Throws a 503 the browser can show when it is not.
   */
  async checkWritable(): Promise<void> {
    // A probe of its own: checks at once (several rotations sent together) must not remove each
    // other's, which made a writable folder look unwritable.
    const probe = `${this.target.file}.probe-${process.pid}-${randomBytes(6).toString("hex")}`;
    try {
      await writeFileAtomic(probe, "", 0o600);
      await unlink(probe);
    } catch {
      throw fail(
        503,
        "The key was not rotated: the proxy could not store a new key right now, and the old one would stop working at once. Whoever runs the proxy: make its key file writable, then try again.",
        { code: SPEND_CODES.keyStoreUnwritable },
      );
    }
  }

  /** Stores the new key durably, then swaps it in. Throws if it could not be stored (it is swapped in anyway). */
  async rotate(newKey: string): Promise<void> {
    checkKey(newKey, "the rotation answer");
    this.seen.add(newKey);
    const content =
      this.target.format === "plain"
        ? `${newKey}\n`
        : `${JSON.stringify({ upstream: this.config.upstreamLabel, key: newKey, rotatedAt: new Date().toISOString() })}\n`;
    try {
      await writeFileAtomic(this.target.file, content, 0o600);
    } finally {
      // The old key is already dead upstream: keep working with the new one even if the disk failed.
      this.key = newKey;
    }
  }
}

function readPlainKey(file: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${what} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code}`);
  }
  const key = text.trim();
  if (key === "" || !/^[\x21-\x7e]+$/.test(key)) throw damaged(file, what);
  return key;
}

/** A record written by `rotate`; a bare key written by hand is accepted too. */
function readRecord(file: string, upstreamLabel: string): string | null {
  const text = readPlainKey(file, "the stored key");
  if (!text.startsWith("{")) return text;
  try {
    const record = JSON.parse(text) as { upstream?: unknown; key?: unknown };
    if (typeof record.key !== "string") throw new Error("no key");
    checkKey(record.key, file);
    return record.upstream === upstreamLabel ? record.key : null;
  } catch {
    throw damaged(file, "the stored key");
  }
}

/**
 * A damaged key file is never passed over for the key in the environment: after a rotation it
 * holds the only key that works. It is left as it is (it is the copy) and the way out is said.
 */
function damaged(file: string, what: string): ConfigError {
  return new ConfigError(
    `${what} ${file} is damaged (empty, cut short or not a key). It is left untouched. If a key was rotated, ` +
      "this file held the only working key: restore it from a backup; otherwise create a key in the service's dashboard, " +
      "put it in this file (or move the file aside and set API_KEY), then start again.",
  );
}

function checkKey(key: string, where: string) {
  // Whitespace or control characters would make a different (unknown) key, or split a header.
  if (key === "" || !/^[\x21-\x7e]+$/.test(key))
    throw new ConfigError(`the API key from ${where} is empty or holds spaces or control characters`);
}
